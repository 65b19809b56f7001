import { toDisposable, type Disposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import { reducerFor } from "./event-reducers";
import type {
  ExtensionContext,
  ExtensionErrorReport,
  ExtensionEventMap,
  ExtensionEventResultMap,
  ExtensionEventType,
  SessionExtension,
} from "./extension-api";
import { runInHandlerScope } from "./handler-scope";

/** Where an extension sits in the dispatch order: Pi extension files first (in load order), then those registered through the API. */
export type ExtensionGroup = "pi" | "api";

/** How long a handler may run before Arbor goes on without its answer (time spent in a dialog the user answers does not count). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

/** The message reported when a handler did not finish in time. */
export function handlerTimeoutMessage(extension: string, event: string, ms: number): string {
  return `The extension "${extension}" did not finish its ${event} handler within ${Math.round(ms / 100) / 10} s; Arbor went on without its answer.`;
}

interface Registered {
  extension: SessionExtension;
  group: ExtensionGroup;
}

interface TimerControl {
  stop(): void;
  arm(): void;
}

/** An extension's running handler timers, and how many of its dialogs are open (they pause the timers). */
interface PauseState {
  paused: number;
  timers: Set<TimerControl>;
}

/**
 * The registered extensions and the dispatch of their events. Handlers run one after the other
 * (Pi extensions first, then API registrations, each group in registration order) and are
 * awaited, each with a timeout. How answers combine is the event's reducer (event-reducers.ts); a
 * handler that throws or times out is reported through `onDidReportError` and counts as no answer
 * (it never cancels; for `tool_call` it blocks the call).
 */
export class ExtensionHost implements Disposable {
  private registered: Registered[] = [];
  private readonly errors = new Emitter<ExtensionErrorReport>();
  private readonly pauses = new Map<string, PauseState>();
  /** Errors thrown by handlers. */
  readonly onDidReportError = this.errors.event;

  constructor(private timeoutMs = DEFAULT_HANDLER_TIMEOUT_MS) {}

  setHandlerTimeout(ms: number): void {
    this.timeoutMs = ms;
  }

  get handlerTimeoutMs(): number {
    return this.timeoutMs;
  }

  /** Registers an extension after those already registered in its group; dispose to unregister. */
  register(extension: SessionExtension, group: ExtensionGroup = "api"): Disposable {
    if (!extension || typeof extension.name !== "string" || typeof extension.handlers !== "object" || extension.handlers === null) {
      throw new TypeError("A session extension needs a name and a handlers object.");
    }
    const entry: Registered = { extension, group };
    this.registered = [...this.registered, entry];
    return toDisposable(() => {
      this.registered = this.registered.filter((e) => e !== entry);
    });
  }

  hasHandlers(type: ExtensionEventType): boolean {
    return this.registered.some((e) => handlersOf(e.extension, type).length > 0);
  }

  /** The dispatch order: Pi extensions, then API registrations. */
  private ordered(): Registered[] {
    return [...this.registered.filter((e) => e.group === "pi"), ...this.registered.filter((e) => e.group === "api")];
  }

  /**
   * Emits an event; for events whose handlers can answer, resolves with the combined answer
   * (undefined when nobody answered).
   */
  async emit<K extends ExtensionEventType>(
    type: K,
    event: ExtensionEventMap[K],
    context: ExtensionContext,
  ): Promise<ExtensionEventResultMap[K] | undefined> {
    if (!this.hasHandlers(type)) return undefined;
    const reducer = reducerFor(type);
    let state = reducer?.start(event);
    // A snapshot: registering or unregistering during dispatch affects the next event, not this one.
    dispatch: for (const { extension } of this.ordered()) {
      for (const handler of handlersOf(extension, type)) {
        const seen = reducer ? reducer.eventFor(state, event) : event;
        let answer: unknown;
        try {
          answer = await this.call(extension.name, type, () => handler(seen, context));
        } catch (error) {
          const err = asError(error);
          this.report(extension.name, type, err);
          if (reducer?.onFailure) {
            const reduced = reducer.onFailure(state, err, extension.name);
            state = reduced.state;
            if (reduced.stop) break dispatch;
          }
          continue;
        }
        if (!reducer) continue;
        try {
          const reduced = reducer.apply(state, answer, extension.name);
          state = reduced.state;
          if (reduced.stop) break dispatch;
        } catch (error) {
          this.report(extension.name, type, asError(error));
        }
      }
    }
    return reducer ? (reducer.result(state) as ExtensionEventResultMap[K] | undefined) : undefined;
  }

  /** One handler call in its scope, raced against the timeout (paused while its dialogs are open). */
  private call(name: string, type: string, run: () => unknown): Promise<unknown> {
    const work = runInHandlerScope(name, type, run);
    if (!(this.timeoutMs > 0)) return work;
    const ms = this.timeoutMs;
    const pause = this.pauseOf(name);
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const timerControl: TimerControl = {
        stop: () => clearTimeout(timer),
        arm: () => {
          clearTimeout(timer);
          if (pause.paused === 0) timer = setTimeout(() => reject(new Error(handlerTimeoutMessage(name, type, ms))), ms);
        },
      };
      pause.timers.add(timerControl);
      timerControl.arm();
      work.then(resolve, reject).finally(() => {
        timerControl.stop();
        pause.timers.delete(timerControl);
      });
    });
  }

  private pauseOf(extension: string): PauseState {
    let state = this.pauses.get(extension);
    if (!state) this.pauses.set(extension, (state = { paused: 0, timers: new Set() }));
    return state;
  }

  /**
   * Stops the handler timers of `extension` until the returned function is called: the time the
   * user takes to answer that extension's dialog is not the extension's. Timers restart in full.
   */
  pauseTimeouts(extension: string): () => void {
    const state = this.pauseOf(extension);
    state.paused++;
    for (const timer of state.timers) timer.stop();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      state.paused--;
      if (state.paused === 0) for (const timer of state.timers) timer.arm();
    };
  }

  /** Reports an error of extension code (also used for what the runtime calls on its behalf). */
  report(extension: string, event: string, error: unknown): void {
    this.errors.fire({ extension, event, error: asError(error) });
  }

  dispose(): void {
    this.registered = [];
    this.errors.dispose();
  }
}

/** An extension's handlers for an event: one function, or (Pi extensions) several in registration order. */
function handlersOf(extension: SessionExtension, type: ExtensionEventType): ((e: unknown, c: ExtensionContext) => unknown)[] {
  const handler = extension.handlers[type] as unknown;
  if (typeof handler === "function") return [handler as (e: unknown, c: ExtensionContext) => unknown];
  if (Array.isArray(handler)) return handler.filter((h): h is (e: unknown, c: ExtensionContext) => unknown => typeof h === "function");
  return [];
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
