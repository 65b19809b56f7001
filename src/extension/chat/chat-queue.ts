import * as vscode from "vscode";
import type { AgentSession } from "../../core/agent/agent-session";
import type { ImageContent } from "../../core/session/types";
import type { QueueMessage } from "../../protocol/chat-messages";

/**
 * The chat's side of Pi's message queue: a prompt typed while the agent works is queued into the
 * running reply (Enter steers it, Alt+Enter waits as a follow-up), the queue is shown above the
 * input, and queued prompts can be taken back into the input (one, or all: Alt+Up, Stop, Escape).
 */

/** Whether a prompt typed now is queued into what runs (a reply, or a compaction or summary it waits for). */
export function queuesNow(session: AgentSession | undefined, text: string): session is AgentSession {
  const start = text.trimStart();
  return !!session && session.isBusy() && !start.startsWith("/") && !start.startsWith("!");
}

/** Queues a prompt; the session delivers it (or it is taken back). A failure to record it is reported. */
export function queuePrompt(session: AgentSession, text: string, images: ImageContent[] | undefined, kind: "steer" | "followUp", fail: (message: string) => void): void {
  session.prompt(text, { streamingBehavior: kind, ...(images ? { images } : {}) }).catch((error: unknown) => {
    fail(vscode.l10n.t("The queued message was not sent: {0}", error instanceof Error ? error.message : String(error)));
  });
}

/** The queue as the chat shows it. */
export function queueMessage(session: AgentSession | undefined): QueueMessage {
  return { type: "queue", queued: session?.getQueuedMessages() ?? [] };
}

/**
 * Takes one queued prompt (by id), or all of them, out of the queue; returns the input's new text
 * (as Pi restores them: the queued texts, then what was in the input, a blank line between), or
 * undefined when nothing was queued.
 */
export function takeBack(session: AgentSession | undefined, id: string | undefined, input: string): string | undefined {
  const withdrawn = session?.withdrawQueued(id) ?? [];
  if (withdrawn.length === 0) return undefined;
  return [...withdrawn.map((m) => m.text), input].filter((text) => text.trim() !== "").join("\n\n");
}
