/**
 * The lifecycle rules of issue 8 point 1 at the runtime level, one test each: session_start after
 * the rebind, a failed replacement leaves a defined state, a replacement started from a handler is
 * refused (no deadlock) while one started after it runs, reload never stops a reply, a new session in
 * another folder is a switch, and withSession can chain another replacement.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExtensionContext } from "../../src/core/runtime/extension-api";
import { STALE_CONTEXT_MESSAGE } from "../../src/core/runtime/extension-context";
import { ExtensionHost } from "../../src/core/runtime/extension-host";
import { NESTED_REPLACEMENT_MESSAGE } from "../../src/core/runtime/handler-scope";
import { RuntimeError } from "../../src/core/runtime/runtime-errors";
import { lockPathFor } from "../../src/core/session/writer-lock";
import { reply } from "../support/scripted-openai-server";
import { makeKit, nextEvent, readLines, startRuntime, writeOtherSession, type AgentKit } from "./agent-harness.test";

describe("runtime lifecycle rules", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("session_start comes after the host's rebind, at startup and on every replacement", async () => {
    const log: string[] = [];
    let shown: string | undefined;
    const extensions = new ExtensionHost();
    extensions.register({ name: "ui-reader", handlers: { session_start: (e, ctx) => void log.push(`start ${e.reason}: ${shown === ctx.sessionId ? "UI shows it" : "UI behind"}`) } });
    const runtime = await startRuntime(kit, {
      extensions,
      rebind: (session) => {
        shown = session.sessionManager.getSessionId();
        log.push("rebind");
      },
    });
    await runtime.newSession();
    await runtime.reload();
    assert.deepEqual(log, ["rebind", "start startup: UI shows it", "rebind", "start new: UI shows it", "rebind", "start reload: UI shows it"]);
    await runtime.dispose();
  });

  it("a replacement whose new session cannot be built ends the runtime: old session closed and stale, target released, onEnded told", async () => {
    let fail = false;
    let ended: Error | undefined;
    const runtime = await startRuntime(kit, {
      configureSession: () => {
        if (fail) throw new Error("the providers could not be read");
        return kit.config();
      },
      onEnded: (error) => (ended = error),
    });
    const oldSession = runtime.session;
    const oldFile = oldSession.sessionManager.getSessionFile()!;
    const context = runtime.createContext();
    const other = await writeOtherSession(kit);
    fail = true;
    await assert.rejects(runtime.switchSession(other), (e: unknown) => e instanceof RuntimeError && e.code === "replacement-failed" && /providers could not be read/.test(e.message));
    assert.ok(ended, "onEnded was called");
    assert.equal(runtime.isDisposed(), true);
    assert.equal(oldSession.isDisposed(), true, "the old session is closed");
    assert.throws(() => context.getLeafId(), { message: STALE_CONTEXT_MESSAGE });
    assert.equal(existsSync(lockPathFor(other)), false, "the target's lock is released");
    assert.equal(existsSync(lockPathFor(oldFile)), false, "the old file is closed");
    await assert.rejects(runtime.newSession(), (e: unknown) => e instanceof RuntimeError && e.code === "disposed");
    assert.throws(() => runtime.createContext(), (e: unknown) => e instanceof RuntimeError && e.code === "disposed");
  });

  it("a new session in another folder whose session cannot be built once the old one is shut down: old closed and stale, no lock left in either folder, onEnded told", async () => {
    let fail = false;
    let ended: Error | undefined;
    const runtime = await startRuntime(kit, {
      configureSession: () => {
        if (fail) throw new Error("the settings could not be read");
        return kit.config();
      },
      onEnded: (error) => (ended = error),
    });
    const oldSession = runtime.session;
    const oldFile = oldSession.sessionManager.getSessionFile()!;
    const context = runtime.createContext();
    const otherCwd = join(kit.root, "other-folder");
    mkdirSync(otherCwd);
    const target = { cwd: otherCwd, sessionDir: join(kit.root, "other-sessions") };
    const seen: string[] = [];
    runtime.extensions.register({ name: "watch", handlers: { session_shutdown: (e) => void seen.push(`shutdown ${e.reason}`), session_start: (e) => void seen.push(`start ${e.reason}`) } });
    fail = true;
    await assert.rejects(runtime.newSession({ target }), (e: unknown) => e instanceof RuntimeError && e.code === "replacement-failed" && /settings could not be read/.test(e.message));
    assert.deepEqual(seen, ["shutdown new"], "no session_start for a session that was never built");
    assert.match(ended?.message ?? "", /previous session was closed/);
    assert.equal(oldSession.isDisposed(), true);
    assert.throws(() => context.getLeafId(), { message: STALE_CONTEXT_MESSAGE });
    assert.equal(existsSync(lockPathFor(oldFile)), false, "the old file is closed");
    assert.deepEqual(readdirSync(target.sessionDir).filter((n) => n.endsWith(".lock")), [], "the target's lock is released");
    assert.equal(runtime.isDisposed(), true);
  });

  it("a handler that awaits a replacement is refused at once (no deadlock); one it leaves for later runs after", async () => {
    const runtime = await startRuntime(kit);
    const seen: string[] = [];
    let later: Promise<unknown> | undefined;
    runtime.extensions.register({
      name: "eager",
      handlers: {
        session_before_switch: async (e, ctx) => {
          if (e.reason !== "resume") return;
          await ctx.newSession().then(
            () => seen.push("nested ran"),
            (error: Error) => seen.push(error.message),
          );
          // Not awaited by the handler: runs once the switch is over.
          later = new Promise((resolve) => setTimeout(resolve, 10)).then(() => runtime.newSession());
        },
      },
    });
    const other = await writeOtherSession(kit);
    assert.deepEqual(await runtime.switchSession(other), { cancelled: false });
    assert.equal(seen.length, 1);
    assert.ok(seen[0]!.startsWith(NESTED_REPLACEMENT_MESSAGE), seen[0]);
    assert.match(seen[0]!, /"eager", in session_before_switch/);
    assert.equal(runtime.session.sessionManager.getSessionFile(), other);
    assert.deepEqual(await later, { cancelled: false });
    assert.notEqual(runtime.session.sessionManager.getSessionFile(), other, "the later replacement ran");
    await runtime.dispose();
  });

  it("withSession may start another replacement", async () => {
    const runtime = await startRuntime(kit);
    const other = await writeOtherSession(kit);
    let inner: { cancelled: boolean } | undefined;
    await runtime.newSession({ withSession: async (ctx: ExtensionContext) => void (inner = await ctx.switchSession(other)) });
    assert.deepEqual(inner, { cancelled: false });
    assert.equal(runtime.session.sessionManager.getSessionFile(), other);
    await runtime.dispose();
  });

  it("reload is refused while a reply runs and never stops it", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.text("a slow answer", { chunks: 4, delayMs: 150 }));
    const running = runtime.session.prompt("go slowly");
    await nextEvent(runtime.session, (e) => e.type === "message_update");
    await assert.rejects(runtime.reload(), (e: unknown) => e instanceof RuntimeError && e.code === "busy");
    const result = await running;
    assert.equal(result.kind === "reply" && result.message.stopReason, "stop", "the reply finished");
    assert.deepEqual(await runtime.reload(), { cancelled: false }, "once idle it reloads");
    await runtime.dispose();
  });

  it("a new session in another folder is a switch: cancellable, and session_start names the previous file", async () => {
    const runtime = await startRuntime(kit);
    const previous = runtime.session.sessionManager.getSessionFile();
    const otherCwd = join(kit.root, "other-folder");
    mkdirSync(otherCwd);
    const target = { cwd: otherCwd, sessionDir: join(kit.root, "other-sessions") };
    let cancel = true;
    const seen: string[] = [];
    runtime.extensions.register({
      name: "guard",
      handlers: {
        session_before_switch: (e) => (seen.push(`before ${e.reason}`), cancel ? { cancel: true } : undefined),
        session_start: (e) => void seen.push(`start ${e.reason} from ${e.previousSessionFile === previous ? "previous" : String(e.previousSessionFile)}`),
      },
    });
    assert.deepEqual(await runtime.newSession({ target }), { cancelled: true });
    assert.equal(runtime.session.sessionManager.getSessionFile(), previous);
    cancel = false;
    assert.deepEqual(await runtime.newSession({ target }), { cancelled: false });
    assert.deepEqual(seen, ["before new", "before new", "start new from previous"]);
    assert.equal(runtime.cwd, otherCwd);
    kit.server.script(reply.text("written"));
    await runtime.session.prompt("hello there");
    await runtime.session.sessionManager.flush();
    assert.equal(dirname(runtime.session.sessionManager.getSessionFile()!), target.sessionDir);
    await runtime.dispose();
  });

  it("dispose delivers session_shutdown to every handler before the file is flushed and closed", async () => {
    const runtime = await startRuntime(kit);
    const file = runtime.session.sessionManager.getSessionFile()!;
    const order: string[] = [];
    for (const name of ["first", "second"]) {
      runtime.extensions.register({
        name,
        handlers: {
          session_shutdown: async (_e, ctx) => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            ctx.appendEntry(`${name}.bye`, { at: "shutdown" });
            order.push(name);
          },
        },
      });
    }
    await runtime.dispose();
    assert.deepEqual(order, ["first", "second"]);
    const types = readLines(file).map((line) => line.customType).filter(Boolean);
    assert.deepEqual(types.slice(-2), ["first.bye", "second.bye"], "both handlers' last writes reached the file");
  });
});
