/**
 * The transcript the chat shows: the items of the current leaf's path, kept in step with the session
 * by appending what is appended at the leaf, and rebuilt (a new generation) when the leaf moves
 * elsewhere. Host side, no `vscode`: the controller turns what it returns into messages.
 */
import type { SessionManager } from "../../core/session/session-manager";
import type { EntrySummary } from "../../core/tree/types";
import { TranscriptBuilder, type TranscriptItem } from "../../core/transcript/transcript";
import type { TranscriptWindow } from "../../protocol/chat-messages";

/** How many items of a new transcript travel with it; the webview asks for earlier ones as it scrolls. */
export const TAIL_ITEMS = 60;

export type TranscriptUpdate =
  | { kind: "reset"; window: TranscriptWindow }
  | { kind: "append"; start: number; items: TranscriptItem[]; updated: number[] }
  | { kind: "none" };

export class ChatTranscript {
  private builder = new TranscriptBuilder();
  private generation = 0;
  /** The entry the transcript was built up to (the leaf it shows). */
  private builtLeaf: string | null = null;
  private sm: SessionManager | undefined;

  get items(): readonly TranscriptItem[] {
    return this.builder.items;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  /** Rebuilds from the session's current path (a new generation). */
  reset(sm: SessionManager | undefined): TranscriptWindow {
    this.sm = sm;
    this.generation++;
    this.builder = new TranscriptBuilder();
    this.builtLeaf = sm?.getLeafId() ?? null;
    if (sm) for (const entry of sm.getBranch()) this.builder.append(entry);
    return this.window();
  }

  /** The tail of the current generation. */
  window(): TranscriptWindow {
    const items = this.builder.items;
    const start = Math.max(0, items.length - TAIL_ITEMS);
    return { generation: this.generation, total: items.length, start, items: items.slice(start) };
  }

  /** Items `[start, end)` of a generation, or undefined when that generation is gone. */
  slice(generation: number, start: number, end: number): TranscriptItem[] | undefined {
    if (generation !== this.generation) return undefined;
    return this.builder.items.slice(start, end);
  }

  /**
   * Entries were appended to the session. Those that continue the shown path are added; anything
   * else (a branch elsewhere, a leaf that moved) rebuilds the transcript.
   */
  onEntriesAppended(entries: readonly EntrySummary[]): TranscriptUpdate {
    const sm = this.sm;
    if (!sm) return { kind: "none" };
    const start = this.builder.items.length;
    const added: TranscriptItem[] = [];
    const updated = new Set<number>();
    for (const summary of entries) {
      if (summary.parentId !== this.builtLeaf) continue;
      const entry = sm.getEntry(summary.id);
      if (!entry) continue;
      const change = this.builder.append(entry);
      this.builtLeaf = entry.id;
      added.push(...change.added);
      for (const i of change.updated) if (i < start) updated.add(i);
    }
    if (sm.getLeafId() !== this.builtLeaf) return { kind: "reset", window: this.reset(sm) };
    if (added.length === 0 && updated.size === 0) return { kind: "none" };
    return { kind: "append", start, items: added, updated: [...updated] };
  }

  /** The leaf moved without new entries (a checkout): rebuild unless it is where we are. */
  onLeafMoved(): TranscriptUpdate {
    const sm = this.sm;
    if (!sm || sm.getLeafId() === this.builtLeaf) return { kind: "none" };
    return { kind: "reset", window: this.reset(sm) };
  }
}
