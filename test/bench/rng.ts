/**
 * A small seeded pseudo-random generator for the benchmark's session generator. Determinism
 * matters more than quality here: the same seed must give byte-identical session files.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Spread small consecutive seeds apart so that seeds 1 and 2 do not start in lockstep.
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0;
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** An integer in [min, max] skewed towards min (most sessions, files and outputs are small). */
  skewedInt(min: number, max: number, power = 2.5): number {
    return min + Math.floor(Math.pow(this.next(), power) * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) {
      throw new Error("Rng.pick: cannot pick from an empty list");
    }
    return items[Math.floor(this.next() * items.length)];
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = "";
    while (out.length < length) {
      out += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, "0");
    }
    return out.slice(0, length);
  }

  /** A version-4-shaped UUID built from this generator. */
  uuid(): string {
    const h = this.hex(32);
    const variant = "89ab"[this.int(0, 3)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** A new generator derived from this one, so that sub-streams do not shift each other. */
  fork(salt: number): Rng {
    return new Rng((this.int(0, 0x7fffffff) ^ Math.imul(salt, 0x27d4eb2d)) >>> 0);
  }
}
