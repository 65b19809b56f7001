/**
 * Work cut into steps and run a few milliseconds at a time, in tasks of their own, so that drawing a
 * huge message never holds the page for long: each task runs steps until its budget is spent, then
 * lets the page paint and handle input before the next one.
 */

/** Milliseconds of steps per task. */
export const TASK_BUDGET_MS = 8;

/** One piece of work: does a little and says whether it is finished. */
export type Step = () => boolean;

interface Job {
  readonly owner: object;
  readonly step: Step;
  /** Dropped when its owner left the page after being on it (the item scrolled away). */
  readonly alive: () => boolean;
}

const queue: Job[] = [];
let pauseRequested = false;

/**
 * Ends the current task after the running step: for work whose cost lands after it (a step that
 * appends much text costs its layout in the frame that follows, outside the budget).
 */
export function pauseSlices(): void {
  pauseRequested = true;
}
let timer: ReturnType<typeof setTimeout> | undefined;
const settledWaiters: (() => void)[] = [];

function pump(): void {
  timer = undefined;
  const deadline = performance.now() + TASK_BUDGET_MS;
  pauseRequested = false;
  while (queue.length > 0 && performance.now() < deadline && !pauseRequested) {
    const job = queue[0]!;
    let done = true;
    if (job.alive()) {
      try {
        done = job.step();
      } catch {
        done = true; // a step that throws has already left its plain-text fallback in place
      }
    }
    if (done) queue.shift();
  }
  if (queue.length > 0) timer = setTimeout(pump, 0);
  else for (const resolve of settledWaiters.splice(0)) resolve();
}

/**
 * Runs `step` in later tasks until it returns true. `owner` identifies the work: `cancelSlices(owner)`
 * drops it. When `node` is given, the work stops once that node has left the document.
 */
export function runInSlices(owner: object, step: Step, node?: Node): void {
  const alive = node ? () => node.isConnected : () => true;
  queue.push({ owner, step, alive });
  timer ??= setTimeout(pump, 0);
}

/** Drops the work queued for `owner`. */
export function cancelSlices(owner: object): void {
  for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.owner === owner) queue.splice(i, 1);
}

/** Resolves when no work is queued (for tests and benchmarks). */
export function slicesSettled(): Promise<void> {
  if (queue.length === 0) return Promise.resolve();
  return new Promise((resolve) => settledWaiters.push(resolve));
}
