import type { ArborApi } from "./extension-api";
import type { ExtensionHost } from "./extension-host";
import type { AgentSessionRuntime } from "./agent-session-runtime";

/**
 * The value Arbor's VS Code extension returns from `activate`. `currentRuntime` is read on every
 * call, so the API keeps working when the host replaces its runtime; extensions registered here
 * stay registered across session replacements.
 */
export function createArborApi(extensions: ExtensionHost, currentRuntime: () => AgentSessionRuntime | undefined): ArborApi {
  const api: ArborApi = {
    apiVersion: 1,
    registerSessionExtension: (extension) => extensions.register(extension),
    getSessionContext: () => currentRuntime()?.createContext(),
    onDidReportError: (listener) => extensions.onDidReportError(listener),
  };
  return Object.freeze(api);
}
