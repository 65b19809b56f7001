/**
 * The cost of tokens at a model's prices, as pi-ai computes it: for replies whose file recorded
 * no cost (written by a tool that did not price them), where pi-ai's catalog knows the recorded
 * model. A model the catalog does not know, or whose prices are all zero (a local model), has no
 * price: its replies count their tokens only.
 *
 * Pure core: no `vscode`.
 */
import type { Usage as PiUsage } from "@mariozechner/pi-ai" with { "resolution-mode": "import" };
import type { CostLookup, TokenCounts } from "../session/usage-totals";
import { piAi, type PiAiLoader, type PiModel } from "./pi-ai-modules";

/** What pricing uses from pi-ai's root module. */
export interface PiPricing {
  getModels(provider: string): PiModel[];
  /** pi-ai's own arithmetic: fills `usage.cost` from the model's prices per million tokens, and returns it. */
  calculateCost(model: PiModel, usage: PiUsage): PiUsage["cost"];
}

function hasPrices(model: PiModel): boolean {
  const c = model.cost;
  return !!c && [c.input, c.output, c.cacheRead, c.cacheWrite].some((p) => typeof p === "number" && p > 0);
}

/** A cost lookup over pi-ai's catalog (models found once, then remembered). */
export function costLookupFrom(pricing: PiPricing): CostLookup {
  const found = new Map<string, PiModel | null>();
  const modelOf = (provider: string, id: string): PiModel | null => {
    const key = `${provider}\u0000${id}`;
    let model = found.get(key);
    if (model === undefined) {
      model = pricing.getModels(provider).find((m) => m.id === id) ?? null;
      if (model && !hasPrices(model)) model = null;
      found.set(key, model);
    }
    return model;
  };
  return (provider: string, id: string, tokens: TokenCounts): number | undefined => {
    const model = modelOf(provider, id);
    if (!model) return undefined;
    const usage: PiUsage = {
      input: tokens.input,
      output: tokens.output,
      cacheRead: tokens.cacheRead,
      cacheWrite: tokens.cacheWrite,
      totalTokens: tokens.total,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    return pricing.calculateCost(model, usage).total;
  };
}

/** Loads pi-ai's catalog (once per process) and answers a cost lookup over it. */
export async function loadCostLookup(loader: PiAiLoader = piAi): Promise<CostLookup> {
  const root = (await loader.catalog()) as unknown as Partial<PiPricing>;
  if (typeof root.calculateCost !== "function" || typeof root.getModels !== "function") return () => undefined;
  return costLookupFrom(root as PiPricing);
}

let loaded: CostLookup | undefined;
let loading: Promise<CostLookup> | undefined;

/**
 * pi-ai's prices for this process: loaded on the first call (the catalog is loaded once per
 * process anyway), then answered from memory.
 */
export function loadPrices(loader: PiAiLoader = piAi): Promise<CostLookup> {
  loading ??= loadCostLookup(loader).then((lookup) => (loaded = lookup));
  // A failed load (a broken install) is tried again next time.
  loading.catch(() => (loading = undefined));
  return loading;
}

/** The prices once {@link loadPrices} has loaded them, else undefined (replies that recorded no cost show tokens only until then). */
export function pricesNow(): CostLookup | undefined {
  return loaded;
}
