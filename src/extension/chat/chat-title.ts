import type { SessionManager } from "../../core/session/session-manager";
import type { TranscriptItem } from "../../core/transcript/transcript";
import { sessionTitle } from "../sessions-view";

/** The chat's title for a session: the same rule as the Sessions view (name, else first message). */
export function chatSessionTitle(sm: SessionManager, items: readonly TranscriptItem[]): string {
  const first = items.find((i) => i.kind === "user");
  const title = sessionTitle({ name: sm.getSessionName(), firstMessage: first?.kind === "user" ? first.text : "" });
  return title === "(empty session)" ? "New session" : title;
}
