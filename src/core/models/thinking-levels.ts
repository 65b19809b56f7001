/**
 * Which thinking levels a model takes, and the nearest one it takes when asked for another: the rules
 * pi-ai applies (tested against pi-ai's own functions on every built-in model), as pure functions.
 *
 * - A model without reasoning takes only `off`.
 * - A reasoning model takes every level from `off` to `high`, except those its `thinkingLevelMap` maps
 *   to `null`; `xhigh` only when the map names a value for it.
 * - Asked for a level it does not take, a model gets the nearest stronger level it takes, else the
 *   nearest weaker one.
 */

import { THINKING_LEVELS, type ThinkingLevel } from "../session/types";

/** What the rules look at: pi-ai's `reasoning` flag and `thinkingLevelMap` (a `null` value marks a level as not taken). */
export interface ThinkingCapabilities {
  reasoning?: boolean;
  thinkingLevelMap?: Partial<Record<ThinkingLevel, string | null>>;
}

/** The levels a model takes, weakest first. */
export function supportedThinkingLevels(model: ThinkingCapabilities): ThinkingLevel[] {
  if (!model.reasoning) return ["off"];
  const map = model.thinkingLevelMap ?? {};
  return THINKING_LEVELS.filter((level) => {
    const value = map[level];
    if (value === null) return false;
    return level === "xhigh" ? value !== undefined : true;
  });
}

/** The level a model with these capabilities uses when asked for `level`. */
export function clampThinkingLevel(model: ThinkingCapabilities, level: ThinkingLevel): ThinkingLevel {
  return clampToLevels(supportedThinkingLevels(model), level);
}

/**
 * The level out of `levels` used for `level`: itself when listed, else the nearest stronger one, else
 * the nearest weaker one. With no list every level is allowed; an empty list means `off`.
 */
export function clampToLevels(levels: readonly ThinkingLevel[] | undefined, level: ThinkingLevel): ThinkingLevel {
  if (!levels || levels.includes(level)) return level;
  const index = THINKING_LEVELS.indexOf(level);
  if (index < 0) return levels[0] ?? "off";
  for (let i = index + 1; i < THINKING_LEVELS.length; i++) if (levels.includes(THINKING_LEVELS[i])) return THINKING_LEVELS[i];
  for (let i = index - 1; i >= 0; i--) if (levels.includes(THINKING_LEVELS[i])) return THINKING_LEVELS[i];
  return levels[0] ?? "off";
}
