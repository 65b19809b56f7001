/**
 * Messages sent to a session while a reply runs (Pi's steering and follow-up queues, and messages
 * held for the next prompt). The agent loop takes them at the points Pi does: steering after a
 * turn's tool calls (and when the model would stop), follow-ups once the model would stop; how many
 * at a time is the queue mode (Pi's `steeringMode` / `followUpMode`). A user's queued prompt can be
 * taken back before it is delivered; whatever a run leaves in the queues when it ends (stopped,
 * failed) is recorded then, so nothing sent is lost.
 */
import type { CustomMessage, ImageContent, UserMessage } from "../session/types";

/** A user prompt or an extension's custom message waiting to be recorded. */
export type QueuedContent = UserMessage | CustomMessage;

export type QueueKind = "steer" | "followUp" | "nextTurn";

/** How many queued messages one delivery takes: the oldest only (Pi's default), or all of them. */
export type QueueMode = "one-at-a-time" | "all";

export interface QueueModes {
  steeringMode: QueueMode;
  followUpMode: QueueMode;
}

export const DEFAULT_QUEUE_MODES: QueueModes = { steeringMode: "one-at-a-time", followUpMode: "one-at-a-time" };

/** A setting's value as a queue mode (undefined when it is not one of the two). */
export function queueModeFrom(value: unknown): QueueMode | undefined {
  return value === "all" || value === "one-at-a-time" ? value : undefined;
}

/**
 * The modes in force: Arbor's settings where the user set them, else Pi's settings.json (the user's
 * merged with the project's), else Pi's default. As in Pi, a value other than "all" in Pi's file
 * delivers one at a time.
 */
export function resolveQueueModes(arbor: Partial<Record<keyof QueueModes, unknown>> | undefined, pi: Partial<Record<keyof QueueModes, unknown>> | undefined): QueueModes {
  const one = (key: keyof QueueModes): QueueMode => {
    const own = queueModeFrom(arbor?.[key]);
    if (own) return own;
    const theirs = pi?.[key];
    if (typeof theirs === "string" && theirs !== "") return theirs === "all" ? "all" : "one-at-a-time";
    return DEFAULT_QUEUE_MODES[key];
  };
  return { steeringMode: one("steeringMode"), followUpMode: one("followUpMode") };
}

/** Where a queued message went. */
export type QueueOutcome = { kind: "recorded"; entryId: string } | { kind: "withdrawn" } | { kind: "failed"; error: Error };

/** One waiting message; `settle` tells its sender where it went. */
export interface QueuedMessage {
  id: string;
  kind: QueueKind;
  message: QueuedContent;
  settle(outcome: QueueOutcome): void;
}

/** What front ends see of a user's queued prompt (an extension's custom message is not listed). */
export interface QueuedMessageInfo {
  id: string;
  kind: "steer" | "followUp";
  text: string;
  /** Images sent with it. */
  imageCount: number;
}

/** A prompt taken back out of the queue, to put into the input again. */
export interface WithdrawnMessage extends QueuedMessageInfo {
  images: ImageContent[];
}

export class MessageQueue {
  private readonly queues: Record<QueueKind, QueuedMessage[]> = { steer: [], followUp: [], nextTurn: [] };
  private nextId = 1;

  /** `modes` is read at each delivery (a changed setting applies to the next one); `onChange` hears of every change to the listed messages. */
  constructor(
    private readonly modes: () => QueueModes = () => DEFAULT_QUEUE_MODES,
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** Queues a message; resolves once it is recorded (its entry id), taken back, or failed to record (rejects). */
  enqueue(kind: QueueKind, message: QueuedContent): Promise<{ entryId: string } | { withdrawn: true }> {
    return new Promise((resolve, reject) => {
      this.queues[kind].push({
        id: `q${this.nextId++}`,
        kind,
        message,
        settle: (outcome) => {
          if (outcome.kind === "recorded") resolve({ entryId: outcome.entryId });
          else if (outcome.kind === "withdrawn") resolve({ withdrawn: true });
          else reject(outcome.error);
        },
      });
      if (message.role === "user") this.onChange();
    });
  }

  /** Takes the messages one delivery of this queue gets: the oldest, or all (the queue mode); nextTurn: all. */
  take(kind: QueueKind): QueuedMessage[] {
    const mode = kind === "steer" ? this.modes().steeringMode : kind === "followUp" ? this.modes().followUpMode : "all";
    return this.remove(this.queues[kind].splice(0, mode === "all" ? this.queues[kind].length : 1));
  }

  /** Takes (and removes) every message of one queue, oldest first, whatever the mode. */
  takeAll(kind: QueueKind): QueuedMessage[] {
    return this.remove(this.queues[kind].splice(0));
  }

  has(kind: QueueKind): boolean {
    return this.queues[kind].length > 0;
  }

  /** The user's prompts waiting for the running reply: steering first, then follow-ups, each oldest first (as Pi lists them). */
  list(): QueuedMessageInfo[] {
    return this.listed().map(info);
  }

  /**
   * Takes back one queued prompt (by id), or all of them (no id), before they are delivered; their
   * senders hear "withdrawn". Custom messages of extensions stay queued.
   */
  withdraw(id?: string): WithdrawnMessage[] {
    const chosen = this.listed().filter((item) => id === undefined || item.id === id);
    if (chosen.length === 0) return [];
    for (const kind of ["steer", "followUp"] as const) {
      const kept = this.queues[kind].filter((item) => !chosen.includes(item));
      this.queues[kind].splice(0, this.queues[kind].length, ...kept);
    }
    this.onChange();
    return chosen.map((item) => {
      item.settle({ kind: "withdrawn" });
      const images = (item.message as UserMessage).content;
      return { ...info(item), images: typeof images === "string" ? [] : images.filter((b): b is ImageContent => b.type === "image") };
    });
  }

  private listed(): QueuedMessage[] {
    return [...this.queues.steer, ...this.queues.followUp].filter((item) => item.message.role === "user");
  }

  private remove(taken: QueuedMessage[]): QueuedMessage[] {
    if (taken.some((item) => item.message.role === "user")) this.onChange();
    return taken;
  }
}

function info(item: QueuedMessage): QueuedMessageInfo {
  const content = (item.message as UserMessage).content;
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  return {
    id: item.id,
    kind: item.kind === "followUp" ? "followUp" : "steer",
    text: blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n"),
    imageCount: blocks.filter((b) => b.type === "image").length,
  };
}
