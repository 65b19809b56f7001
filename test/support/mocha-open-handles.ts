/**
 * Loaded by mocha before any test (see .mocharc.json, which also sets `exit`). A watcher, socket or
 * child process left open by a test, or by an extension a test loaded, would keep the run from ever
 * ending (a CI run then hangs until its time limit). mocha's `exit` ends the run anyway; this names
 * what was left open, so that the test that left it can be made to close it.
 */
const LEAKS = new Set(["FSEventWrap", "StatWatcher", "TCPServerWrap", "TCPSocketWrap", "TCPWrap", "ProcessWrap", "PipeServerWrap", "UDPWrap"]);

export const mochaHooks = {
  afterAll(done: () => void): void {
    // After the suites' own after() hooks: what is open now stays open.
    setImmediate(() => {
      const open = process.getActiveResourcesInfo().filter((kind) => LEAKS.has(kind));
      if (open.length) {
        const counts = new Map<string, number>();
        for (const kind of open) counts.set(kind, (counts.get(kind) ?? 0) + 1);
        process.stderr.write(`\nleft open after the tests (mocha exits anyway): ${[...counts].map(([k, n]) => `${k} x${n}`).join(", ")}\n`);
      }
      done();
    });
  },
};
