/**
 * The window's models as Pi extensions see them (`ctx.modelRegistry`, `ctx.model`, `pi.setModel`,
 * `model_select`): exactly the list "Arbor: Select Model" offers (the ModelService's entries, in its
 * order), each as pi-ai's own Model object where pi-ai knows it (registry models) and described in
 * pi-ai's shape otherwise (VS Code's chat models). Keys are resolved on request, as Pi's registry does.
 */
import { toPiModel, type ModelAccess, type PiModelLike } from "../../core/pi-extensions/pi-models";
import type { ModelService } from "../models/model-service";

export function modelAccessOf(models: ModelService): ModelAccess {
  const piShaped = (provider: string, id: string): PiModelLike | undefined => {
    const own = models.piModel({ provider, id });
    if (own) return own as unknown as PiModelLike;
    const info = models.describe({ provider, id });
    return info ? toPiModel(info) : undefined;
  };
  const list = (available: boolean): PiModelLike[] =>
    models
      .entries()
      .filter((entry) => !available || !entry.keyMissing)
      .flatMap((entry) => piShaped(entry.provider, entry.id) ?? []);
  return {
    find: (provider, id) => (models.findEntry({ provider, id }) ? piShaped(provider, id) : undefined),
    getAll: () => list(false),
    getAvailable: () => list(true),
    getApiKeyAndHeaders: (model) => models.requestAuth({ provider: model.provider, id: model.id }),
    describe: (provider, id) => models.describe({ provider, id }),
    isAvailable: (provider, id) => {
      const entry = models.findEntry({ provider, id });
      return entry !== undefined && !entry.keyMissing;
    },
    selected: (provider, id) => void models.rememberSelection({ provider, id }),
  };
}
