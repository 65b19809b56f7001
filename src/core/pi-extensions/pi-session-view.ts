/**
 * `ctx.sessionManager` for Pi extensions: the read-only part of the session manager under Pi's
 * method names. Every call checks that the session is still current, so a view an extension kept
 * goes stale with its context (Pi hands out the live manager; Arbor's stays safe after a switch).
 */
import type { SessionManager } from "../session/session-manager";

const READ_METHODS = [
  "getCwd",
  "getSessionDir",
  "getSessionId",
  "getSessionFile",
  "getLeafId",
  "getLeafEntry",
  "getEntry",
  "getLabel",
  "getBranch",
  "getHeader",
  "getEntries",
  "getTree",
  "getSessionName",
  "getChildren",
  "buildSessionContext",
  "isPersisted",
] as const;

export function readonlySessionView(session: () => SessionManager): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const method of READ_METHODS) {
    view[method] = (...args: unknown[]) => {
      const sm = session() as unknown as Record<string, (...a: unknown[]) => unknown>;
      return sm[method]!(...args);
    };
  }
  return Object.freeze(view);
}
