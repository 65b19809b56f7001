import { watch, promises as fs, type FSWatcher } from "node:fs";
import type { Disposable } from "./disposable";

/**
 * Calls `onChange` when files appear, change or go away in a folder, also when the folder itself
 * does not exist yet: once a moment (debounceMs) after the first change of a burst, and so at most
 * once per moment while a file keeps changing (a plain debounce would wait for a writer that
 * appends every 50 ms to stop). Falls back to a slow poll of the folder's listing where file
 * watching is unavailable or misses events (network drives, containers).
 */
export function watchFolder(dir: string, onChange: () => void, opts: { recursive?: boolean; debounceMs?: number; pollMs?: number } = {}): Disposable {
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  let signature = "";
  const fire = () => {
    if (disposed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, opts.debounceMs ?? 250);
  };
  const arm = () => {
    if (watcher || disposed) return;
    try {
      watcher = watch(dir, { persistent: false, recursive: opts.recursive ?? false }, fire);
      watcher.on("error", () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  };
  const poll = async () => {
    try {
      const names = await fs.readdir(dir);
      const stats = await Promise.all(names.filter((n) => n.endsWith(".jsonl")).map(async (n) => {
        const st = await fs.stat(`${dir}/${n}`).catch(() => undefined);
        return `${n}:${st?.size ?? 0}:${st?.mtimeMs ?? 0}`;
      }));
      const next = stats.sort().join("|");
      if (signature && next !== signature) fire();
      signature = next;
      arm();
    } catch {
      if (signature) fire();
      signature = "";
      watcher?.close();
      watcher = undefined;
    }
  };
  void poll();
  const interval = setInterval(() => void poll(), opts.pollMs ?? 3000);
  interval.unref();
  return {
    dispose() {
      disposed = true;
      clearInterval(interval);
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
