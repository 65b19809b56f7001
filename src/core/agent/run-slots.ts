import { linkedAbortController } from "./abort";

/** The two things that can run at once: a prompt, compaction or summary ("run"), and a shell command ("bash"). */
export type SlotKind = "run" | "bash";

interface Slot {
  controller: AbortController;
  /** Settles once the slot is free again (and, for "run", held-back appends are written). */
  done: Promise<void>;
}

/**
 * Who is running, how to stop it, and the appends held back while a run is going: a shell record or
 * a custom message must not land between a tool call and its result, so it waits for the run to end.
 */
export class RunSlots {
  private readonly slots: Record<SlotKind, Slot | undefined> = { run: undefined, bash: undefined };
  private deferred: (() => void)[] = [];

  isBusy(kind: SlotKind): boolean {
    return this.slots[kind] !== undefined;
  }

  /** The abort signal of what occupies the slot now, if anything. */
  signal(kind: SlotKind): AbortSignal | undefined {
    return this.slots[kind]?.controller.signal;
  }

  /** Takes a slot; its signal aborts on `abort(kind)` or when `external` aborts. Call `release` when done. */
  occupy(kind: SlotKind, external: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
    const controller = linkedAbortController(external);
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.slots[kind] = { controller, done };
    return {
      signal: controller.signal,
      release: () => {
        controller.dispose();
        this.slots[kind] = undefined;
        if (kind === "run") this.flushDeferred();
        settle();
      },
    };
  }

  abort(kind?: SlotKind): void {
    if (kind !== "bash") this.slots.run?.controller.abort();
    if (kind !== "run") this.slots.bash?.controller.abort();
  }

  /** Resolves when the slot is free (at once when it already is). */
  async whenFree(kind: SlotKind): Promise<void> {
    await this.slots[kind]?.done;
  }

  /** Appends now when no run is going, else once it has finished. */
  appendWhenIdle<T>(append: () => T): Promise<T> {
    if (!this.slots.run) return Promise.resolve(append());
    return new Promise((resolve, reject) => {
      this.deferred.push(() => {
        try {
          resolve(append());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Writes whatever was held back (also used when closing). */
  flushDeferred(): void {
    for (const append of this.deferred.splice(0)) append();
  }
}
