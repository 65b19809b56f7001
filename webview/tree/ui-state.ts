import { isFilterMode, type FilterMode } from "../../src/core/tree/filters";

/**
 * What survives the webview being hidden and shown (the page is destroyed without
 * `retainContextWhenHidden`): saved with `setState`, read back on load.
 */
export interface UiState {
  version: 1;
  /** The session the folds, selection and scroll position belong to. */
  sessionId: string | null;
  filter: FilterMode;
  query: string;
  folded: string[];
  selectedId: string | null;
  scrollTop: number;
}

const MAX_FOLDS = 10_000;

export function defaultUiState(): UiState {
  return { version: 1, sessionId: null, filter: "default", query: "", folded: [], selectedId: null, scrollTop: 0 };
}

/** Reads saved state defensively: it may come from an older version of the webview. */
export function parseUiState(saved: unknown): UiState | undefined {
  if (typeof saved !== "object" || saved === null) return undefined;
  const s = saved as { [key: string]: unknown };
  if (s.version !== 1) return undefined;
  const state = defaultUiState();
  if (typeof s.sessionId === "string") state.sessionId = s.sessionId;
  if (isFilterMode(s.filter)) state.filter = s.filter;
  if (typeof s.query === "string") state.query = s.query.slice(0, 200);
  if (Array.isArray(s.folded)) state.folded = s.folded.filter((x): x is string => typeof x === "string").slice(0, MAX_FOLDS);
  if (typeof s.selectedId === "string") state.selectedId = s.selectedId;
  if (typeof s.scrollTop === "number" && Number.isFinite(s.scrollTop) && s.scrollTop >= 0) state.scrollTop = s.scrollTop;
  return state;
}
