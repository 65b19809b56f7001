/**
 * Entry id -> position, for a million entries without a million map entries. Pi's ids are 8
 * lowercase hex characters: those are keyed by their 32-bit value in an open-addressing table of
 * typed arrays (no string hashing, no per-entry objects); any other id (a UUID after collisions,
 * ids from other writers) goes to an ordinary Map. Setting an id again points it at the new
 * position (the last entry with an id wins, as in Pi).
 */
const EMPTY = -1;

/** The 32-bit value of an id of exactly 8 lowercase hex characters, or -1. */
export function hexIdValue(id: string): number {
  if (id.length !== 8) return -1;
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = id.charCodeAt(i);
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

export class IdIndex {
  private keys = new Uint32Array(1024);
  private values = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  private hexCount = 0;
  private readonly other = new Map<string, number>();

  get size(): number {
    return this.hexCount + this.other.size;
  }

  private slotOf(key: number): number {
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & this.mask;
    for (;;) {
      const v = this.values[slot]!;
      if (v === EMPTY || this.keys[slot] === key) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  get(id: string): number | undefined {
    const key = hexIdValue(id);
    if (key < 0) return this.other.get(id);
    const v = this.values[this.slotOf(key)]!;
    return v === EMPTY ? undefined : v;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Points `id` at `position`; returns whether the id was new. */
  set(id: string, position: number): boolean {
    const key = hexIdValue(id);
    if (key < 0) {
      const before = this.other.size;
      this.other.set(id, position);
      return this.other.size !== before;
    }
    const slot = this.slotOf(key);
    const fresh = this.values[slot] === EMPTY;
    this.keys[slot] = key;
    this.values[slot] = position;
    if (fresh && ++this.hexCount * 2 > this.mask) this.grow();
    return fresh;
  }

  /** Makes room for `count` ids at once (a table that grows while a million are added rehashes twenty times). */
  reserve(count: number): void {
    let size = this.keys.length;
    while (count * 2 > size - 1) size *= 2;
    if (size > this.keys.length) this.grow(size);
  }

  private grow(size = this.keys.length * 2): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Uint32Array(size);
    this.values = new Int32Array(size).fill(EMPTY);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      if (values[i] !== EMPTY) {
        const slot = this.slotOf(keys[i]!);
        this.keys[slot] = keys[i]!;
        this.values[slot] = values[i]!;
      }
    }
  }
}
