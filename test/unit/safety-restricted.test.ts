/**
 * Tool safety, Restricted Mode (an untrusted workspace): no `!cmd`, no bash tool, no writes or
 * edits, no tool that is not marked read-only; reading works; the session says why.
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentError, SHELL_DISABLED_MESSAGE, WRITES_DISABLED_MESSAGE } from "../../src/core/agent/errors";
import { READ_ONLY_REASON } from "../../src/core/agent/safety/tool-guard";
import { createCodingTools } from "../../src/core/agent/tools";
import type { AgentTool } from "../../src/core/agent/tools/tool";
import type { ToolResultMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, type AgentKit } from "./agent-harness.test";

const restricted = { allowShell: false, allowWrites: false, toolPolicy: { autoApprove: "always" as const } };

function results(branch: { type: string; message?: { role: string } }[]): ToolResultMessage[] {
  return branch.flatMap((e) => (e.type === "message" && e.message!.role === "toolResult" ? [e.message as ToolResultMessage] : []));
}
const text = (r: ToolResultMessage) => r.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("tool safety: Restricted Mode", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("offers only read-only tools, and says why", async () => {
    const { sm, session } = await makeSession(kit, restricted);
    assert.deepEqual(session.getToolDefinitions().map((d) => d.name), ["read", "grep", "find", "ls"]);
    assert.deepEqual(session.getToolRestrictions(), { shell: false, writes: false, reads: true, reason: READ_ONLY_REASON });
    kit.server.script(reply.text("ok"));
    await session.prompt("hello");
    const body = kit.server.requests[0]!.body as { tools?: { function: { name: string } }[] };
    assert.deepEqual(body.tools?.map((t) => t.function.name), ["read", "grep", "find", "ls"], "the model is offered the reading tools only");
    await session.close();
    await sm.close();
  });

  it("the host's reason is what the session gives", async () => {
    const { sm, session } = await makeSession(kit, { ...restricted, restrictionReason: "Restricted Mode: trust the folder to run commands." });
    assert.equal(session.getToolRestrictions().reason, "Restricted Mode: trust the folder to run commands.");
    await session.close();
    await sm.close();
  });

  it("refuses write, edit, bash and unmarked tools called anyway, changing nothing; read, grep, find and ls still work", async () => {
    writeFileSync(join(kit.cwd, "a.txt"), "alpha\n");
    let customRan = false;
    const custom: AgentTool = {
      definition: { name: "deploy", description: "Does something.", parameters: { type: "object", properties: {} } },
      execute: async () => ((customRan = true), { content: [{ type: "text", text: "deployed" }] }),
    };
    const { sm, session } = await makeSession(kit, { ...restricted, tools: [...createCodingTools(), custom] });
    kit.server.script(
      reply.toolCall([
        { id: "w", name: "write", arguments: { path: "a.txt", content: "changed" } },
        { id: "e", name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "alpha", newText: "beta" }] } },
        { id: "b", name: "bash", arguments: { command: "touch marker" } },
        { id: "d", name: "deploy", arguments: {} },
        { id: "r", name: "read", arguments: { path: "a.txt" } },
        { id: "g", name: "grep", arguments: { pattern: "alph" } },
        { id: "f", name: "find", arguments: { pattern: "*.txt" } },
        { id: "l", name: "ls", arguments: {} },
      ]),
      reply.text("ok"),
    );
    await session.prompt("try everything");
    const [w, e, b, d, r, g, f, l] = results(sm.getBranch());
    assert.equal(text(g!), "a.txt:1: alpha", "grep runs in Restricted Mode");
    assert.equal(text(f!), "a.txt");
    assert.ok(text(l!).split("\n").includes("a.txt"));
    assert.equal(text(w!), WRITES_DISABLED_MESSAGE);
    assert.equal(text(e!), WRITES_DISABLED_MESSAGE);
    assert.equal(text(b!), SHELL_DISABLED_MESSAGE);
    assert.match(text(d!), /not marked read-only/);
    assert.ok([w, e, b, d].every((x) => x!.isError));
    assert.equal(text(r!), "alpha\n");
    assert.equal(readFileSync(join(kit.cwd, "a.txt"), "utf8"), "alpha\n");
    assert.equal(existsSync(join(kit.cwd, "marker")), false);
    assert.equal(customRan, false);
    await session.close();
    await sm.close();
  });

  it("`!cmd` is refused with the clear message and records nothing", async () => {
    const { sm, session } = await makeSession(kit, restricted);
    await assert.rejects(session.prompt("!touch bang"), (error: unknown) => error instanceof AgentError && error.code === "shell-disabled");
    assert.equal(existsSync(join(kit.cwd, "bang")), false);
    assert.equal(sm.getEntryCount(), 0);
    await session.close();
    await sm.close();
  });

  it("outside Restricted Mode the same session offers every tool", async () => {
    const { sm, session } = await makeSession(kit, { toolPolicy: { autoApprove: "always" } });
    assert.deepEqual(session.getToolDefinitions().map((d) => d.name), ["read", "write", "edit", "bash", "grep", "find", "ls"]);
    assert.deepEqual(session.getToolRestrictions(), { shell: true, writes: true, reads: true });
    await session.close();
    await sm.close();
  });
});
