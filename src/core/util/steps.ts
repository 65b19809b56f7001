/**
 * Long synchronous work written as a generator that yields where it may pause. `runSteps` runs it
 * at once; `runStepsInSlices` runs it in slices of about `sliceMs`, giving the event loop a turn
 * between them, so that reading a 1,000,000-entry index never holds the extension host for a second.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end, now. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Gives the event loop a turn: setImmediate where there is one (Node), else a zero timeout. No Node types here: the tree's protocol, which runs its model in slices, is also compiled for the webview. */
export const turn: () => Promise<void> = (() => {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return immediate ? () => new Promise<void>((resolve) => void immediate(resolve)) : () => new Promise<void>((resolve) => void setTimeout(resolve, 0));
})();

/**
 * Runs `steps` in slices of about `sliceMs` of work (0: a turn at every yield). `pause`, asked
 * after every slice, may answer a promise that holds the work until it settles (work that can wait
 * gives way to work the user is waiting for).
 */
export async function runStepsInSlices<T>(steps: Steps<T>, sliceMs = 15, pause?: () => Promise<void> | undefined): Promise<T> {
  let start = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - start >= sliceMs) {
      await turn();
      await pause?.();
      start = performance.now();
    }
  }
}

/** Yield points are checked this often in loops over every entry. */
export const STEP_EVERY = 1 << 15;
