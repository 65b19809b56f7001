import type { Disposable } from "../util/disposable";

/** An abort controller that also aborts when any of the given signals does; dispose to unhook. */
export function linkedAbortController(...signals: (AbortSignal | undefined)[]): AbortController & Disposable {
  const controller = new AbortController();
  const unhook: (() => void)[] = [];
  const abort = (): void => controller.abort();
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort();
      continue;
    }
    signal.addEventListener("abort", abort, { once: true });
    unhook.push(() => signal.removeEventListener("abort", abort));
  }
  return Object.assign(controller, {
    dispose(): void {
      for (const fn of unhook.splice(0)) fn();
    },
  });
}

/**
 * Iterates `events` until `signal` aborts, then stops at once even if the source is still waiting
 * (a backend that misses the abort must not hang the agent). The source is asked to end too, which
 * by the provider contract cancels its request. Ends without a terminal event when aborted.
 */
export async function* untilAborted<T>(events: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = events[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === "aborted") {
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
