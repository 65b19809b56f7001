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

/** Tables the hex ids are spread over (by the top bits of their hash): each grows on its own. */
const PART_BITS = 6;
const PARTS = 1 << PART_BITS;
const FIRST_SIZE = 16;

/** Where the hash of a key puts it: its table (top bits) and the slot it starts probing at (low bits). */
function hashOf(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 0;
}

export class IdIndex {
  // The hex ids are spread over PARTS open-addressing tables, so that growing one rehashes about
  // 1/64 of the ids: one table for a million ids took 130 ms to double, in one go, mid-read.
  private readonly keys: Uint32Array[] = [];
  private readonly values: Int32Array[] = [];
  private readonly masks = new Int32Array(PARTS);
  private readonly counts = new Int32Array(PARTS);
  private hexCount = 0;
  private readonly other = new Map<string, number>();

  constructor() {
    for (let p = 0; p < PARTS; p++) {
      this.keys.push(new Uint32Array(FIRST_SIZE));
      this.values.push(new Int32Array(FIRST_SIZE).fill(EMPTY));
      this.masks[p] = FIRST_SIZE - 1;
    }
  }

  get size(): number {
    return this.hexCount + this.other.size;
  }

  private static slotIn(keys: Uint32Array, values: Int32Array, mask: number, key: number, hash: number): number {
    let slot = hash & mask;
    for (;;) {
      if (values[slot] === EMPTY || keys[slot] === key) return slot;
      slot = (slot + 1) & mask;
    }
  }

  get(id: string): number | undefined {
    const key = hexIdValue(id);
    if (key < 0) return this.other.get(id);
    const hash = hashOf(key);
    const p = hash >>> (32 - PART_BITS);
    const values = this.values[p]!;
    const v = values[IdIndex.slotIn(this.keys[p]!, values, this.masks[p]!, key, hash)]!;
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
    const hash = hashOf(key);
    const p = hash >>> (32 - PART_BITS);
    const keys = this.keys[p]!;
    const values = this.values[p]!;
    const slot = IdIndex.slotIn(keys, values, this.masks[p]!, key, hash);
    const fresh = values[slot] === EMPTY;
    keys[slot] = key;
    values[slot] = position;
    if (fresh) {
      this.hexCount++;
      if (++this.counts[p]! * 2 > this.masks[p]!) this.grow(p, keys.length * 2);
    }
    return fresh;
  }

  /** Makes room for `count` ids at once (spread evenly over the tables, as random ids are). */
  reserve(count: number): void {
    const each = Math.ceil(count / PARTS);
    for (let p = 0; p < PARTS; p++) {
      let size = this.keys[p]!.length;
      while (each * 2 > size - 1) size *= 2;
      if (size > this.keys[p]!.length) this.grow(p, size);
    }
  }

  private grow(p: number, size: number): void {
    const keys = this.keys[p]!;
    const values = this.values[p]!;
    const nextKeys = new Uint32Array(size);
    const nextValues = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (let i = 0; i < keys.length; i++) {
      if (values[i] !== EMPTY) {
        const slot = IdIndex.slotIn(nextKeys, nextValues, mask, keys[i]!, hashOf(keys[i]!));
        nextKeys[slot] = keys[i]!;
        nextValues[slot] = values[i]!;
      }
    }
    this.keys[p] = nextKeys;
    this.values[p] = nextValues;
    this.masks[p] = mask;
  }
}
