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
