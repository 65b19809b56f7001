import type { SessionManager } from "../../core/session/session-manager";
import { sessionTitle } from "../sessions-view";

/** The chat's title for a session: the same rule as the Sessions view (name, else first message). */
export function chatSessionTitle(sm: SessionManager, firstUserText: string | undefined): string {
  const title = sessionTitle({ name: sm.getSessionName(), firstMessage: firstUserText ?? "" });
  return title === "(empty session)" ? "New session" : title;
}
