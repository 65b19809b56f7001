/**
 * Regression: an extension context captured before a session replacement must never write again,
 * neither to the new session file nor to the old one, and every call on it throws the one stale
 * message (STALE_CONTEXT_MESSAGE).
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import type { AgentSessionRuntime } from "../../src/core/runtime/agent-session-runtime";
import type { ExtensionContext } from "../../src/core/runtime/extension-api";
import { STALE_CONTEXT_MESSAGE, StaleContextError } from "../../src/core/runtime/extension-context";
import { reply } from "../support/scripted-openai-server";
import { makeKit, startRuntime, writeOtherSession, type AgentKit } from "./agent-harness.test";

const PROBE = "stale-probe";

/** Every member of a context, called (getters read); each must throw the stale error. */
function assertEveryMemberThrowsStale(context: ExtensionContext, leafId: string): void {
  const calls: [string, () => unknown][] = [
    ["sessionId", () => context.sessionId],
    ["sessionFile", () => context.sessionFile],
    ["cwd", () => context.cwd],
    ["readOnly", () => context.readOnly],
    ["appendEntry", () => context.appendEntry(PROBE, { n: 1 })],
    ["sendMessage", () => context.sendMessage({ customType: PROBE, content: "hi" })],
    ["setLabel", () => context.setLabel(leafId, PROBE)],
    ["setSessionName", () => context.setSessionName(PROBE)],
    ["getSessionName", () => context.getSessionName()],
    ["getLeafId", () => context.getLeafId()],
    ["getEntry", () => context.getEntry(leafId)],
    ["getBranch", () => context.getBranch()],
    ["getTree", () => context.getTree()],
    ["getLabel", () => context.getLabel(leafId)],
    ["sendUserMessage", () => context.sendUserMessage(PROBE)],
    ["isIdle", () => context.isIdle()],
    ["waitForIdle", () => context.waitForIdle()],
    ["newSession", () => context.newSession()],
    ["switchSession", () => context.switchSession("/nowhere.jsonl")],
    ["fork", () => context.fork(leafId)],
    ["navigateTree", () => context.navigateTree(leafId)],
  ];
  const members = new Set([...Object.keys(context), ...Object.getOwnPropertyNames(context)]);
  assert.deepEqual([...members].sort(), calls.map(([name]) => name).sort(), "the test covers every member");
  for (const [name, call] of calls) {
    assert.throws(call, (error: unknown) => {
      assert.ok(error instanceof StaleContextError, `${name} throws StaleContextError`);
      assert.equal(error.message, STALE_CONTEXT_MESSAGE);
      return true;
    });
  }
}

/** How many probe writes a session file holds (custom, custom_message, label and session_info entries). */
function probesIn(file: string | undefined): number {
  if (!file || !existsSync(file)) return 0;
  return readFileSync(file, "utf8").split(PROBE).length - 1;
}

describe("stale extension contexts", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  type WithSession = (ctx: ExtensionContext) => void;
  const replacements: [string, (runtime: AgentSessionRuntime, kit: AgentKit, withSession: WithSession) => Promise<unknown>][] = [
    ["switchSession", async (runtime, k, withSession) => runtime.switchSession(await writeOtherSession(k), { withSession })],
    ["newSession", (runtime, _k, withSession) => runtime.newSession({ withSession })],
    ["fork", (runtime, _k, withSession) => runtime.fork(runtime.session.sessionManager.getLeafId()!, { position: "at", withSession })],
    ["reload", (runtime, _k, withSession) => runtime.reload({ withSession })],
  ];

  for (const [name, replace] of replacements) {
    it(`after ${name}, an old context throws the stale message and writes to neither file`, async () => {
      const runtime = await startRuntime(kit);
      const oldFile = runtime.session.sessionManager.getSessionFile();
      const leaf = runtime.session.sessionManager.getLeafId()!;
      const old = runtime.createContext();
      old.appendEntry("live-write", { ok: true });

      let fresh: ExtensionContext | undefined;
      await replace(runtime, kit, (ctx) => void (fresh = ctx));
      assertEveryMemberThrowsStale(old, leaf);

      // The fresh context works, and writes only where it should.
      assert.ok(fresh);
      fresh.appendEntry("fresh-write", { ok: true });
      kit.server.script(reply.text("an answer so the new file exists"));
      await runtime.session.prompt("hello");
      await runtime.session.sessionManager.flush();
      const newFile = runtime.session.sessionManager.getSessionFile();
      assert.equal(probesIn(oldFile), 0, "nothing reached the old file");
      assert.equal(probesIn(newFile), 0, "nothing reached the new file");
      assert.match(readFileSync(newFile!, "utf8"), /fresh-write/);
      assert.match(readFileSync(oldFile!, "utf8"), /live-write/, "writes made while live were kept");
      await runtime.dispose();
      assert.throws(() => fresh!.getLeafId(), { message: STALE_CONTEXT_MESSAGE });
    });
  }

  it("a context handed to a handler goes stale too, and withSession's context is bound to the new session", async () => {
    const runtime = await startRuntime(kit);
    let fromShutdown: ExtensionContext | undefined;
    runtime.extensions.register({ name: "keeper", handlers: { session_shutdown: (_e, ctx) => void (fromShutdown = ctx) } });
    let inCallback: string | undefined;
    await runtime.newSession({ withSession: (ctx) => void (inCallback = ctx.sessionId) });
    assert.equal(inCallback, runtime.session.sessionManager.getSessionId());
    assert.throws(() => fromShutdown!.appendEntry(PROBE), { message: STALE_CONTEXT_MESSAGE });
    await runtime.dispose();
  });
});
