import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Disposable } from "./disposable";

/**
 * Calls `onChange` (debounced) when any of the files is created, changed, replaced or deleted, also
 * when its folder does not exist yet. Watches each file's folder (editors save by renaming a temp
 * file over the original, which a watch on the file itself would lose) and polls the files' size and
 * mtime as a fallback where watching misses events.
 */
export function watchFiles(paths: readonly string[], onChange: () => void, opts: { debounceMs?: number; pollMs?: number } = {}): Disposable {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const names = new Set(paths.map((path) => basename(path)));
  const fire = (): void => {
    if (disposed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(onChange, opts.debounceMs ?? 200);
  };
  const arm = (): void => {
    for (const dir of new Set(paths.map((path) => dirname(path)))) {
      if (watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, file) => {
          if (file === null || names.has(file.toString())) fire();
        });
        watcher.on("error", () => {
          watcher.close();
          watchers.delete(dir);
        });
        watchers.set(dir, watcher);
      } catch {
        // The folder does not exist yet: the poll below finds the file when it appears.
      }
    }
  };
  const stamp = (): string =>
    paths
      .map((path) => {
        try {
          const st = statSync(path);
          return `${st.size}:${st.mtimeMs}:${st.ino}`;
        } catch {
          return "-";
        }
      })
      .join("|");
  let last = stamp();
  arm();
  const interval = setInterval(() => {
    arm();
    const next = stamp();
    if (next !== last) fire();
    last = next;
  }, opts.pollMs ?? 2000);
  interval.unref();
  return {
    dispose() {
      disposed = true;
      clearInterval(interval);
      if (timer) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
