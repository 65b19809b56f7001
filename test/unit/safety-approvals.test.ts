/**
 * Tool safety, approvals: the model's commands and its writes outside the workspace wait for the
 * user (Allow once / Allow for this session / Deny), a denial reaches the model as the call's
 * result, the auto-approve setting lets calls through, a session folder outside the workspace is
 * asked about once, and a session without a working folder runs nothing. Real tool calls through
 * the scripted OpenAI-compatible server; real files and commands.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession } from "../../src/core/agent/agent-session";
import { AgentError } from "../../src/core/agent/errors";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { approvalRequestFor, deniedMessage, isAutoApproved, type ApprovalAnswer, type ApprovalRequest, type AutoApprove } from "../../src/core/agent/safety/approvals";
import { DEFAULT_PROTECTED_PATTERNS } from "../../src/core/agent/safety/protected-paths";
import { NO_WORKING_FOLDER_MESSAGE } from "../../src/core/agent/safety/working-folder";
import type { ToolPolicy } from "../../src/core/agent/tool-runner";
import { createBashTool, createFindTool, createGrepTool, createLsTool, createReadTool, createWriteTool } from "../../src/core/agent/tools";
import type { AgentTool } from "../../src/core/agent/tools/tool";
import { SessionManager } from "../../src/core/session/session-manager";
import { scriptedApprover, textOf, toolResults } from "../support/scripted-approvals";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, nextEvent, recordEvents, sentMessages, type AgentKit } from "./agent-harness.test";



const touch = (name: string) => ({ name: "bash", arguments: { command: `touch ${name}` } });

describe("tool safety: approvals", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("a bash call asks with the exact command and folder; Allow once runs it, and the next call asks again", async () => {
    const host = scriptedApprover("once", "once");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    kit.server.script(reply.toolCall(touch("first")), reply.toolCall(touch("second")), reply.text("done"));
    await session.prompt("make two files");
    assert.deepEqual(host.asked, [
      { kind: "command", toolName: "bash", toolCallId: "call_1", command: "touch first", cwd: kit.cwd },
      { kind: "command", toolName: "bash", toolCallId: "call_1", command: "touch second", cwd: kit.cwd },
    ]);
    assert.ok(existsSync(join(kit.cwd, "first")) && existsSync(join(kit.cwd, "second")));
    assert.ok(toolResults(sm).every((r) => !r.isError));
    await session.close();
    await sm.close();
  });

  it("Deny runs nothing, records the denial as the call's result, and the model reads it", async () => {
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    kit.server.script(reply.toolCall(touch("denied-marker")), reply.text("understood"));
    await session.prompt("make a file");
    assert.equal(existsSync(join(kit.cwd, "denied-marker")), false, "the denied command did not run");
    const [result] = toolResults(sm);
    assert.equal(result!.isError, true);
    assert.equal(textOf(result!), deniedMessage(host.asked[0]!, true));
    assert.match(textOf(result!), /^The user denied this command/);
    // The next request carries the denial to the model.
    assert.match(JSON.stringify(sentMessages(kit.server, 1)), /The user denied this command/);
    await session.close();
    await sm.close();
  });

  it("Allow for this session covers later commands of the session, and a new agent session asks again", async () => {
    const host = scriptedApprover("session", "once");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    const events = recordEvents(session);
    kit.server.script(reply.toolCall(touch("a")), reply.toolCall(touch("b")), reply.text("ok"));
    await session.prompt("two files");
    kit.server.script(reply.toolCall(touch("c")), reply.text("ok"));
    await session.prompt("one more");
    assert.equal(host.asked.length, 1, "asked only for the first command");
    assert.ok(["a", "b", "c"].every((f) => existsSync(join(kit.cwd, f))));
    const resolved = events.events.filter((e): e is Extract<AgentSessionEvent, { type: "approval_resolved" }> => e.type === "approval_resolved");
    assert.deepEqual(resolved.map((e) => e.by), ["user", "session-grant", "session-grant"]);
    await session.close();
    // The same file under a new agent session (what a replacement builds): the grant is gone.
    const again = new AgentSession({ ...kit.config({ toolPolicy: { approve: host.approve } }), sessionManager: sm });
    kit.server.script(reply.toolCall(touch("d")), reply.text("ok"));
    await again.prompt("after the replacement");
    assert.equal(host.asked.length, 2, "the new session asks again");
    await again.close();
    await sm.close();
  });

  it("with no one to ask, a command is denied; auto-approve lets it through, read live from the policy", async () => {
    let setting: AutoApprove = "never";
    const policy: ToolPolicy = {
      get autoApprove() {
        return setting;
      },
    };
    const { sm, session } = await makeSession(kit, { toolPolicy: policy });
    kit.server.script(reply.toolCall(touch("x")), reply.text("ok"));
    await session.prompt("try");
    assert.equal(existsSync(join(kit.cwd, "x")), false);
    assert.match(textOf(toolResults(sm)[0]!), /^No one could be asked to approve this command/);
    setting = "commands";
    kit.server.script(reply.toolCall(touch("y")), reply.text("ok"));
    await session.prompt("again");
    assert.equal(existsSync(join(kit.cwd, "y")), true, "the changed setting applies without rebuilding the session");
    await session.close();
    await sm.close();
  });

  it("Stop while the user is being asked cancels the call; nothing runs, and the model is not called again", async () => {
    let release!: (answer: ApprovalAnswer) => void;
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: () => new Promise<ApprovalAnswer>((resolve) => (release = resolve)) } });
    kit.server.script(reply.toolCall(touch("stopped")));
    const asking = nextEvent(session, (e) => e.type === "approval_requested");
    const running = session.prompt("go");
    await asking;
    session.abort();
    await running;
    release("once"); // a late answer changes nothing
    assert.equal(existsSync(join(kit.cwd, "stopped")), false);
    assert.match(textOf(toolResults(sm)[0]!), /cancelled/);
    assert.equal(kit.server.requests.length, 1);
    await session.close();
    await sm.close();
  });

  it("a write outside the workspace folders asks with the real target path; a write inside does not", async () => {
    // The session works in the parent of the open workspace folder.
    const workspace = join(kit.cwd, "app");
    mkdirSync(workspace);
    // The session's folder is outside the workspace too: the first answer allows it for the session.
    const folderHost = scriptedApprover("session", "deny", "once");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: folderHost.approve, workspaceFolders: [workspace] } });
    kit.server.script(
      reply.toolCall({ name: "write", arguments: { path: "app/inside.txt", content: "in" } }),
      reply.toolCall({ name: "write", arguments: { path: "notes/outside.txt", content: "out" } }),
      reply.toolCall({ name: "write", arguments: { path: "notes/outside.txt", content: "out again" } }),
      reply.text("ok"),
    );
    await session.prompt("write three times");
    assert.deepEqual(folderHost.asked.map((r) => r.kind), ["working-folder", "outside-write", "outside-write"]);
    const outside = folderHost.asked[1] as Extract<ApprovalRequest, { kind: "outside-write" }>;
    assert.equal(outside.path, join(kit.cwd, "notes/outside.txt"));
    assert.equal(outside.requested, "notes/outside.txt");
    assert.deepEqual(outside.workspaceFolders, [workspace]);
    assert.equal(readFileSync(join(workspace, "inside.txt"), "utf8"), "in", "inside the workspace: no question");
    const [, denied, allowed] = toolResults(sm);
    assert.match(textOf(denied!), /^The user denied this write of .*outside\.txt, which is outside the workspace/);
    assert.equal(allowed!.isError, false);
    assert.equal(readFileSync(join(kit.cwd, "notes/outside.txt"), "utf8"), "out again");
    await session.close();
    await sm.close();
  });

  it("a session whose folder is not in the open workspace asks once before its tools run; Deny holds for the prompt", async () => {
    const workspace = join(kit.root, "other-workspace");
    mkdirSync(workspace);
    writeFileSync(join(kit.cwd, "a.txt"), "alpha\n");
    const host = scriptedApprover("deny", "session");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, workspaceFolders: [workspace] } });
    assert.equal(session.getToolRestrictions().foreignFolder, kit.cwd);
    kit.server.script(
      reply.toolCall([{ id: "r1", name: "read", arguments: { path: "a.txt" } }, { id: "r2", name: "read", arguments: { path: "a.txt" } }]),
      reply.text("no access"),
    );
    await session.prompt("read twice");
    assert.deepEqual(host.asked, [{ kind: "working-folder", cwd: kit.cwd, workspaceFolders: [workspace] }], "asked once for both calls");
    assert.ok(toolResults(sm).every((r) => r.isError && /did not allow|denied running tools in this session's folder/.test(textOf(r))));
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "a.txt" } }), reply.toolCall({ name: "read", arguments: { path: "a.txt" } }), reply.text("read it"));
    await session.prompt("now read it");
    assert.equal(host.asked.length, 2, "a new prompt asks again, and Allow for this session is not asked again");
    assert.equal(textOf(toolResults(sm).at(-1)!), "alpha\n");
    assert.equal(session.getToolRestrictions().foreignFolder, undefined);
    await session.close();
    await sm.close();
  });

  it("`!cmd` in a session folder outside the workspace asks first, and a denial runs nothing", async () => {
    const host = scriptedApprover("deny");
    const sm = SessionManager.inMemory(kit.cwd);
    const session = new AgentSession({ sessionManager: sm, toolPolicy: { approve: host.approve, workspaceFolders: [join(kit.root, "elsewhere")] } });
    await assert.rejects(session.prompt("!touch bang"), (e: unknown) => e instanceof AgentError && e.code === "denied");
    assert.equal(existsSync(join(kit.cwd, "bang")), false);
    assert.equal(sm.getEntryCount(), 0);
    session.dispose();
  });

  it("a session whose header has an empty or missing cwd offers no tools, refuses calls and `!cmd` with a clear error", async () => {
    for (const header of [{ cwd: "" }, {}]) {
      const file = join(kit.sessionDir, `no-cwd-${Object.keys(header).length}.jsonl`);
      mkdirSync(kit.sessionDir, { recursive: true });
      writeFileSync(file, `${JSON.stringify({ type: "session", version: 3, id: "abc", timestamp: new Date().toISOString(), ...header })}\n`);
      const sm = await SessionManager.open(file);
      const session = new AgentSession({ ...kit.config({ toolPolicy: { autoApprove: "always" } }), sessionManager: sm });
      assert.deepEqual(session.getToolDefinitions(), []);
      assert.deepEqual(session.getToolRestrictions(), { shell: false, writes: false, reads: false, reason: NO_WORKING_FOLDER_MESSAGE });
      await assert.rejects(session.prompt("!touch nowhere"), (e: unknown) => e instanceof AgentError && e.code === "no-working-folder" && e.message === NO_WORKING_FOLDER_MESSAGE);
      kit.server.script(reply.toolCall(touch("nowhere")), reply.text("ok"));
      await session.prompt("try anyway");
      assert.equal(textOf(toolResults(sm)[0]!), NO_WORKING_FOLDER_MESSAGE);
      assert.equal(existsSync(join(process.cwd(), "nowhere")), false, "nothing ran in the host's own folder");
      await session.close();
      await sm.close();
    }
  });
});

describe("tool safety: extension tools that override a built-in", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  const override = (name: string, ran: string[]): AgentTool => ({
    definition: { name, description: `An extension's own ${name}.`, parameters: { type: "object", properties: {} } },
    execute: async (args) => (ran.push(JSON.stringify(args)), { content: [{ type: "text", text: "done by the extension" }] }),
  });

  it("an extension's `bash` still asks before each command, and a denial keeps its code from running", async () => {
    const ran: string[] = [];
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve } });
    session.setExtensionTools([override("bash", ran)]);
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "rm -rf build" } }), reply.text("ok"));
    await session.prompt("clean");
    assert.deepEqual(host.asked.map((r) => r.kind === "command" && r.command), ["rm -rf build"]);
    assert.deepEqual(ran, []);
    assert.match(textOf(toolResults(sm)[0]!), /^The user denied this command/);
    await session.close();
    await sm.close();
  });

  it("an extension's `write` still asks before writing outside the workspace; its `read` is not offered in Restricted Mode", async () => {
    const ran: string[] = [];
    const workspace = join(kit.cwd, "app");
    mkdirSync(workspace);
    // The session's own folder is outside the workspace: the first answer allows it for the session.
    const answers = scriptedApprover("session", "deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: answers.approve, workspaceFolders: [workspace] } });
    session.setExtensionTools([override("write", ran)]);
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: "notes.txt", content: "x" } }), reply.text("ok"));
    await session.prompt("write");
    assert.deepEqual(answers.asked.map((r) => r.kind), ["working-folder", "outside-write"]);
    assert.deepEqual(ran, []);
    await session.close();
    await sm.close();

    const restricted = await makeSession(kit, { allowShell: false, allowWrites: false });
    restricted.session.setExtensionTools([override("read", ran)]);
    assert.deepEqual(restricted.session.getToolDefinitions().map((d) => d.name), ["grep", "find", "ls"], "only the built-in searches, which are read-only");
    await restricted.session.close();
    await restricted.sm.close();
  });
});

describe("tool safety: approval rules", () => {
  it("which calls ask: every shell call; reads and writes outside the workspace; never reads or writes inside", () => {
    const cwd = "/work/project";
    const call = (name: string, args: Record<string, unknown>) => ({ type: "toolCall" as const, id: "c", name, arguments: args });
    assert.equal(approvalRequestFor(createBashTool(), call("bash", { command: "ls -la" }), cwd, undefined)?.kind, "command");
    assert.equal(approvalRequestFor(createReadTool(), call("read", { path: "src/a.ts" }), cwd, undefined), undefined);
    assert.deepEqual(approvalRequestFor(createReadTool(), call("read", { path: "/etc/hostname" }), cwd, undefined), {
      kind: "outside-read",
      toolName: "read",
      toolCallId: "c",
      requested: "/etc/hostname",
      path: "/etc/hostname",
      cwd,
      workspaceFolders: [cwd],
    });
    assert.equal(approvalRequestFor(createReadTool(), call("read", { path: "../other/a.ts" }), cwd, [cwd, "/work/other"]), undefined, "another workspace folder");
    assert.equal(approvalRequestFor(createReadTool(), call("read", { path: "/skills/x/SKILL.md" }), cwd, undefined, DEFAULT_PROTECTED_PATTERNS, ["/skills"]), undefined, "a readable root");
    assert.equal(approvalRequestFor(createGrepTool(), call("grep", { pattern: "x" }), cwd, undefined), undefined, "grep searches the cwd by default");
    assert.equal(approvalRequestFor(createFindTool(), call("find", { pattern: "*", path: "/" }), cwd, undefined)?.kind, "outside-read");
    assert.equal(approvalRequestFor(createLsTool(), call("ls", { path: "~" }), cwd, undefined)?.kind, "outside-read", "~ is the home folder");
    assert.equal(approvalRequestFor(createWriteTool(), call("write", { path: "src/a.ts" }), cwd, undefined), undefined);
    assert.equal(approvalRequestFor(createWriteTool(), call("write", { path: "src/a.ts" }), cwd, ["/work/project/src"]), undefined);
    assert.equal(approvalRequestFor(createWriteTool(), call("write", { path: "docs/a.md" }), cwd, ["/work/project/src"])?.kind, "outside-write");
    assert.equal(approvalRequestFor(createWriteTool(), call("write", { path: "../project-old/a" }), cwd, [cwd])?.kind, "outside-write");
  });

  it("what auto-approve covers: commands and outside reads, then also outside writes; never the session's folder", () => {
    const command: ApprovalRequest = { kind: "command", toolName: "bash", toolCallId: "c", command: "ls", cwd: "/w" };
    const read: ApprovalRequest = { kind: "outside-read", toolName: "read", toolCallId: "c", requested: "x", path: "/x", cwd: "/w", workspaceFolders: ["/w"] };
    const write: ApprovalRequest = { kind: "outside-write", toolName: "write", toolCallId: "c", requested: "x", path: "/x", cwd: "/w", workspaceFolders: ["/w"] };
    const folder: ApprovalRequest = { kind: "working-folder", cwd: "/elsewhere", workspaceFolders: ["/w"] };
    const table = (["never", "commands", "always"] as const).map((s) => [command, read, write, folder].map((r) => isAutoApproved(s, r)));
    assert.deepEqual(table, [
      [false, false, false, false],
      [true, true, false, false],
      [true, true, true, false],
    ]);
    assert.equal(isAutoApproved(undefined, command), false);
  });
});
