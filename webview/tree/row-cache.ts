import type { RowWindow, TreeRow } from "../../src/protocol/messages";

/** Rows held at most: a few windows. Rows far from the last window are dropped beyond this. */
const MAX_HELD = 6_000;

/**
 * The rows a webview holds: windows the host sent, at one version. A window of a newer version
 * replaces everything (the tree changed); one of the same version adds to what is held (the view
 * scrolled). Memory stays bounded whatever the session's size.
 */
export class RowCache {
  private readonly rows = new Map<number, TreeRow>();
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

  apply(window: RowWindow): void {
    if (window.version !== this.versionValue) {
      this.rows.clear();
      this.versionValue = window.version;
    }
    this.countValue = window.rowCount;
    for (let k = 0; k < window.rows.length; k++) this.rows.set(window.start + k, window.rows[k]);
    if (this.rows.size > MAX_HELD) this.trim(window.start, window.start + window.rows.length);
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
    const keys = [...this.rows.keys()].sort((a, b) => distance(a) - distance(b));
    for (const k of keys.slice(MAX_HELD / 2)) this.rows.delete(k);
  }
}
