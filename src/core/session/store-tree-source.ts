import type { SourceStructure, TreeSource } from "../tree/tree-index";
import type { EntrySummary } from "../tree/types";
import type { EntryStore } from "./entry-store";

/**
 * The tree's view of an open session's store: the skeleton of every entry is read from the
 * store's columns, and a summary (the preview, the tool names, the search text) is made from the
 * entry's body only when a drawn row or a search asks for it. Entries appended after it was made
 * come as summaries (the tree pushes them), so the store can grow under it.
 *
 * A body that can no longer be read (the file changed under the session) gives a summary that
 * says so, instead of failing the whole tree.
 */
export class StoreTreeSource implements TreeSource {
  private readonly base: number;
  private readonly pushed: EntrySummary[] = [];

  constructor(
    private readonly store: EntryStore,
    /** Entries whose write failed: their summaries are marked `unsaved`. */
    private readonly unsaved: ReadonlySet<string> = new Set(),
  ) {
    this.base = store.size;
  }

  get size(): number {
    return this.base + this.pushed.length;
  }
  idAt(i: number): string {
    return i < this.base ? this.store.idAt(i) : this.pushed[i - this.base]!.id;
  }
  parentIdAt(i: number): string | null {
    return i < this.base ? this.store.parentIdAt(i) : this.pushed[i - this.base]!.parentId;
  }
  timestampAt(i: number): string {
    return i < this.base ? this.store.timestampAt(i) : this.pushed[i - this.base]!.timestamp;
  }
  typeAt(i: number): string {
    return i < this.base ? this.store.typeAt(i) : this.pushed[i - this.base]!.type;
  }
  roleAt(i: number): string | undefined {
    return i < this.base ? this.store.roleAt(i) : this.pushed[i - this.base]!.role;
  }
  isTextless(i: number): boolean {
    return i < this.base ? this.store.isTextless(i) : this.pushed[i - this.base]!.textless === true;
  }
  isCheckoutMarker(i: number): boolean {
    return i < this.base ? this.store.isCheckoutMarker(i) : this.pushed[i - this.base]!.checkoutMarker === true;
  }

  summaryAt(i: number): EntrySummary {
    if (i >= this.base) return this.pushed[i - this.base]!;
    try {
      return this.marked(this.store.summaryAt(i));
    } catch (err) {
      return this.unreadable(i, err);
    }
  }

  summariesAt(positions: readonly number[]): EntrySummary[] {
    const stored = positions.filter((i) => i < this.base);
    let made: EntrySummary[] | undefined;
    try {
      made = stored.length > 0 ? this.store.summariesAt(stored) : [];
    } catch {
      made = undefined; // read one by one: each unreadable entry says so on its own
    }
    let k = 0;
    return positions.map((i) => (i >= this.base ? this.pushed[i - this.base]! : made ? this.marked(made[k++]!) : this.summaryAt(i)));
  }

  private marked(summary: EntrySummary): EntrySummary {
    return this.unsaved.has(summary.id) ? { ...summary, unsaved: true } : summary;
  }

  /**
   * The store's own id lookup and parent links, while every id in it names one entry (with a
   * repeated id the tree sorts out which entry wins itself).
   */
  structure(): SourceStructure | undefined {
    const store = this.store;
    const base = this.base;
    if (store.hasDuplicateIds()) return undefined;
    return {
      positionOf: (id) => {
        const p = store.indexOf(id);
        if (p < 0) return undefined;
        if (p < base) return p;
        // The store has since read an entry with this id. Only if ids repeat now can it also name an earlier one.
        if (!store.hasDuplicateIds()) return undefined;
        for (let i = base - 1; i >= 0; i--) if (store.idAt(i) === id) return i;
        return undefined;
      },
      parentPositionAt: (i) => {
        const p = store.parentIndexAt(i);
        return p < base ? p : -1;
      },
    };
  }

  push(entries: readonly EntrySummary[]): void {
    for (const e of entries) this.pushed.push(e);
  }

  private unreadable(i: number, err: unknown): EntrySummary {
    const store = this.store;
    const role = store.roleAt(i);
    return {
      id: store.idAt(i),
      parentId: store.parentIdAt(i),
      type: store.typeAt(i),
      timestamp: store.timestampAt(i),
      line: store.lineAt(i),
      ...(role !== undefined ? { role } : {}),
      ...(store.isTextless(i) ? { textless: true } : {}),
      preview: `(could not read this entry: ${err instanceof Error ? err.message : String(err)})`,
    };
  }
}
