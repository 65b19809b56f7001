import { isFilterMode } from "../../src/core/tree/filters";
import type { SavedTreeState } from "../../src/protocol/messages";
import type { DetailsPrefs } from "./details-layout";

/**
 * What survives the webview being hidden and shown (the page is destroyed without
 * `retainContextWhenHidden`): saved with `setState`, offered to the host in `ready`. The host
 * keeps the tree's state itself; this restores the scroll position, and the rest after a reload.
 */
export interface UiState extends SavedTreeState, DetailsPrefs {
  version: 2;
}

const MAX_IDS = 10_000;

export function defaultUiState(): UiState {
  return { version: 2, sessionId: null, topRow: 0, filter: "default", query: "", folded: [], selection: [] };
}

const isId = (x: unknown): x is string => typeof x === "string" && x.length > 0 && x.length <= 256;

/** Reads saved state defensively: it may come from an older version of the webview. */
export function parseUiState(saved: unknown): UiState | undefined {
  if (typeof saved !== "object" || saved === null) return undefined;
  const s = saved as { [key: string]: unknown };
  if (s.version !== 2) return undefined;
  const state = defaultUiState();
  if (isId(s.sessionId)) state.sessionId = s.sessionId;
  if (typeof s.topRow === "number" && Number.isInteger(s.topRow) && s.topRow >= 0) state.topRow = s.topRow;
  if (isFilterMode(s.filter)) state.filter = s.filter;
  if (typeof s.query === "string") state.query = s.query.slice(0, 200);
  if (Array.isArray(s.folded)) state.folded = s.folded.filter(isId).slice(0, MAX_IDS);
  if (Array.isArray(s.selection)) state.selection = s.selection.filter(isId).slice(-2);
  if (typeof s.details === "boolean") state.details = s.details;
  if (typeof s.detailsHeight === "number" && Number.isFinite(s.detailsHeight) && s.detailsHeight > 0) state.detailsHeight = Math.min(10_000, Math.round(s.detailsHeight));
  return state;
}

/** The part of the state the host takes back. */
export function savedForHost(state: UiState): SavedTreeState {
  return { sessionId: state.sessionId, topRow: state.topRow, filter: state.filter, query: state.query, folded: state.folded, selection: state.selection };
}
