import type { RowWindow, TreeRow } from "../../src/protocol/messages";

/** Rows held at most: a few windows. Rows far from the last window are dropped beyond this. */
const MAX_HELD = 6_000;

/**
 * The rows a webview holds: windows the host sent, at one version. A window of a newer version
 * replaces everything (the tree changed); one of the same version adds to what is held (the view
 * scrolled). Memory stays bounded whatever the session's size.
 */
export class RowCache {
  private rows = new Map<number, TreeRow>();
  private versionValue = -1;
  private countValue = 0;

  get version(): number {
    return this.versionValue;
  }
  /** Rows in the whole tree (the scroll extent). */
  get rowCount(): number {
    return this.countValue;
  }
  /** Rows held now. */
  get size(): number {
    return this.rows.size;
  }

  get(index: number): TreeRow | undefined {
    return this.rows.get(index);
  }

  clear(): void {
    this.rows.clear();
    this.versionValue = -1;
    this.countValue = 0;
  }

  /**
   * Takes a window in. Rows already held keep their objects when the new ones are the same (the
   * list repaints a row only when its object changes): a window of the same version adds only
   * what is new, and after a change (a checkout, an append) only the rows that differ repaint.
   */
  apply(window: RowWindow): void {
    const old = this.rows;
    if (window.version !== this.versionValue) {
      // A newer tree: what is held is stale, but rows that did not change are reused as they are.
      this.rows = new Map();
      this.versionValue = window.version;
      this.countValue = window.rowCount;
      for (let k = 0; k < window.rows.length; k++) {
        const index = window.start + k;
        const before = old.get(index);
        const row = window.rows[k];
        this.rows.set(index, before !== undefined && sameRow(before, row) ? before : row);
      }
      return;
    }
    this.countValue = window.rowCount;
    // The same version: the rows are the same as those held, which keep their objects.
    for (let k = 0; k < window.rows.length; k++) if (!old.has(window.start + k)) old.set(window.start + k, window.rows[k]);
    if (old.size > MAX_HELD) this.trim(window.start, window.start + window.rows.length);
  }

  /** Whether every row in [from, to) (clamped to the tree) is held. */
  covers(from: number, to: number): boolean {
    const end = Math.min(to, this.countValue);
    for (let i = Math.max(0, from); i < end; i++) if (!this.rows.has(i)) return false;
    return true;
  }

  /** Drops the rows farthest from [from, to) until a bounded number is left. */
  private trim(from: number, to: number): void {
    const distance = (i: number) => (i < from ? from - i : i >= to ? i - to + 1 : 0);
    // The distance half the rows lie within (a numeric sort: this runs while the user scrolls).
    const distances = new Float64Array(this.rows.size);
    let n = 0;
    for (const k of this.rows.keys()) distances[n++] = distance(k);
    distances.sort();
    const limit = distances[MAX_HELD / 2 - 1];
    for (const k of [...this.rows.keys()]) if (distance(k) > limit) this.rows.delete(k);
  }
}

/** Whether two plain values of the protocol (rows and their fields) are equal, field by field. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Whether a row of a newer window draws the same as one held (the same fields, its entry's too). */
export function sameRow(a: TreeRow, b: TreeRow): boolean {
  return sameValue(a, b);
}
