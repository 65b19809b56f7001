/** Something that holds a resource or a subscription until it is disposed. */
export interface Disposable {
  dispose(): void;
}

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/**
 * Collects disposables and disposes them together, newest first. Adding to a disposed store
 * disposes the newcomer at once, so nothing registered late can leak.
 */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  delete(item: Disposable): void {
    if (this.items.delete(item)) item.dispose();
  }

  clear(): void {
    const items = [...this.items].reverse();
    this.items.clear();
    const errors: unknown[] = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "Several disposables failed");
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clear();
  }
}

/** Holds at most one disposable: setting a new value disposes the old one. */
export class MutableDisposable<T extends Disposable> implements Disposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.current;
  }

  set value(next: T | undefined) {
    if (this.disposed) {
      next?.dispose();
      return;
    }
    if (next === this.current) return;
    const old = this.current;
    this.current = next;
    old?.dispose();
  }

  /** Forget the value without disposing it. */
  clearAndLeak(): T | undefined {
    const old = this.current;
    this.current = undefined;
    return old;
  }

  dispose(): void {
    this.disposed = true;
    const old = this.current;
    this.current = undefined;
    old?.dispose();
  }
}
