/** The part of VS Code's webview API a webview uses, typed by the messages it may post. */
export interface VsCodeApi<Out> {
  postMessage(message: Out): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface RawVsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): RawVsCodeApi;

/**
 * Acquires the API (allowed once per page). Outside VS Code (a plain browser) falls back to an
 * in-memory stand-in so the page still renders for debugging.
 */
export function getVsCodeApi<Out>(): VsCodeApi<Out> {
  if (typeof acquireVsCodeApi === "function") {
    const api = acquireVsCodeApi();
    return { postMessage: (m) => api.postMessage(m), getState: () => api.getState(), setState: (s) => api.setState(s) };
  }
  let state: unknown;
  return {
    postMessage: () => undefined,
    getState: () => state,
    setState: (s) => {
      state = s;
    },
  };
}
