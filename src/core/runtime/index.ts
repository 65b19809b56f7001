/** The agent-session runtime and the session-extension API. */
export * from "./agent-session-runtime";
export * from "./arbor-api";
export * from "./extension-api";
export { SessionBinding, STALE_CONTEXT_MESSAGE, StaleContextError } from "./extension-context";
export { ExtensionHost } from "./extension-host";
export { assertSessionCwdExists, MissingSessionCwdError, RuntimeError, type RuntimeErrorCode } from "./runtime-errors";
