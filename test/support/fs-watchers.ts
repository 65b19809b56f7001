/**
 * Some of Pi's example extensions open file watchers they never close (in Pi the process exits with
 * the session; mocha's must not be held open by them). This keeps every watcher made through
 * `node:fs` while it is on, so a test can close them afterwards, passed or not. node:fs's own exports
 * object is wrapped (a namespace import is a read-only copy) and its ES module view brought up to date.
 */
import type { FSWatcher } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";

export interface WatcherTrap {
  readonly watchers: FSWatcher[];
  /** Puts `fs.watch` back and closes every watcher it made meanwhile. */
  release(): void;
}

export function trapWatchers(): WatcherTrap {
  const fs = createRequire(__filename)("node:fs") as typeof import("node:fs");
  const watch = fs.watch;
  const watchers: FSWatcher[] = [];
  fs.watch = ((...args: Parameters<typeof watch>) => {
    const watcher = watch(...args);
    watchers.push(watcher);
    return watcher;
  }) as typeof watch;
  syncBuiltinESMExports();
  return {
    watchers,
    release() {
      fs.watch = watch;
      syncBuiltinESMExports();
      for (const watcher of watchers.splice(0)) watcher.close();
    },
  };
}
