/**
 * Which model a session without one of its own starts with.
 *
 * 1. The first preference that names a known model (Arbor's setting, the model last chosen in Arbor,
 *    Pi's own default from its settings.json), as Pi takes its saved default without checking its key.
 * 2. Else the first model that has credentials, models the user configured (models.json, "Add a
 *    Model...") before pi-ai's built-in ones: someone who set up a local server for Pi wants it used.
 *    (Pi keeps a preferred model per built-in provider; Arbor does not copy that list and takes the
 *    catalog's order, so a user with only an environment key may want to pick a model once.)
 * 3. Else none: Arbor still browses, and says how to add a model.
 */

/** A model named by provider and id. */
export interface ModelKey {
  provider: string;
  id: string;
}

export interface DefaultModelInput<M extends ModelKey> {
  /** Every known model, in the registry's order. */
  models: readonly M[];
  /** In order of precedence; undefined entries are skipped. */
  preferences: readonly (ModelKey | undefined)[];
  hasCredentials(model: M): boolean;
  isConfigured(model: M): boolean;
}

export function chooseDefaultModel<M extends ModelKey>(input: DefaultModelInput<M>): M | undefined {
  for (const preference of input.preferences) {
    if (!preference) continue;
    const found = input.models.find((model) => model.provider === preference.provider && model.id === preference.id);
    if (found) return found;
  }
  const available = input.models.filter((model) => input.hasCredentials(model));
  return available.find((model) => input.isConfigured(model)) ?? available[0];
}

/** Parses "provider/id" (the id may itself contain slashes: "openrouter/anthropic/claude-x"). */
export function parseModelKey(text: string | undefined): ModelKey | undefined {
  const trimmed = text?.trim() ?? "";
  const slash = trimmed.indexOf("/");
  if (slash <= 0 || slash === trimmed.length - 1) return undefined;
  return { provider: trimmed.slice(0, slash), id: trimmed.slice(slash + 1) };
}

export function formatModelKey(model: ModelKey): string {
  return `${model.provider}/${model.id}`;
}
