/**
 * Tool safety, reads outside the session's folder: the read, grep, find and ls calls of the model
 * ask (Allow once / Allow for this session / Deny) instead of failing; the workspace's folders and
 * the host's readable roots (skill folders) read without asking; a link inside that leads out asks
 * too. Real tool calls through the scripted OpenAI-compatible server, real files.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "../../src/core/agent/safety/approvals";
import { findOnPath } from "../../src/core/agent/tools/ripgrep";
import type { SessionManager } from "../../src/core/session/session-manager";
import type { ToolResultMessage } from "../../src/core/session/types";
import { scriptedApprover, textOf } from "../support/scripted-approvals";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, type AgentKit } from "./agent-harness.test";

function results(sm: SessionManager): ToolResultMessage[] {
  return sm.getBranch().flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
}


describe("tool safety: reads outside the session's folder", () => {
  let kit: AgentKit;
  let outside: string;
  beforeEach(async () => {
    kit = await makeKit();
    outside = join(kit.root, "elsewhere");
    mkdirSync(join(outside, "deeper"), { recursive: true });
    writeFileSync(join(outside, "notes.md"), "outside words\n");
    writeFileSync(join(outside, "deeper", "more.md"), "outside words again\n");
  });
  afterEach(async () => kit.cleanup());

  it("a read outside asks with the real path; Allow once reads it, the next one asks again, Deny reads nothing", async () => {
    const host = scriptedApprover("once", "deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    kit.server.script(
      reply.toolCall({ name: "read", arguments: { path: "../elsewhere/notes.md" } }),
      reply.toolCall({ name: "read", arguments: { path: join(outside, "deeper", "more.md") } }),
      reply.text("done"),
    );
    await session.prompt("read them");
    assert.deepEqual(host.asked, [
      { kind: "outside-read", toolName: "read", toolCallId: "call_1", requested: "../elsewhere/notes.md", path: join(outside, "notes.md"), cwd: kit.cwd, workspaceFolders: [kit.cwd] },
      { kind: "outside-read", toolName: "read", toolCallId: "call_1", requested: join(outside, "deeper", "more.md"), path: join(outside, "deeper", "more.md"), cwd: kit.cwd, workspaceFolders: [kit.cwd] },
    ]);
    const [allowed, denied] = results(sm);
    assert.equal(allowed!.isError, false);
    assert.equal(textOf(allowed!), "outside words\n");
    assert.equal(denied!.isError, true);
    assert.match(textOf(denied!), /^The user denied this read of .*more\.md, which is outside the session's folder/);
    await session.close();
    await sm.close();
  });

  it("Allow for this session lets later reads outside through without asking, searches included", async function () {
    if (!findOnPath("rg")) this.skip();
    const host = scriptedApprover("session");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    kit.server.script(
      reply.toolCall({ name: "ls", arguments: { path: outside } }),
      reply.toolCall([
        { name: "grep", arguments: { pattern: "words", path: outside } },
        { name: "find", arguments: { pattern: "*.md", path: outside } },
        { name: "read", arguments: { path: join(outside, "notes.md") } },
      ]),
      reply.text("done"),
    );
    await session.prompt("look around");
    assert.equal(host.asked.length, 1, "asked once");
    const [ls, grep, find, read] = results(sm).map(textOf);
    assert.equal(ls, "deeper/\nnotes.md");
    assert.equal(grep, "deeper/more.md:1: outside words again\nnotes.md:1: outside words");
    assert.equal(find, "deeper/more.md\nnotes.md");
    assert.equal(read, "outside words\n");
    await session.close();
    await sm.close();
  });

  it("the workspace's folders and the host's readable roots read without asking; other places still ask", async () => {
    const skills = join(kit.root, "skills");
    const other = join(kit.root, "other-folder");
    mkdirSync(join(skills, "review"), { recursive: true });
    mkdirSync(other);
    writeFileSync(join(skills, "review", "SKILL.md"), "# Review\n");
    writeFileSync(join(other, "a.txt"), "in another workspace folder\n");
    let roots: string[] = [skills];
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, workspaceFolders: [kit.cwd, other], readableRoots: () => roots } });
    kit.server.script(
      reply.toolCall([
        { name: "read", arguments: { path: join(skills, "review", "SKILL.md") } },
        { name: "read", arguments: { path: "../other-folder/a.txt" } },
      ]),
      reply.text("done"),
    );
    await session.prompt("read the skill");
    assert.equal(host.asked.length, 0);
    assert.deepEqual(results(sm).map(textOf), ["# Review\n", "in another workspace folder\n"]);
    // The roots are asked for on every call: once the host drops a folder, reading it asks.
    roots = [];
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: join(skills, "review", "SKILL.md") } }), reply.text("done"));
    await session.prompt("again");
    assert.equal(host.asked.length, 1);
    assert.equal(host.asked[0]!.kind, "outside-read");
    assert.equal(results(sm).at(-1)!.isError, true);
    await session.close();
    await sm.close();
  });

  it("a link inside the folder that leads out asks about where it leads, and reads it once allowed", async () => {
    symlinkSync(join(outside, "notes.md"), join(kit.cwd, "link.md"));
    const host = scriptedApprover("once");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "link.md" } }), reply.text("done"));
    await session.prompt("read the link");
    assert.equal(host.asked.length, 1);
    assert.equal((host.asked[0] as Extract<ApprovalRequest, { kind: "outside-read" }>).path, join(outside, "notes.md"));
    assert.equal(textOf(results(sm)[0]!), "outside words\n");
    await session.close();
    await sm.close();
  });

  it("auto-approve 'commands' covers reads outside; 'never' asks", async () => {
    const { sm, session } = await makeSession(kit, { toolPolicy: { autoApprove: "commands" } });
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: join(outside, "notes.md") } }), reply.text("done"));
    await session.prompt("read");
    assert.equal(textOf(results(sm)[0]!), "outside words\n");
    await session.close();
    await sm.close();
  });
});
