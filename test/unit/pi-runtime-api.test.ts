/**
 * Issue 8.2, the parts of Pi's ExtensionAPI that act on the runtime or on what the model receives,
 * from extension files loaded through Arbor's loader (jiti) over a real runtime and the scripted
 * server: `ctx.reload()` (the reference's reload-runtime.ts, unchanged, beside a file that records
 * Pi's order), a tool's `promptSnippet` / `promptGuidelines` in the system prompt the server gets,
 * and a tool that replaces a built-in by name (the reference's tool-override.ts, unchanged).
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "../../src/core/agent/safety/approvals";
import { STALE_CONTEXT_MESSAGE } from "../../src/core/runtime/extension-context";
import type { ToolResultMessage } from "../../src/core/session/types";
import { reply, type ScriptedServer } from "../support/scripted-openai-server";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

/** Records Pi's lifecycle as one extension sees it; VERSION is rewritten between loads. */
const RECORDER = `export default function (pi) {
  const g = (globalThis.__lifecycle ??= { log: [], apis: [] });
  const n = g.apis.push(pi);
  g.log.push("factory " + n + " VERSION");
  pi.on("session_shutdown", (e) => void g.log.push("shutdown " + e.reason + " in " + n + ("targetSessionFile" in e && e.targetSessionFile !== undefined ? " naming a target" : "")));
  pi.on("session_start", (e) => void g.log.push("start " + e.reason + " in " + n + (e.previousSessionFile !== undefined ? " naming a previous file" : "")));
}`;

const SNIPPETS = `import { Type } from "typebox";
export default function (pi) {
  const tool = (name, extra) => pi.registerTool({ name, label: name, description: name + " described", parameters: Type.Object({}), execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }), ...extra });
  tool("lookup_docs", {
    promptSnippet: "Look up the project's docs\\n  by topic",
    promptGuidelines: ["  Use lookup_docs before guessing an API.  ", "", "Use lookup_docs before guessing an API."],
  });
  tool("quiet_tool", {});
}`;

type Lifecycle = { log: string[]; apis: Record<string, (...args: unknown[]) => unknown>[] };
const lifecycle = (): Lifecycle => (globalThis as { __lifecycle?: Lifecycle }).__lifecycle ?? { log: [], apis: [] };

/** The system prompt and tool names of the chat-completions request `index`. */
function sent(server: ScriptedServer, index: number): { system: string; tools: string[] } {
  const body = server.requests.filter((r) => r.path.endsWith("/chat/completions"))[index]?.body as { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
  assert.ok(body, `request ${index} was sent`);
  const system = body.messages.find((m) => m.role === "system" || m.role === "developer");
  assert.ok(system && typeof system.content === "string", "a system prompt was sent");
  return { system: system.content, tools: (body.tools ?? []).map((t) => t.function.name) };
}

function toolResults(branch: readonly { type: string; message?: unknown }[]): ToolResultMessage[] {
  return branch.flatMap((e) => (e.type === "message" && (e.message as { role: string }).role === "toolResult" ? [e.message as ToolResultMessage] : []));
}
const textOf = (m: ToolResultMessage) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("Pi extensions: ctx.reload, prompt snippets, built-in overrides (issue 8.2)", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  beforeEach(async () => {
    kit = await makeKit();
    delete (globalThis as { __lifecycle?: unknown }).__lifecycle;
  });
  afterEach(async () => {
    delete (globalThis as { __lifecycle?: unknown }).__lifecycle;
    await kit.cleanup();
  });

  it("ctx.reload() (reload-runtime.ts): session_shutdown 'reload', the files loaded again, session_start 'reload' to the new instances, as Pi orders them", async () => {
    const pi = await startWithExamples(kit, ["reload-runtime.ts"], { extraFiles: { "recorder.js": RECORDER.replace("VERSION", "v1") } });
    assert.deepEqual(pi.reports, []);
    const session = pi.runtime.session;
    const file = session.sessionManager.getSessionFile();
    const oldApi = lifecycle().apis[0]!;
    // The file changes on disk: a reload reads it again, as Pi's /reload does.
    writeFileSync(join(pi.agentDir, "extensions", "recorder.js"), RECORDER.replace("VERSION", "v2"));
    await pi.set.runCommand("reload-runtime", "");
    assert.deepEqual(lifecycle().log, ["factory 1 v1", "start startup in 1", "shutdown reload in 1", "factory 2 v2", "start reload in 2"]);
    assert.notEqual(pi.runtime.session, session, "the agent session was rebuilt");
    assert.equal(pi.runtime.session.sessionManager.getSessionFile(), file, "over the same session");
    assert.throws(() => oldApi.getSessionName!(), { message: STALE_CONTEXT_MESSAGE }, "the old pi is stale");
    assert.equal(lifecycle().apis[1]!.getSessionName!(), undefined, "the new pi works");
    assert.ok(pi.set.commands().some((c) => c.name === "reload-runtime"), "the reloaded extension registered its command again");
    assert.ok(pi.runtime.session.getAllTools().some((t) => t.definition.name === "reload_runtime" && t.source === "reload-runtime"), "and its tool");
    await pi.runtime.dispose();
    assert.deepEqual(lifecycle().log.slice(5), ["shutdown quit in 2"], "only the current instance hears the quit");
  });

  it("ctx.reload() while a reply runs does nothing but warn, as Pi's /reload; the reply goes on", async () => {
    const pi = await startWithExamples(kit, [], {
      extraFiles: {
        "recorder.js": RECORDER.replace("VERSION", "v1"),
        "reloader.js": `export default function (pi) { pi.registerCommand("reload-now", { handler: async (_a, ctx) => { await ctx.reload(); ctx.ui.notify("returned", "info"); } }); }`,
      },
    });
    const session = pi.runtime.session;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    kit.server.script(reply.steps({ type: "chunk", delta: { role: "assistant", content: "still " } }, { type: "wait", until: held }, { type: "chunk", delta: { content: "here" } }, { type: "finish", finishReason: "stop" }));
    const replying = session.prompt("go on");
    while (session.isIdle()) await new Promise((r) => setImmediate(r));
    await pi.set.runCommand("reload-now", "");
    assert.deepEqual(pi.ui.notifications.map((n) => `${n.type}: ${n.message}`).slice(-2), [
      "warning: ctx.reload() did nothing: The session cannot be reloaded while a reply, compaction or shell command runs; wait for it to finish or stop it.",
      "info: returned",
    ]);
    release();
    await replying;
    assert.equal(pi.runtime.session, session, "not reloaded");
    assert.deepEqual(lifecycle().log, ["factory 1 v1", "start startup in 1"]);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("a tool's promptSnippet and promptGuidelines reach the system prompt the model receives (one line, trimmed, once), while it is active", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "snippets.js": SNIPPETS } });
    assert.deepEqual(pi.reports, []);
    kit.server.script(reply.text("ok"), reply.text("ok again"));
    const before = kit.server.requests.length;
    await pi.runtime.session.prompt("what can you do?");
    const first = sent(kit.server, kit.server.requests.filter((r) => r.path.endsWith("/chat/completions")).length - 1);
    assert.ok(first.tools.includes("lookup_docs") && first.tools.includes("quiet_tool"), `both tools are offered: ${first.tools.join(", ")}`);
    assert.match(first.system, /^- lookup_docs: Look up the project's docs by topic$/m, "the snippet lists the tool, on one line");
    assert.doesNotMatch(first.system, /quiet_tool/, "a tool without a snippet is offered but not listed, as in Pi");
    const guideline = first.system.split("\n").filter((line) => line.includes("Use lookup_docs before guessing an API."));
    assert.deepEqual(guideline, ["- Use lookup_docs before guessing an API."], "the guideline, trimmed, once");
    assert.ok(kit.server.requests.length > before);
    // Turned off, its snippet and guideline leave the prompt.
    pi.runtime.session.setActiveTools(pi.runtime.session.getToolDefinitions().map((d) => d.name).filter((n) => n !== "lookup_docs"));
    await pi.runtime.session.prompt("and now?");
    const second = sent(kit.server, kit.server.requests.filter((r) => r.path.endsWith("/chat/completions")).length - 1);
    assert.equal(second.tools.includes("lookup_docs"), false);
    assert.doesNotMatch(second.system, /lookup_docs/);
    await pi.runtime.dispose();
  });

  it("tool-override.ts replaces the built-in read: the model's call runs the extension's version, under the built-in's approvals", async () => {
    writeFileSync(join(kit.cwd, ".env"), "SECRET=1\n");
    writeFileSync(join(kit.cwd, "notes.txt"), "plain notes\n");
    const asked: ApprovalRequest[] = [];
    let answer: "once" | "deny" = "deny";
    // The session's folder is outside the workspace: the built-in read would ask first, so the override must too.
    const workspace = join(kit.root, "workspace");
    mkdirSync(workspace, { recursive: true });
    const pi = await startWithExamples(kit, ["tool-override.ts"], {
      session: { toolPolicy: { workspaceFolders: [workspace], approve: (request) => (asked.push(request), answer) } },
    });
    assert.deepEqual(pi.reports, []);
    const log = join(pi.agentDir, "read-access.log");
    const read = pi.runtime.session.getAllTools().find((t) => t.definition.name === "read");
    assert.equal(read?.source, "tool-override", "the extension's read replaced Arbor's");
    assert.match(read.definition.description, /access logging/);

    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "notes.txt" } }), reply.text("ok"));
    await pi.runtime.session.prompt("read the notes");
    assert.deepEqual(asked.map((r) => r.kind), ["working-folder"], "asked as for the built-in read");
    assert.match(textOf(toolResults(pi.runtime.session.getBranch()).at(-1)!), /denied running tools in this session's folder/);
    assert.equal(existsSync(log), false, "denied: the extension's code did not run");

    answer = "once";
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "notes.txt" } }), reply.toolCall({ name: "read", arguments: { path: ".env" } }), reply.text("ok"));
    await pi.runtime.session.prompt("read the notes and the env");
    const results = toolResults(pi.runtime.session.getBranch()).slice(-2).map(textOf);
    assert.equal(results[0], "plain notes\n", "the extension's read read the file");
    assert.match(results[1]!, /^Access denied: "\.env" matches a blocked pattern/, "and blocked what it blocks (Arbor's read would have read it)");
    assert.match(readFileSync(log, "utf8"), /ALLOWED: .*notes\.txt[\s\S]*BLOCKED: .*\.env \(matches blocked pattern\)/, "its log, in the agent directory");
    await pi.runtime.dispose();
  });
});
