import { toDisposable, type Disposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import {
  BEFORE_EVENT_TYPES,
  type ExtensionContext,
  type ExtensionErrorReport,
  type SessionEventMap,
  type SessionEventResultMap,
  type SessionEventType,
  type SessionExtension,
} from "./extension-api";

/**
 * The registered session extensions and the dispatch of their events. Handlers run one after the
 * other in registration order and are awaited. For a before-event the answers merge (a later
 * handler's fields win) until one cancels: the first cancel wins and stops the dispatch. A handler
 * that throws is reported through `onDidReportError` and counts as no answer; it never cancels.
 */
export class ExtensionHost implements Disposable {
  private extensions: SessionExtension[] = [];
  private readonly errors = new Emitter<ExtensionErrorReport>();
  /** Errors thrown by handlers. */
  readonly onDidReportError = this.errors.event;

  /** Registers an extension after those already registered; dispose to unregister. */
  register(extension: SessionExtension): Disposable {
    if (!extension || typeof extension.name !== "string" || typeof extension.handlers !== "object" || extension.handlers === null) {
      throw new TypeError("A session extension needs a name and a handlers object.");
    }
    this.extensions = [...this.extensions, extension];
    return toDisposable(() => {
      this.extensions = this.extensions.filter((e) => e !== extension);
    });
  }

  hasHandlers(type: SessionEventType): boolean {
    return this.extensions.some((e) => typeof e.handlers[type] === "function");
  }

  /** Emits an event; for before-events, resolves with the merged answer (undefined when nobody answered). */
  async emit<K extends SessionEventType>(
    type: K,
    event: SessionEventMap[K],
    context: ExtensionContext,
  ): Promise<SessionEventResultMap[K] | undefined> {
    const isBefore = BEFORE_EVENT_TYPES.includes(type);
    let merged: Record<string, unknown> | undefined;
    // A snapshot: registering or unregistering during dispatch affects the next event, not this one.
    for (const extension of [...this.extensions]) {
      const handler = extension.handlers[type];
      if (typeof handler !== "function") continue;
      let answer: unknown;
      try {
        answer = await handler(event, context);
      } catch (error) {
        this.report(extension.name, type, error);
        continue;
      }
      if (!isBefore || typeof answer !== "object" || answer === null) continue;
      merged = { ...merged, ...definedFields(answer as Record<string, unknown>) };
      if ((answer as { cancel?: unknown }).cancel === true) return { cancel: true } as SessionEventResultMap[K];
    }
    if (merged) delete merged.cancel;
    return merged as SessionEventResultMap[K] | undefined;
  }

  /** Reports an error thrown by extension code (also used for hooks the runtime calls). */
  report(extension: string, event: SessionEventType, error: unknown): void {
    this.errors.fire({ extension, event, error: error instanceof Error ? error : new Error(String(error)) });
  }

  dispose(): void {
    this.extensions = [];
    this.errors.dispose();
  }
}

function definedFields(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
