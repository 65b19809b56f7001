/**
 * The transcript the chat shows: the current leaf's path, addressed by entry position. A new path
 * costs its ids and the items of its tail; earlier items are computed when the webview asks for
 * them. Appends at the leaf extend the path; a leaf that moves elsewhere starts a new generation.
 * Host side, no `vscode`: the controller turns what it returns into messages.
 */
import { clampTranscriptItem } from "../../protocol/chat-clamp";
import type { SessionManager } from "../../core/session/session-manager";
import type { SessionEntry } from "../../core/session/types";
import type { EntrySummary } from "../../core/tree/types";
import { PathTranscript, type TranscriptItem } from "../../core/transcript/transcript";
import { pricesNow } from "../../core/models/model-prices";
import { pricedReply } from "../../core/session/usage-totals";
import type { TranscriptSlot, TranscriptWindow } from "../../protocol/chat-messages";

/** How many path positions of a new transcript travel with it; the webview asks for earlier ones as it scrolls. */
export const TAIL_ENTRIES = 80;

export type TranscriptUpdate =
  | { kind: "reset"; window: TranscriptWindow }
  | { kind: "append"; start: number; items: TranscriptSlot[]; updated: number[] }
  | { kind: "none" };

export class ChatTranscript {
  private generation = 0;
  private pathIds: string[] = [];
  private sm: SessionManager | undefined;
  /** Items computed so far, by path position (null: the entry shows nothing). */
  private readonly cache = new Map<number, TranscriptSlot>();
  private readonly transcript: PathTranscript;

  constructor() {
    const ids = (): string[] => this.pathIds;
    this.transcript = new PathTranscript({
      get length() {
        return ids().length;
      },
      entryAt: (index: number): SessionEntry | undefined => {
        const id = this.pathIds[index];
        return id === undefined ? undefined : this.sm?.getEntry(id);
      },
    });
  }

  get currentGeneration(): number {
    return this.generation;
  }

  /** Path positions in all. */
  get length(): number {
    return this.pathIds.length;
  }

  /** The item at a path position (computed once, then kept). */
  itemAt(index: number): TranscriptSlot {
    let slot = this.cache.get(index);
    if (slot === undefined) {
      // One odd entry is clamped (or replaced by a note) here: the chat's guards would refuse the
      // whole message that carried it.
      const item = this.transcript.itemAt(index);
      slot = item && clampTranscriptItem(item.kind === "assistant" ? pricedReply(item, pricesNow()) : item);
      this.cache.set(index, slot);
    }
    return slot;
  }

  /** The first user message of the path (for the title), reading only as far as it. */
  firstUserText(): string | undefined {
    for (let i = 0; i < this.pathIds.length; i++) {
      const summary = this.sm?.getSummary(this.pathIds[i]!);
      if (summary?.role !== "user") continue;
      const item = this.itemAt(i);
      return item?.kind === "user" ? item.text : undefined;
    }
    return undefined;
  }

  /** Rebuilds from the session's current path (a new generation). */
  reset(sm: SessionManager | undefined): TranscriptWindow {
    this.sm = sm;
    this.generation++;
    this.cache.clear();
    this.pathIds = sm ? sm.getPathIds() : [];
    return this.window();
  }

  /** The tail of the current generation. */
  window(): TranscriptWindow {
    const total = this.pathIds.length;
    const start = Math.max(0, total - TAIL_ENTRIES);
    return { generation: this.generation, total, start, items: this.slice(this.generation, start, total) ?? [] };
  }

  /** Items `[start, end)` of a generation, or undefined when that generation is gone. */
  slice(generation: number, start: number, end: number): TranscriptSlot[] | undefined {
    if (generation !== this.generation) return undefined;
    const items: TranscriptSlot[] = [];
    for (let i = start; i < Math.min(end, this.pathIds.length); i++) items.push(this.itemAt(i));
    return items;
  }

  /**
   * Entries were appended to the session. Those that continue the shown path are added; anything
   * else (a branch elsewhere, a leaf that moved) rebuilds the transcript.
   */
  onEntriesAppended(entries: readonly EntrySummary[]): TranscriptUpdate {
    const sm = this.sm;
    if (!sm) return { kind: "none" };
    // The leaf is still where the path ends (a checkout marker under it, a label, a branch written
    // elsewhere): the path is unchanged. Without this, a checkout's marker rebuilt it a second time.
    if (sm.getLeafId() === (this.pathIds[this.pathIds.length - 1] ?? null)) return { kind: "none" };
    const start = this.pathIds.length;
    const updated = new Set<number>();
    for (const summary of entries) {
      if (summary.parentId !== (this.pathIds[this.pathIds.length - 1] ?? null)) continue;
      this.pathIds.push(summary.id);
      if (summary.role !== "toolResult") continue;
      // A result shows inside the reply that called it: that reply's item changes.
      const owner = this.transcript.ownerOfResult(this.pathIds.length - 1);
      if (owner !== undefined && owner < start) {
        this.cache.delete(owner);
        updated.add(owner);
      }
    }
    if (sm.getLeafId() !== (this.pathIds[this.pathIds.length - 1] ?? null)) return { kind: "reset", window: this.reset(sm) };
    const items = this.slice(this.generation, start, this.pathIds.length) ?? [];
    if (items.length === 0 && updated.size === 0) return { kind: "none" };
    return { kind: "append", start, items, updated: [...updated] };
  }

  /** The leaf moved without new entries (a checkout): rebuild unless it is where we are. */
  onLeafMoved(): TranscriptUpdate {
    const sm = this.sm;
    if (!sm || sm.getLeafId() === (this.pathIds[this.pathIds.length - 1] ?? null)) return { kind: "none" };
    return { kind: "reset", window: this.reset(sm) };
  }
}

export type { TranscriptItem };
