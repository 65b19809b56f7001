import type { SessionReader } from "../../core/session/session-reader";
import { openSessionTitle } from "../../core/session/title";

/** The chat's title for a session: the one title rule of every surface (src/core/session/title.ts). */
export function chatSessionTitle(sm: SessionReader): string {
  return openSessionTitle(sm);
}
