/**
 * One rule for a session's title, used by every surface (Sessions view, quick picks, the tree's
 * header, the status bar, the chat): its name, else its first user message in file order (what
 * the session listing reads), on one line and at most TITLE_LIMIT characters; a session with
 * neither is a "New session".
 */
import { NO_MESSAGES, userMessageText } from "./session-list";
import type { SessionReader } from "./session-reader";

export const UNTITLED_SESSION = "New session";
export const TITLE_LIMIT = 80;

/** The title from a session's name and first user message (the listing's `firstMessage`). */
export function sessionTitle(info: { readonly name?: string | undefined; readonly firstMessage?: string | undefined }): string {
  const first = info.firstMessage === NO_MESSAGES ? "" : (info.firstMessage ?? "");
  const text = (info.name?.trim() || first).replace(/\s+/g, " ").trim();
  if (!text) return UNTITLED_SESSION;
  return text.length > TITLE_LIMIT ? `${text.slice(0, TITLE_LIMIT - 1)}…` : text;
}

/** Where the first user message was found, per open session (it never changes once written). */
const firstUserIds = new WeakMap<SessionReader, string>();

/**
 * The text of an open session's first user message in file order, read as the listing reads it;
 * undefined while it has none.
 */
export function firstUserMessage(sm: SessionReader): string | undefined {
  const known = firstUserIds.get(sm);
  if (known !== undefined && sm.hasEntry(known)) return textOfEntry(sm, known);
  // Like the listing, a user message without text (an image only) does not count.
  for (const id of sm.idsOfKind("message", "user")) {
    const text = textOfEntry(sm, id);
    if (text) {
      firstUserIds.set(sm, id);
      return text;
    }
  }
  return undefined;
}

function textOfEntry(sm: SessionReader, id: string): string | undefined {
  const entry = sm.getEntry(id);
  return entry?.type === "message" ? userMessageText(entry.message) : undefined;
}

/** The title of an open session, by the same rule as a listed one. */
export function openSessionTitle(sm: SessionReader): string {
  return sessionTitle({ name: sm.getSessionName(), firstMessage: firstUserMessage(sm) });
}

/** What a fork says once done: the new session by its title (its file name means nothing to a reader). */
export function forkNotice(newTitle: string): string {
  return newTitle === UNTITLED_SESSION
    ? "Forked into a new session, open now (it ends before the first message); the original is unchanged."
    : `Forked into a new session, \u201c${newTitle}\u201d, open now; the original is unchanged.`;
}
