/** Phase timings in milliseconds, for `--timings`. */
export class Timings {
  private readonly start = performance.now();
  private last = this.start;
  private readonly phases: Record<string, number> = {};

  /** Ends the current phase under `name`. */
  mark(name: string): void {
    const now = performance.now();
    this.phases[name] = Math.round((now - this.last) * 1000) / 1000;
    this.last = now;
  }

  toJSON(): Record<string, number> {
    return { ...this.phases, total: Math.round((performance.now() - this.start) * 1000) / 1000 };
  }
}
