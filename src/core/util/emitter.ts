import { type Disposable, toDisposable } from "./disposable";

export type Listener<T> = (event: T) => void;

/**
 * A typed event source. A listener that throws does not stop the others; its error goes to
 * `onListenerError` (by default, `console.error`).
 */
export class Emitter<T> implements Disposable {
  private listeners: Listener<T>[] = [];
  private disposed = false;

  constructor(private readonly onListenerError: (err: unknown) => void = (err) => console.error(err)) {}

  /** Subscribe; the returned disposable unsubscribes. */
  readonly event = (listener: Listener<T>): Disposable => {
    if (this.disposed) return toDisposable(() => undefined);
    this.listeners.push(listener);
    return toDisposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}
