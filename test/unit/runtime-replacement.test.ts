/** AgentSessionRuntime: the replacement order event by event, cancels, forks, imports, missing cwd, locked files. */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { AgentError } from "../../src/core/agent/errors";
import type { AgentSessionRuntime } from "../../src/core/runtime/agent-session-runtime";
import type { ExtensionContext } from "../../src/core/runtime/extension-api";
import { MissingSessionCwdError, RuntimeError } from "../../src/core/runtime/runtime-errors";
import { SessionManager } from "../../src/core/session/session-manager";
import { lockPathFor } from "../../src/core/session/writer-lock";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, makeKit, readLines, startRuntime, writeOtherSession, type AgentKit } from "./agent-harness.test";

describe("AgentSessionRuntime replacement", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  /** Records the nine steps of one replacement, each with the facts that prove its place in the order. */
  function recorder(runtime: AgentSessionRuntime, log: string[]): { oldContext: ExtensionContext } {
    const oldContext = runtime.createContext();
    const live = (): string => {
      try {
        oldContext.getLeafId();
        return "old-live";
      } catch {
        return "old-stale";
      }
    };
    runtime.session.onEvent((e) => {
      if (e.type === "disposed") log.push(`4 dispose old session (${live()})`);
    });
    runtime.extensions.register({
      name: "recorder",
      handlers: {
        session_before_switch: (e) => void log.push(`1 before_switch ${e.reason}`),
        session_before_fork: (e) => void log.push(`1 before_fork ${e.position}`),
        session_shutdown: (e, ctx) => {
          const targetOpen = e.targetSessionFile !== undefined && existsSync(lockPathFor(e.targetSessionFile));
          log.push(`3 shutdown ${e.reason} (target ${targetOpen ? "open" : "not open"}, ctx ${ctx.sessionFile === oldContext.sessionFile ? "old" : "new"}, ${live()})`);
        },
        session_start: (e, ctx) => void log.push(`8 start ${e.reason} (ctx ${ctx.sessionFile === e.previousSessionFile ? "old" : "new"}, ${live()})`),
      },
    });
    return { oldContext };
  }

  function options(log: string[]): { withSession: (ctx: ExtensionContext) => void } {
    return { withSession: (ctx) => void log.push(`9 withSession (${ctx.getLeafId() === null ? "empty" : "has entries"})`) };
  }

  it("switchSession runs the nine steps in order", async () => {
    const log: string[] = [];
    let other = "";
    const runtime = await startRuntime(kit, {
      configureSession: () => (log.push("6 build new session"), kit.config()),
      rebind: (session) => void log.push(`7 rebind (${session.sessionManager.getSessionFile() === other ? "new" : "old"} session)`),
    });
    other = await writeOtherSession(kit);
    log.length = 0;
    recorder(runtime, log);
    const result = await runtime.switchSession(other, options(log));
    assert.deepEqual(result, { cancelled: false });
    assert.deepEqual(log, [
      "1 before_switch resume",
      "3 shutdown resume (target open, ctx old, old-live)",
      "4 dispose old session (old-live)",
      "6 build new session",
      "7 rebind (new session)",
      "8 start resume (ctx new, old-stale)",
      "9 withSession (has entries)",
    ]);
    assert.equal(runtime.session.sessionManager.getSessionFile(), other);
    await runtime.dispose();
  });

  it("newSession, fork and reload keep the same order", async () => {
    const runtime = await startRuntime(kit);
    const steps = (log: string[]) => log.map((line) => line.slice(0, 1)).join("");

    let log: string[] = [];
    recorder(runtime, log);
    await runtime.newSession(options(log));
    assert.equal(steps(log), "13489");
    assert.match(log[1]!, /shutdown new \(target open/);

    kit.server.script(reply.text("answer in new"));
    await runtime.session.prompt("question in new");
    const user = runtime.session.getBranch().find((e) => e.type === "message" && e.message.role === "user")!;
    log = [];
    recorder(runtime, log);
    const fork = await runtime.fork(user.id, options(log));
    assert.equal(fork.selectedText, "question in new");
    assert.equal(steps(log), "13489");
    assert.match(log[0]!, /before_fork before/);

    log = [];
    recorder(runtime, log);
    await runtime.reload(options(log));
    assert.equal(steps(log), "3489", "reload has no before-event");
    assert.match(log[0]!, /shutdown reload/);
    assert.match(log[2]!, /start reload/);
    await runtime.dispose();
  });

  it("a cancel on session_before_switch or session_before_fork leaves everything as it was", async () => {
    const runtime = await startRuntime(kit);
    const session = runtime.session;
    const context = runtime.createContext();
    const other = await writeOtherSession(kit);
    const seen: string[] = [];
    runtime.extensions.register({
      name: "veto",
      handlers: {
        session_before_switch: (e) => (seen.push(e.reason), { cancel: true }),
        session_before_fork: () => ({ cancel: true }),
        session_shutdown: () => void seen.push("shutdown"),
      },
    });
    const leaf = session.sessionManager.getLeafId()!;
    const imported = join(kit.root, "to-import.jsonl");
    writeFileSync(imported, readFileSync(other));
    assert.deepEqual(await runtime.switchSession(other), { cancelled: true });
    assert.deepEqual(await runtime.newSession(), { cancelled: true });
    assert.deepEqual(await runtime.importFromJsonl(imported), { cancelled: true });
    assert.deepEqual(await runtime.fork(leaf, { position: "at" }), { cancelled: true });
    assert.deepEqual(await runtime.clone(), { cancelled: true });
    assert.deepEqual(seen, ["resume", "new", "resume"], "no shutdown after a cancel");
    assert.equal(runtime.session, session);
    assert.equal(context.getLeafId(), leaf, "the context stays live");
    assert.equal(existsSync(lockPathFor(other)), false, "the cancelled target was never opened");
    assert.equal(existsSync(join(kit.sessionDir, basename(imported))), false, "nothing was imported");
    await runtime.dispose();
  });

  it("a before-handler that throws is reported and does not cancel", async () => {
    const runtime = await startRuntime(kit);
    const reports: string[] = [];
    runtime.extensions.onDidReportError((r) => reports.push(`${r.extension}:${r.event}:${r.error.message}`));
    runtime.extensions.register({ name: "broken", handlers: { session_before_switch: () => { throw new Error("kaput"); } } });
    const other = await writeOtherSession(kit);
    assert.deepEqual(await runtime.switchSession(other), { cancelled: false });
    assert.equal(runtime.session.sessionManager.getSessionFile(), other);
    assert.deepEqual(reports, ["broken:session_before_switch:kaput"]);
    await runtime.dispose();
  });

  it("forks write a new file linked to the old one, which Pi reads as we do; clone keeps the whole path", async () => {
    const runtime = await startRuntime(kit);
    const original = runtime.session.sessionManager.getSessionFile()!;
    kit.server.script(reply.text("second answer"));
    await runtime.session.prompt("second question");
    const entries = runtime.session.getBranch();
    const secondUser = entries.find((e) => e.type === "message" && JSON.stringify(e).includes("second question"))!;

    const before = await runtime.fork(secondUser.id);
    assert.equal(before.selectedText, "second question");
    const forked = runtime.session.sessionManager;
    assert.notEqual(forked.getSessionFile(), original);
    assert.equal(forked.getHeader().parentSession, original);
    assert.equal(forked.getLeafId(), secondUser.parentId);
    await forked.flush();
    await assertPiReadsSame(forked.getSessionFile()!, forked.buildSessionContext());

    const cloned = await runtime.clone();
    assert.deepEqual(cloned, { cancelled: false });
    const clone = runtime.session.sessionManager;
    assert.deepEqual(clone.getPathIds(), forked.getPathIds());
    await assert.rejects(runtime.fork("nope"), (e: unknown) => e instanceof RuntimeError && e.code === "invalid-fork-target");
    const assistantId = clone.getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!.id;
    await assert.rejects(runtime.fork(assistantId), (e: unknown) => e instanceof RuntimeError && e.code === "invalid-fork-target");
    await runtime.dispose();
  });

  it("imports a session file into the sessions folder without overwriting a different file of the same name", async () => {
    const runtime = await startRuntime(kit);
    const other = await writeOtherSession(kit);
    const outside = join(kit.root, "elsewhere");
    mkdirSync(outside);
    const source = join(outside, basename(other));
    const text = readFileSync(other, "utf8").replace("other answer", "changed answer");
    writeFileSync(source, text);
    await runtime.importFromJsonl(source);
    const imported = runtime.session.sessionManager.getSessionFile()!;
    assert.notEqual(imported, other);
    assert.equal(readFileSync(imported, "utf8"), text);
    assert.match(readFileSync(other, "utf8"), /other answer/, "the existing file is untouched");
    await assert.rejects(runtime.importFromJsonl(join(outside, "missing.jsonl")), (e: unknown) => e instanceof RuntimeError && e.code === "import-not-found");
    await runtime.dispose();
  });

  it("a stored cwd that no longer exists gives a typed error and changes nothing; cwdOverride continues", async () => {
    const runtime = await startRuntime(kit);
    const session = runtime.session;
    const gone = join(kit.root, "deleted-project");
    const file = await writeOtherSession(kit, gone);
    const error = await runtime.switchSession(file).then(
      () => assert.fail("should have thrown"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof MissingSessionCwdError);
    assert.equal(error.code, "missing-cwd");
    assert.equal(error.sessionCwd, gone);
    assert.equal(error.fallbackCwd, kit.cwd);
    assert.match(error.message, /no longer exists/);
    assert.equal(runtime.session, session);
    await runtime.switchSession(file, { cwdOverride: error.fallbackCwd });
    assert.equal(runtime.cwd, kit.cwd);
    await runtime.dispose();
  });

  it("a session held by another window opens as a read-only session that refuses prompts and can be forked", async () => {
    const runtime = await startRuntime(kit);
    const other = await writeOtherSession(kit);
    const holder = await SessionManager.open(other);
    await runtime.switchSession(other);
    assert.equal(runtime.session.isReadOnly(), true);
    await assert.rejects(runtime.session.prompt("hi"), (e: unknown) => e instanceof AgentError && e.code === "read-only");
    // What the UI offers next: a fork, which is a session of its own that can be written.
    await runtime.clone();
    assert.equal(runtime.session.isReadOnly(), false);
    assert.equal(runtime.session.sessionManager.getHeader().parentSession, other);
    kit.server.script(reply.text("answered in the fork"));
    const answered = await runtime.session.prompt("hi again");
    assert.equal(answered.kind === "reply" && answered.message.stopReason, "stop");
    await holder.close();
    await runtime.dispose();
  });

  it("dispose emits session_shutdown (quit), closes the session and releases its file", async () => {
    const runtime = await startRuntime(kit);
    const file = runtime.session.sessionManager.getSessionFile()!;
    const reasons: string[] = [];
    runtime.extensions.register({ name: "r", handlers: { session_shutdown: (e) => void reasons.push(e.reason) } });
    assert.equal(existsSync(lockPathFor(file)), true);
    await runtime.dispose();
    assert.deepEqual(reasons, ["quit"]);
    assert.equal(runtime.session.isDisposed(), true);
    assert.equal(existsSync(lockPathFor(file)), false);
    assert.ok(readLines(file).length >= 3);
    await assert.rejects(runtime.newSession(), (e: unknown) => e instanceof RuntimeError && e.code === "disposed");
  });
});
