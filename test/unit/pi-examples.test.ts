/**
 * The reference's own example extensions, loaded unchanged from node_modules through Arbor's loader
 * over a real runtime and the scripted model server (a headless UI stands in for VS Code's dialogs;
 * the extension-host suite drives the same files through VS Code's).
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadReference } from "../support/reference";
import { reply } from "../support/scripted-openai-server";
import { makeKit, readLines, sentMessages, writeOtherSession, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

describe("Pi's example extensions (unchanged)", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("bookmark.ts labels the last reply and unbookmark clears it; the reference reads the labels from the file", async () => {
    const pi = await startWithExamples(kit, ["bookmark.ts"]);
    const session = pi.runtime.session;
    assert.deepEqual(pi.set.commands().map((c) => c.name), ["bookmark", "unbookmark"]);
    assert.equal(await pi.set.runCommand("bookmark", "  keep this "), true);
    const reply = [...session.getBranch()].reverse().find((e) => e.type === "message" && e.message.role === "assistant")!;
    assert.equal(session.sessionManager.getLabel(reply.id), "keep this");
    assert.deepEqual(pi.ui.notifications.at(-1), { extension: "bookmark", message: "Bookmarked as: keep this", type: "info" });
    await session.sessionManager.flush();
    const file = session.sessionManager.getSessionFile()!;
    const ref = await loadReference();
    assert.equal(ref.SessionManager.open(file).getLabel(reply.id), "keep this");

    await pi.set.runCommand("unbookmark", "");
    await session.sessionManager.flush();
    assert.equal(ref.SessionManager.open(file).getLabel(reply.id), undefined);
    assert.equal(pi.ui.notifications.at(-1)?.message, "Removed bookmark: keep this");
    assert.equal(await pi.set.runCommand("no-such-command", ""), false);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("session-name.ts names the session and reads the name back; the reference shows the name", async () => {
    const pi = await startWithExamples(kit, ["session-name.ts"]);
    await pi.set.runCommand("session-name", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "No session name set");
    await pi.set.runCommand("session-name", "Refactor the parser");
    await pi.set.runCommand("session-name", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Session: Refactor the parser");
    const sm = pi.runtime.session.sessionManager;
    await sm.flush();
    const ref = await loadReference();
    assert.equal(ref.SessionManager.open(sm.getSessionFile()!).getSessionName(), "Refactor the parser");
    await pi.runtime.dispose();
  });

  it("confirm-destructive.ts: a new session, a switch and a fork the user cancels change nothing; accepted ones go ahead", async () => {
    const other = await writeOtherSession(kit);
    const pi = await startWithExamples(kit, ["confirm-destructive.ts"]);
    const file = pi.runtime.session.sessionManager.getSessionFile()!;
    const before = readFileSync(file, "utf8");
    const question = pi.runtime.session.getBranch().find((e) => e.type === "message" && e.message.role === "user")!.id;

    pi.ui.answer(false);
    assert.equal((await pi.runtime.newSession()).cancelled, true);
    pi.ui.answer(false);
    assert.equal((await pi.runtime.switchSession(other)).cancelled, true);
    pi.ui.answer("No, stay in current session");
    assert.equal((await pi.runtime.fork(question)).cancelled, true);
    assert.deepEqual(pi.ui.calls.filter((c) => !c.startsWith("notify")), ["confirm: Clear session?", "confirm: Switch session?", `select: Fork from entry ${question.slice(0, 8)}?`]);
    assert.deepEqual(pi.ui.notifications.map((n) => n.message), ["Clear cancelled", "Switch cancelled", "Fork cancelled"]);
    assert.equal(pi.runtime.session.sessionManager.getSessionFile(), file, "still in the same session");
    assert.equal(readFileSync(file, "utf8"), before, "the session file is unchanged");

    pi.ui.answer("Yes, create fork");
    const forked = await pi.runtime.fork(question);
    assert.equal(forked.cancelled, false);
    const forkFile = pi.runtime.session.sessionManager.getSessionFile()!;
    assert.notEqual(forkFile, file);
    // The new session's instance of the extension asks again (extensions are made anew per session).
    pi.ui.answer(true);
    assert.equal((await pi.runtime.switchSession(other)).cancelled, false);
    assert.equal(pi.runtime.session.sessionManager.getSessionFile(), other);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("protected-paths.ts blocks a write to .env, the model reads why, and nothing is written", async () => {
    const pi = await startWithExamples(kit, ["protected-paths.ts"]);
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: ".env", content: "SECRET=1" } }), reply.text("Understood."));
    await pi.runtime.session.prompt("put a secret in .env");
    assert.equal(existsSync(join(kit.cwd, ".env")), false);
    const toolMessage = (sentMessages(kit.server, 2) as { role: string; content: string }[]).find((m) => m.role === "tool");
    assert.match(toolMessage!.content, /Path "\.env" is protected/);
    assert.deepEqual(pi.ui.notifications.at(-1), { extension: "protected-paths", message: "Blocked write to protected path: .env", type: "warning" });
    await pi.runtime.dispose();
  });

  it("trigger-compact.ts: /trigger-compact compacts the session with the given instructions", async () => {
    const pi = await startWithExamples(kit, ["trigger-compact.ts"]);
    kit.server.script(reply.text("second answer"));
    await pi.runtime.session.prompt("second question");
    kit.server.script(reply.text("## Goal\nA summary."));
    const done = new Promise<void>((resolve) => {
      const sub = pi.runtime.session.onEvent((e) => e.type === "compaction_end" && (sub.dispose(), resolve()));
    });
    await pi.set.runCommand("trigger-compact", "focus on the parser");
    await done;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(pi.ui.notifications.map((n) => n.message), ["Compaction started", "Compaction completed"]);
    const sm = pi.runtime.session.sessionManager;
    await sm.flush();
    const compaction = readLines(sm.getSessionFile()!).find((l) => l.type === "compaction");
    assert.ok(compaction, "a compaction entry is in the file");
    const summaryRequest = JSON.stringify(kit.server.requests.at(-1)!.body);
    assert.match(summaryRequest, /focus on the parser/);
    await pi.runtime.dispose();
  });

  it("an extension that throws in a handler, hangs in a before-event or calls an unsupported UI method does not break the session, and says which one", async () => {
    const pi = await startWithExamples(kit, ["hello.ts"], {
      timeoutMs: 300,
      extraFiles: {
        "thrower.ts": `export default function (pi) { pi.on("before_agent_start", () => { throw new Error("thrower broke"); }); }`,
        "hanger.ts": `export default function (pi) { pi.on("session_before_switch", () => new Promise(() => {})); }`,
        "tui.ts": `export default function (pi) {
          pi.registerCommand("panel", { handler: async (_a, ctx) => { ctx.ui.setFooter(() => ({})); ctx.ui.notify("still here", "info"); } });
        }`,
      },
    });
    kit.server.script(reply.text("fine"));
    await pi.runtime.session.prompt("go on");
    assert.equal(pi.runtime.session.getBranch().at(-1)!.type, "message", "the reply was recorded");
    assert.ok(pi.reports.some((r) => r.startsWith("thrower/before_agent_start: thrower broke")), pi.reports.join("\n"));

    const other = await writeOtherSession(kit);
    const switched = await pi.runtime.switchSession(other);
    assert.equal(switched.cancelled, false, "a handler that hangs does not hold the switch");
    assert.ok(pi.reports.some((r) => r.startsWith("hanger/session_before_switch:") && /0\.3 s|300 ?ms|time/.test(r)), pi.reports.join("\n"));

    await pi.set.runCommand("panel", "");
    assert.ok(pi.reports.some((r) => r.startsWith("tui/ui:") && r.includes("ctx.ui.setFooter()") && r.includes("tui")), pi.reports.join("\n"));
    assert.equal(pi.ui.notifications.at(-1)?.message, "still here", "the rest of the extension keeps working");
    await pi.runtime.dispose();
  });

  it("contexts of an ended session throw the stale-context error, for pi and ctx alike", async () => {
    const pi = await startWithExamples(kit, [], {
      extraFiles: { "keeper.ts": `export default function (pi) { pi.registerCommand("keep", { handler: async (_a, ctx) => { globalThis.__kept = { pi, ctx }; } }); }` },
    });
    await pi.set.runCommand("keep", "");
    const kept = (globalThis as { __kept?: { pi: { getSessionName(): unknown }; ctx: { cwd: string } } }).__kept!;
    assert.equal(kept.ctx.cwd, kit.cwd);
    await pi.runtime.newSession();
    assert.throws(() => kept.pi.getSessionName(), /stale/i);
    assert.throws(() => kept.ctx.cwd, /stale/i);
    delete (globalThis as { __kept?: unknown }).__kept;
    await pi.runtime.dispose();
  });
});
