/**
 * Messages sent to a session while a reply runs (Pi's steering and follow-up queues, and messages
 * held for the next prompt). The agent loop takes them at the points Pi does: steering after a
 * turn's tool calls (and when the model would stop), follow-ups once the model would stop. Whatever
 * a run leaves in the queues when it ends (stopped, failed) is recorded then, so nothing sent is lost.
 */
import type { CustomMessage, UserMessage } from "../session/types";

/** A user prompt or an extension's custom message waiting to be recorded. */
export type QueuedContent = UserMessage | CustomMessage;

export type QueueKind = "steer" | "followUp" | "nextTurn";

/** One waiting message; `settle` tells its sender where it went. */
export interface QueuedMessage {
  message: QueuedContent;
  settle(entryId: string | undefined, error?: Error): void;
}

export class MessageQueue {
  private readonly queues: Record<QueueKind, QueuedMessage[]> = { steer: [], followUp: [], nextTurn: [] };

  /** Queues a message; resolves with its entry id once it is recorded. */
  enqueue(kind: QueueKind, message: QueuedContent): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queues[kind].push({
        message,
        settle: (entryId, error) => (error || entryId === undefined ? reject(error ?? new Error("The message was not recorded.")) : resolve(entryId)),
      });
    });
  }

  /** Takes (and removes) every message of one queue, oldest first. */
  take(kind: QueueKind): QueuedMessage[] {
    return this.queues[kind].splice(0);
  }

  has(kind: QueueKind): boolean {
    return this.queues[kind].length > 0;
  }
}
