/**
 * Entry id → position, as an open-addressing hash table in one Int32Array. Keys are not stored:
 * a slot holds a position, and `keyOf(position)` gives its id back for comparison. For a
 * million ids this builds several times faster than a Map (no per-entry allocation, no
 * rehashing of string objects) and takes 8 bytes per id.
 */
/** Id → position lookups (the last entry with an id wins). */
export interface IdLookup {
  get(id: string): number | undefined;
  has(id: string): boolean;
  /** Points `id` at `position`; returns the position it named before, or -1 for a new id. */
  set(id: string, position: number): number;
}

export class IdIndex implements IdLookup {
  private table: Int32Array;
  private mask: number;
  private count = 0;

  constructor(
    private readonly keyOf: (position: number) => string,
    expected = 16,
  ) {
    const size = capacityFor(expected);
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  get(id: string): number | undefined {
    const table = this.table;
    const mask = this.mask;
    for (let h = hash(id) & mask; ; h = (h + 1) & mask) {
      const at = table[h];
      if (at === -1) return undefined;
      if (this.keyOf(at) === id) return at;
    }
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Points `id` at `position`; returns the position it named before, or -1 for a new id. */
  set(id: string, position: number): number {
    if ((this.count + 1) * 2 > this.table.length) this.grow();
    const table = this.table;
    const mask = this.mask;
    for (let h = hash(id) & mask; ; h = (h + 1) & mask) {
      const at = table[h];
      if (at === -1) {
        table[h] = position;
        this.count++;
        return -1;
      }
      if (this.keyOf(at) === id) {
        table[h] = position;
        return at;
      }
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2).fill(-1);
    this.mask = this.table.length - 1;
    for (const at of old) {
      if (at === -1) continue;
      let h = hash(this.keyOf(at)) & this.mask;
      while (this.table[h] !== -1) h = (h + 1) & this.mask;
      this.table[h] = at;
    }
  }
}

function capacityFor(expected: number): number {
  let size = 16;
  while (size < expected * 2) size *= 2;
  return size;
}

/** FNV-1a over UTF-16 code units: cheap, and spreads 8-hex-digit ids well. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
