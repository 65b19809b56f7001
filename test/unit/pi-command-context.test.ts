/**
 * Issue 8.1, last rule: the stale-context error tells an extension to do follow-up work in
 * `withSession`, so a Pi command's context must offer what Pi's does: `waitForIdle`,
 * `navigateTree`, `newSession`, `fork` and `switchSession`, the last three with `withSession`,
 * whose context is bound to the new session (and awaits `sendMessage`), while the context and
 * `pi` the command was given go stale and say so.
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { STALE_CONTEXT_MESSAGE } from "../../src/core/runtime/extension-context";
import { reply } from "../support/scripted-openai-server";
import { makeKit, writeOtherSession, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

/** A command per control; each reports through globalThis.__controls what it saw. */
const CONTROLS = `export default function (pi) {
  const log = (line) => (globalThis.__controls ??= []).push(line);
  pi.registerCommand("go", { handler: async (args, ctx) => {
    await ctx.waitForIdle();
    const [op, target] = args.split(" ");
    if (op === "tree") {
      const result = await ctx.navigateTree(target);
      log("tree cancelled=" + result.cancelled + " leaf=" + ctx.sessionManager.getLeafId());
      return;
    }
    const before = ctx.sessionManager.getSessionFile();
    const withSession = async (fresh) => {
      await fresh.sendMessage({ customType: "controls", content: "after " + op, display: true });
      log(op + " fresh=" + (fresh.sessionManager.getSessionFile() !== before ? "new file" : "same file"));
      try { ctx.sessionManager.getLeafId(); log("old ctx works"); } catch (e) { log("old ctx: " + e.message); }
      try { pi.getSessionName(); log("old pi works"); } catch (e) { log("old pi: " + e.message); }
    };
    const result = op === "new" ? await ctx.newSession({ withSession })
      : op === "fork" ? await ctx.fork(target, { position: "at", withSession })
      : await ctx.switchSession(target, { withSession });
    log(op + " cancelled=" + result.cancelled);
  } });
}`;

/** pi.sendMessage with and without Pi's options. */
const NOTES = `export default function (pi) {
  pi.registerCommand("note", { handler: async (args) => {
    pi.sendMessage({ customType: "note", content: "NOTE " + args }, args === "turn" ? { triggerTurn: true } : undefined);
  } });
}`;

describe("a Pi command's session controls (issue 8.1)", () => {
  let kit: AgentKit;
  beforeEach(async () => {
    kit = await makeKit();
    delete (globalThis as { __controls?: unknown }).__controls;
  });
  afterEach(async () => {
    delete (globalThis as { __controls?: unknown }).__controls;
    await kit.cleanup();
  });
  const log = (): string[] => (globalThis as { __controls?: string[] }).__controls ?? [];
  const stale = `old ctx: ${STALE_CONTEXT_MESSAGE}`;

  it("waitForIdle and navigateTree; newSession, fork and switchSession hand withSession a context of the new session, and the old one is stale", async () => {
    const other = await writeOtherSession(kit);
    const pi = await startWithExamples(kit, [], { extraFiles: { "controls.ts": CONTROLS } });
    const session = () => pi.runtime.session;
    assert.match(STALE_CONTEXT_MESSAGE, /withSession/, "the error names what to use");

    const firstReply = session().getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!;
    await pi.set.runCommand("go", `tree ${firstReply.id}`);
    assert.deepEqual(log(), [`tree cancelled=false leaf=${firstReply.id}`]);
    assert.equal(session().sessionManager.getLeafId(), firstReply.id);

    for (const [op, target] of [["fork", firstReply.id], ["new", ""], ["switch", other]] as const) {
      const from = log().length;
      const oldFile = session().sessionManager.getSessionFile();
      await pi.set.runCommand("go", `${op} ${target}`.trim());
      assert.deepEqual(log().slice(from), [`${op} fresh=new file`, stale, `old pi: ${STALE_CONTEXT_MESSAGE}`, `${op} cancelled=false`], op);
      const file = session().sessionManager.getSessionFile();
      assert.notEqual(file, oldFile, `${op} replaced the session`);
      if (op === "switch") assert.equal(file, other);
      // withSession's sendMessage went to the new session (and was awaited before the command went on).
      const messages = session().getBranch().filter((e) => e.type === "custom_message");
      assert.deepEqual(messages.map((e) => e.type === "custom_message" && e.content), [`after ${op}`], op);
      await session().sessionManager.flush();
      if (file && existsSync(file)) assert.match(readFileSync(file, "utf8"), new RegExp(`after ${op}`));
    }
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("pi.sendMessage passes Pi's options on (triggerTurn has the model answer) and display as given", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "notes.ts": NOTES } });
    const session = pi.runtime.session;
    const calls = kit.server.requests.length;
    await pi.set.runCommand("note", "quiet");
    await until(() => session.getBranch().some((e) => e.type === "custom_message" && e.content === "NOTE quiet"));
    assert.equal(kit.server.requests.length, calls, "no turn without triggerTurn");
    kit.server.script(reply.text("answered the note"));
    await pi.set.runCommand("note", "turn");
    await until(() => kit.server.requests.length === calls + 1 && session.isIdle());
    await session.waitForIdle();
    const last = session.getBranch().at(-1)!;
    assert.ok(last.type === "message" && last.message.role === "assistant", "the model answered the note");
    await session.sessionManager.flush();
    const notes = readFileSync(session.sessionManager.getSessionFile()!, "utf8").split("\n").filter((l) => l.includes('"customType":"note"'));
    assert.equal(notes.length, 2);
    assert.ok(notes.every((l) => !l.includes('"display"')), "display absent stays absent");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), "timed out");
}
