/**
 * Knowing whether code runs inside an extension handler that Arbor is still waiting for. A handler
 * that starts a session replacement and awaits it would wait for the replacement, while the
 * replacement (or the prompt the handler is part of) waits for the handler: a deadlock. Such calls
 * are refused with {@link NESTED_REPLACEMENT_MESSAGE}. Work the handler left running after it
 * returned (a timer, an un-awaited promise) is no longer "inside": its scope is closed by then.
 */
import { AsyncLocalStorage } from "node:async_hooks";

interface HandlerScope {
  readonly extension: string;
  readonly event: string;
  open: boolean;
}

const scopes = new AsyncLocalStorage<HandlerScope>();

/** Runs a handler inside its scope; the scope closes when the returned promise settles. */
export async function runInHandlerScope<T>(extension: string, event: string, handler: () => T | Promise<T>): Promise<T> {
  const scope: HandlerScope = { extension, event, open: true };
  try {
    return await scopes.run(scope, handler);
  } finally {
    scope.open = false;
  }
}

/** The handler Arbor is waiting for that this code runs in, if any. */
export function awaitedHandler(): { extension: string; event: string } | undefined {
  const scope = scopes.getStore();
  return scope?.open ? { extension: scope.extension, event: scope.event } : undefined;
}

/**
 * Runs `work` outside any handler scope: for what a handler asks for without waiting on it (Pi's
 * `ctx.shutdown()`), which then takes its turn after the replacement or prompt under way.
 */
export function outsideHandlerScope<T>(work: () => T): T {
  return scopes.exit(work);
}

export const NESTED_REPLACEMENT_MESSAGE =
  "A session replacement (new session, switch, fork, clone, reload) cannot be started from an extension handler that Arbor is waiting for: " +
  "the replacement would wait for the handler and the handler for the replacement. Start it from a command, or after the handler has returned.";
