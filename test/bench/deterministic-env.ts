/**
 * Makes the reference SessionManager deterministic while the generator drives it: it stamps
 * entries with `new Date()` and draws entry ids from `crypto.randomUUID()`, so both are routed
 * to a seeded clock and a seeded generator for as long as the returned handle is not disposed.
 * Only the generator's own child process installs this.
 */
import { syncBuiltinESMExports } from "node:module";
import { Rng } from "./rng";

/** A clock the generator advances explicitly: simulated time, in epoch milliseconds. */
export class SimulatedClock {
  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  /** Moves time forward by a random amount in [minMs, maxMs] and returns the new time. */
  advance(rng: Rng, minMs: number, maxMs: number): number {
    this.nowMs += rng.int(minMs, maxMs);
    return this.nowMs;
  }

  set(nowMs: number): void {
    this.nowMs = nowMs;
  }
}

export interface DeterministicEnvironment {
  readonly clock: SimulatedClock;
  dispose(): void;
}

/** Replaces the global `Date` constructor (no-argument form and `Date.now`) and `crypto.randomUUID`. */
export function installDeterministicEnvironment(rng: Rng, startMs: number): DeterministicEnvironment {
  // The module object itself (a namespace import would be a read-only copy of its bindings).
  const crypto = process.getBuiltinModule("node:crypto") as { randomUUID: () => string };
  const clock = new SimulatedClock(startMs);
  const RealDate = Date;
  const realRandomUuid = crypto.randomUUID;

  class SimulatedDate extends RealDate {
    // The Date constructor is variadic; forward exactly what the caller passed.
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) {
        super(clock.now());
      } else {
        super(...(args as [string | number | Date]));
      }
    }

    static override now(): number {
      return clock.now();
    }
  }

  globalThis.Date = SimulatedDate as DateConstructor;
  crypto.randomUUID = () => rng.uuid();
  // ES modules that imported `randomUUID` from "crypto" hold a live binding that only follows
  // the CommonJS export object after this call.
  syncBuiltinESMExports();

  return {
    clock,
    dispose() {
      globalThis.Date = RealDate;
      crypto.randomUUID = realRandomUuid;
      syncBuiltinESMExports();
    },
  };
}
