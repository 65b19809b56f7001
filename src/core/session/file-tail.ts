import { watch, promises as fs, type FSWatcher } from "node:fs";
import type { Disposable } from "../util/disposable";

export interface TailOptions {
  /** Polling interval; a watcher event usually comes sooner. */
  pollMs?: number;
}

/**
 * Watches a session file for growth and calls `onChange` (debounced, never concurrently) when
 * its size or identity changes. Reading the new bytes is the caller's job, so that every byte
 * enters the index through one path.
 */
export function watchFile(path: string, onChange: () => Promise<void>, opts: TailOptions = {}): Disposable {
  let disposed = false;
  let running = false;
  let again = false;
  let watcher: FSWatcher | undefined;
  let lastSig = "";
  const run = async (): Promise<void> => {
    if (disposed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await onChange();
      } while (again && !disposed);
    } catch {
      // The caller reports its own errors; a failed round is retried at the next tick.
    } finally {
      running = false;
    }
  };
  const poll = async (): Promise<void> => {
    try {
      const st = await fs.stat(path);
      const sig = `${st.ino}:${st.size}:${st.mtimeMs}`;
      if (sig !== lastSig) {
        lastSig = sig;
        await run();
      }
    } catch {
      // The file may be mid-rename; the next tick sees it again.
    }
  };
  try {
    watcher = watch(path, { persistent: false }, () => void run());
    watcher.on("error", () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const timer = setInterval(() => void poll(), opts.pollMs ?? 400);
  timer.unref();
  void fs.stat(path).then((st) => (lastSig = `${st.ino}:${st.size}:${st.mtimeMs}`), () => undefined);
  return {
    dispose() {
      disposed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
