/**
 * `ctx.ui.custom()` with Pi's loaders (the coding agent's BorderedLoader, pi-tui's Loader and
 * CancellableLoader): the extension's work runs while the front end shows progress, `done` ends it,
 * and the user's cancel is the loader's Escape. Any other component is still reported as needing
 * Pi's terminal. Extension files are loaded through Arbor's loader over a real runtime.
 */
import * as assert from "node:assert/strict";
import { loadReference } from "../support/reference";
import { reply } from "../support/scripted-openai-server";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

const LOADERS = `
import { BorderedLoader } from "@mariozechner/pi-coding-agent";
import { Loader } from "@mariozechner/pi-tui";
export default function (pi) {
  // Works while the loader shows; a cancel aborts its signal and the extension ends with null.
  pi.registerCommand("work", { handler: async (args, ctx) => {
    const result = await ctx.ui.custom((tui, theme, _kb, done) => {
      const loader = new BorderedLoader(tui, theme, "Working on " + args + "...");
      loader.onAbort = () => done(null);
      globalThis.__finish = (value) => done(value);
      globalThis.__signal = loader.signal;
      return loader;
    });
    ctx.ui.notify("result: " + JSON.stringify(result), "info");
  } });
  // Not cancellable (pi-tui's Loader): no Cancel is offered.
  pi.registerCommand("plain", { handler: async (_a, ctx) => {
    const result = await ctx.ui.custom((tui, theme, _kb, done) => {
      setTimeout(() => done("plain done"), 10);
      return new Loader(tui, (s) => s, (s) => s, "Plain work");
    });
    ctx.ui.notify("result: " + result, "info");
  } });
  // done() before the factory returns: no progress at all.
  pi.registerCommand("instant", { handler: async (_a, ctx) => {
    const result = await ctx.ui.custom((_t, _th, _kb, done) => { done(42); return { render: () => [], invalidate() {} }; });
    ctx.ui.notify("result: " + result, "info");
  } });
  // A component of Pi's terminal: reported, the call fails, the extension goes on.
  pi.registerCommand("panel", { handler: async (_a, ctx) => {
    let disposed = false;
    try {
      await ctx.ui.custom(() => ({ render: () => ["a panel"], handleInput() {}, invalidate() {}, dispose() { disposed = true; } }));
    } catch (error) {
      ctx.ui.notify("failed: " + error.message + " disposed=" + disposed, "warning");
    }
  } });
}
`;

describe("ctx.ui.custom() with Pi's loaders", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());
  const g = globalThis as unknown as { __finish?: (v: unknown) => void; __signal?: AbortSignal };
  afterEach(() => {
    delete g.__finish;
    delete g.__signal;
  });

  it("shows progress with the loader's message until done, and returns done's value", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "loaders.ts": LOADERS } });
    const running = pi.set.runCommand("work", "the parser");
    while (!pi.ui.shownProgress) await new Promise((r) => setImmediate(r));
    assert.equal(pi.ui.shownProgress.message, "Working on the parser...");
    assert.equal(pi.ui.shownProgress.cancellable, true);
    g.__finish!({ prompt: "next" });
    await running;
    assert.equal(pi.ui.shownProgress, undefined, "the progress closed");
    assert.equal(pi.ui.notifications.at(-1)?.message, 'result: {"prompt":"next"}');

    await pi.set.runCommand("plain", "");
    assert.ok(pi.ui.calls.includes("progress: Plain work"));
    assert.equal(pi.ui.notifications.at(-1)?.message, "result: plain done");

    await pi.set.runCommand("instant", "");
    assert.equal(pi.ui.calls.filter((c) => c.startsWith("progress:")).length, 2, "no progress for work already done");
    assert.equal(pi.ui.notifications.at(-1)?.message, "result: 42");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("cancelling the progress is the loader's Escape: its signal aborts and its onAbort ends the call", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "loaders.ts": LOADERS } });
    const running = pi.set.runCommand("work", "x");
    while (!pi.ui.shownProgress) await new Promise((r) => setImmediate(r));
    assert.equal(g.__signal!.aborted, false);
    pi.ui.shownProgress.cancel();
    await running;
    assert.equal(g.__signal!.aborted, true);
    assert.equal(pi.ui.notifications.at(-1)?.message, "result: null");
    await pi.runtime.dispose();
  });

  it("a component that needs Pi's terminal is reported once, disposed, and the call fails with the reason", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "loaders.ts": LOADERS } });
    await pi.set.runCommand("panel", "");
    await pi.set.runCommand("panel", "");
    const warning = pi.ui.notifications.at(-1)!;
    assert.equal(warning.type, "warning");
    assert.match(warning.message, /^failed: The extension "loaders" called ctx\.ui\.custom\(\), which Arbor cannot offer: .*terminal.* disposed=true$/);
    assert.equal(pi.reports.filter((r) => r.includes("ctx.ui.custom()")).length, 1, "told once");
    await pi.runtime.dispose();
  });

  it("ctx.newSession({ parentSession }) links the new file to the one it names, and the reference reads the link", async () => {
    const pi = await startWithExamples(kit, [], {
      extraFiles: {
        "handoff-like.ts": `export default function (pi) {
          pi.registerCommand("go", { handler: async (_a, ctx) => { await ctx.newSession({ parentSession: ctx.sessionManager.getSessionFile() }); } });
        }`,
      },
    });
    const previous = pi.runtime.session.sessionManager.getSessionFile()!;
    await pi.set.runCommand("go", "");
    const sm = pi.runtime.session.sessionManager;
    assert.notEqual(sm.getSessionFile(), previous);
    assert.equal(sm.getHeader()?.parentSession, previous);
    // Written once it holds a reply (as Pi defers it); the reference then reads the link.
    kit.server.script(reply.text("ok"));
    await pi.runtime.session.prompt("hello");
    await sm.flush();
    const ref = await loadReference();
    assert.equal(ref.SessionManager.open(sm.getSessionFile()!).getHeader()?.parentSession, previous);
    await pi.runtime.dispose();
  });
});
