/**
 * Issue 8.2, the parts of Pi's ExtensionAPI no example test reaches: one extension file (imports by
 * Pi's package names, `@sinclair/typebox` among them) whose command reads and drives `ctx.hasUI`,
 * `ctx.cwd`, `ctx.isIdle`, `ctx.model`, `ctx.getContextUsage`, `ctx.getSystemPrompt`, `pi.getFlag`,
 * the tool lists, `pi.events`, `pi.appendEntry`, `pi.exec` and the thinking level, in a real runtime.
 */
import * as assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

const PROBE = `import { Type } from "@sinclair/typebox";
import { StringEnum } from "@mariozechner/pi-ai";
export default function (pi) {
  const log = (key, value) => ((globalThis.__surface ??= {})[key] = value);
  pi.registerFlag("probe-verbose", { type: "boolean", default: true, description: "a flag nobody passes" });
  pi.events.on("probe:ping", (data) => log("event", data));
  pi.registerTool({
    name: "probe_tool", label: "Probe", description: "answers ok",
    parameters: Type.Object({ mode: StringEnum(["a", "b"]) }),
    execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
  });
  pi.registerCommand("probe", { handler: async (_args, ctx) => {
    log("hasUI", ctx.hasUI);
    log("cwd", ctx.cwd);
    log("idle", ctx.isIdle());
    log("model", ctx.model && ctx.model.provider + "/" + ctx.model.id);
    log("usage", ctx.getContextUsage());
    log("prompt", ctx.getSystemPrompt());
    log("flag", pi.getFlag("probe-verbose"));
    log("all", pi.getAllTools().map((t) => t.name));
    log("active", pi.getActiveTools());
    pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "probe_tool"));
    log("activeAfter", pi.getActiveTools());
    pi.events.emit("probe:ping", { from: "probe" });
    pi.appendEntry("probe-state", { count: 1 });
    const result = await pi.exec("pwd", []);
    log("exec", { out: result.stdout.trim(), code: result.code });
    pi.setThinkingLevel("high");
    log("level", pi.getThinkingLevel());
  } });
}`;

describe("Pi's ExtensionAPI: context, flags, tools, events, entries, exec (issue 8.2)", () => {
  let kit: AgentKit;
  beforeEach(async () => {
    kit = await makeKit();
    delete (globalThis as { __surface?: unknown }).__surface;
  });
  afterEach(async () => {
    delete (globalThis as { __surface?: unknown }).__surface;
    await kit.cleanup();
  });

  it("a command sees the session's folder, model, usage and prompt; flags answer their default; tools, events, entries, exec and the level work", async () => {
    const pi = await startWithExamples(kit, [], { extraFiles: { "probe.ts": PROBE } });
    const session = pi.runtime.session;
    await pi.set.runCommand("probe", "");
    const seen = (globalThis as { __surface?: Record<string, unknown> }).__surface ?? {};
    assert.equal(seen.hasUI, true);
    assert.equal(seen.cwd, session.sessionManager.getCwd());
    assert.equal(seen.idle, true);
    assert.equal(seen.model, `${kit.model.provider}/${kit.model.id}`);
    assert.equal((seen.usage as { contextWindow?: number } | undefined)?.contextWindow, kit.model.contextWindow);
    assert.deepEqual(seen.usage, session.getContextUsage());
    assert.equal(typeof seen.prompt, "string");
    assert.ok((seen.prompt as string).length > 0);
    assert.equal(seen.flag, true, "a flag answers its default (no command line in VS Code)");
    assert.ok((seen.all as string[]).includes("probe_tool") && (seen.all as string[]).includes("read"), `all tools: ${String(seen.all)}`);
    assert.ok((seen.active as string[]).includes("probe_tool"), "the registered tool is active");
    assert.deepEqual(seen.activeAfter, (seen.active as string[]).filter((n) => n !== "probe_tool"));
    assert.deepEqual(session.getToolDefinitions().map((d) => d.name), seen.activeAfter, "the session offers what setActiveTools left");
    assert.deepEqual(seen.event, { from: "probe" });
    assert.deepEqual(seen.exec, { out: realpathSync(session.sessionManager.getCwd()), code: 0 });
    assert.equal(seen.level, "high");
    assert.equal(session.getThinkingLevel(), "high");
    await session.sessionManager.flush();
    const lines = readFileSync(session.sessionManager.getSessionFile()!, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l.type === "custom" && l.customType === "probe-state" && JSON.stringify(l.data) === '{"count":1}'), "appendEntry wrote a custom entry");
    assert.ok(lines.some((l) => l.type === "thinking_level_change" && l.thinkingLevel === "high"));
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });
});
