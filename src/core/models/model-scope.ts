/**
 * The scoped models that model cycling steps through (Pi's `enabledModels` setting and `--models`
 * flag), and the steps themselves: the next model of the scope (or of every usable model when there
 * is no scope) and the next thinking level, as Pi's Ctrl+P and Shift+Tab take them.
 */
import { isThinkingLevel } from "../agent/model-selection";
import type { ThinkingLevel } from "../session/types";

/** A model as the scope sees it. */
export interface ScopeCandidate {
  provider: string;
  id: string;
  name?: string;
}

/** A model in the scope, with the thinking level its pattern names (`pattern:high`), if any. */
export interface ScopedModel<M extends ScopeCandidate> {
  model: M;
  thinkingLevel?: ThinkingLevel;
}

const same = (a: ScopeCandidate, b: ScopeCandidate): boolean => a.provider === b.provider && a.id === b.id;

/** A glob (`*`, `?`, `[...]`) as a case-insensitive regular expression over the whole text. */
function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      let end = i;
      while (glob[end + 1] === "*") end++;
      // As minimatch reads it: exactly "**" as a whole segment crosses slashes; any other run of stars is one "*".
      const whole = end === i + 1 && (i === 0 || glob[i - 1] === "/") && (end === glob.length - 1 || glob[end + 1] === "/");
      source += whole ? ".*" : "[^/]*";
      i = end;
    } else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        source += `[${body}]`;
        i = end;
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "i");
}

/** Ids without a date at the end (`-20250929`), or ending in `-latest`: the names Pi prefers. */
function isAlias(id: string): boolean {
  return id.endsWith("-latest") || !/-\d{8}$/.test(id);
}

/** The one model a reference names exactly ("provider/id", or an id only one provider has), ignoring case. */
function exactMatch<M extends ScopeCandidate>(reference: string, models: readonly M[]): M | undefined {
  const wanted = reference.trim().toLowerCase();
  if (wanted === "") return undefined;
  const full = models.filter((m) => `${m.provider}/${m.id}`.toLowerCase() === wanted);
  if (full.length > 0) return full.length === 1 ? full[0] : undefined;
  const slash = wanted.indexOf("/");
  if (slash > 0) {
    const provider = wanted.slice(0, slash).trim();
    const id = wanted.slice(slash + 1).trim();
    const both = models.filter((m) => m.provider.toLowerCase() === provider && m.id.toLowerCase() === id);
    if (both.length > 0) return both.length === 1 ? both[0] : undefined;
  }
  const byId = models.filter((m) => m.id.toLowerCase() === wanted);
  return byId.length === 1 ? byId[0] : undefined;
}

/** The model a plain pattern names: exactly, else the best of those whose id or name contains it. */
function matchOne<M extends ScopeCandidate>(pattern: string, models: readonly M[]): M | undefined {
  const exact = exactMatch(pattern, models);
  if (exact) return exact;
  const wanted = pattern.toLowerCase();
  const partial = models.filter((m) => m.id.toLowerCase().includes(wanted) || (m.name?.toLowerCase().includes(wanted) ?? false));
  if (partial.length === 0) return undefined;
  const aliases = partial.filter((m) => isAlias(m.id));
  // An alias over a dated id; among several, the id that sorts last (the newest, usually).
  return [...(aliases.length > 0 ? aliases : partial)].sort((a, b) => b.id.localeCompare(a.id))[0];
}

/**
 * A plain pattern, whose last `:suffix` may be a thinking level (ids may hold colons themselves):
 * the whole pattern first, then without its last suffix. The last level wins; an unknown suffix
 * drops the level (the default applies).
 */
function matchPattern<M extends ScopeCandidate>(pattern: string, models: readonly M[]): { model: M; thinkingLevel?: ThinkingLevel; unknownLevel?: true } | undefined {
  const model = matchOne(pattern, models);
  if (model) return { model };
  const colon = pattern.lastIndexOf(":");
  if (colon < 0) return undefined;
  const inner = matchPattern(pattern.slice(0, colon), models);
  if (!inner) return undefined;
  const suffix = pattern.slice(colon + 1);
  if (!isThinkingLevel(suffix)) return { model: inner.model, unknownLevel: true };
  return inner.unknownLevel ? inner : { model: inner.model, thinkingLevel: suffix };
}

/**
 * The models `patterns` pick from `available`, in the patterns' order, each once: a glob
 * (`anthropic/*`, `*sonnet*`, matched against `provider/id` and against the id) picks every match;
 * a plain pattern picks one model (exact reference, else a part of an id or name). `:level` at the
 * end sets the thinking level the model is used with. Patterns that match nothing are skipped.
 */
export function resolveModelScope<M extends ScopeCandidate>(patterns: readonly string[], available: readonly M[]): ScopedModel<M>[] {
  const scope: ScopedModel<M>[] = [];
  const add = (entry: ScopedModel<M>): void => {
    if (!scope.some((s) => same(s.model, entry.model))) scope.push(entry.thinkingLevel ? { model: entry.model, thinkingLevel: entry.thinkingLevel } : { model: entry.model });
  };
  for (const pattern of patterns) {
    if (/[*?[]/.test(pattern)) {
      const colon = pattern.lastIndexOf(":");
      const suffix = colon >= 0 ? pattern.slice(colon + 1) : "";
      const level = isThinkingLevel(suffix) ? suffix : undefined;
      const glob = globToRegExp(level ? pattern.slice(0, colon) : pattern);
      for (const model of available) {
        if (glob.test(`${model.provider}/${model.id}`) || glob.test(model.id)) add({ model, thinkingLevel: level });
      }
      continue;
    }
    const match = matchPattern(pattern, available);
    if (match) add({ model: match.model, thinkingLevel: match.thinkingLevel });
  }
  return scope;
}

/**
 * The model after `current` in `models` (wrapping around), forward or backward. A current model
 * that is not in the list counts as the first. Undefined when there is nothing to step to.
 */
export function nextInCycle<M extends ScopeCandidate>(models: readonly M[], current: ScopeCandidate | undefined, direction: "forward" | "backward"): M | undefined {
  if (models.length <= 1) return undefined;
  const at = Math.max(0, current ? models.findIndex((m) => same(m, current)) : 0);
  const next = direction === "forward" ? (at + 1) % models.length : (at - 1 + models.length) % models.length;
  return models[next];
}

/** The thinking level after `current` among the model's levels (wrapping), or undefined when it takes only one. */
export function nextThinkingLevel(levels: readonly ThinkingLevel[], current: ThinkingLevel): ThinkingLevel | undefined {
  if (levels.length <= 1) return undefined;
  return levels[(levels.indexOf(current) + 1) % levels.length];
}
