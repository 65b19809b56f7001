/**
 * The user's steering and follow-up prompts (`prompt(text, { streamingBehavior })`) in real agent
 * runs over the scripted server, as Pi 0.73.1 delivers them: a steer after every tool call of the
 * current reply has run (Pi's agent loop skips none of them), before the next model call; a follow-up
 * once the model would stop; one at a time or all (Pi's steeringMode / followUpMode); a prompt taken
 * back before delivery is never recorded. The last suite runs the same turns through the reference's
 * AgentSession and compares the files.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentSession, PromptResult } from "../../src/core/agent/agent-session";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import type { QueueModes } from "../../src/core/agent/message-queue";
import { textOutcome, type AgentTool } from "../../src/core/agent/tools/tool";
import { loadResources } from "../../src/core/resources";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, readLines, sentMessages, type AgentKit } from "./agent-harness.test";

/** A tool that waits until released, so that a test can type while it runs. */
function gateTool(): { tool: AgentTool; release(): void; started: Promise<void>; runs: string[] } {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const runs: string[] = [];
  return {
    release,
    started: startedPromise,
    runs,
    tool: {
      definition: { name: "gate", description: "waits", parameters: { type: "object", properties: { n: { type: "string" } } } },
      execute: async (args) => {
        runs.push(String(args.n));
        started();
        await gate;
        return textOutcome(`gate ${String(args.n)} opened`);
      },
    },
  };
}

/** Each message line of a file as `role: text` (tool results by name), the chain checked. */
function messageLines(file: string): string[] {
  const lines = readLines(file).filter((line) => line.type === "message");
  return lines.map((line, i) => {
    assert.ok(i === 0 || line.parentId === lines[i - 1]!.id, `line ${i} hangs off the one before`);
    const message = line.message as { role: string; content: unknown; toolName?: string; stopReason?: string };
    if (message.role === "toolResult") return `toolResult: ${message.toolName}`;
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content as { type: string; text?: string; name?: string }[]);
    const text = blocks.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : "")).join("");
    return `${message.role}: ${text}`;
  });
}

/** The user texts of request `index`. */
const userTexts = (kit: AgentKit, index: number): string[] =>
  (sentMessages(kit.server, index) as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((b) => b.text ?? "").join("")));

describe("steering and follow-ups (prompt with streamingBehavior)", function () {
  this.timeout(30_000);
  let kit: AgentKit;
  const opened: { close(): Promise<void> }[] = [];
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => {
    for (const item of opened.splice(0)) await item.close();
    await kit.cleanup();
  });

  async function session(tools: AgentTool[], modes?: Partial<QueueModes>) {
    const made = await makeSession(kit, { tools, ...(modes ? { queueModes: () => modes } : {}) });
    opened.push(made.session, made.sm);
    return made;
  }

  async function file(agent: AgentSession): Promise<string[]> {
    await agent.sessionManager.flush();
    return messageLines(agent.sessionManager.getSessionFile()!);
  }

  it("a steer typed while the first of two tool calls runs lands after both results, before the next model call", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool]);
    kit.server.script(
      reply.toolCall([
        { name: "gate", arguments: { n: "1" } },
        { name: "gate", arguments: { n: "2" } },
      ]),
      reply.text("steered"),
    );
    const running = agent.prompt("use the gate twice");
    await gate.started;
    assert.equal(agent.isStreaming(), true);
    const steer = agent.prompt("STEER: do it differently", { streamingBehavior: "steer" });
    assert.deepEqual(agent.getQueuedMessages().map((m) => [m.kind, m.text]), [["steer", "STEER: do it differently"]]);
    gate.release();
    const [steered, result] = await Promise.all([steer, running]);
    assert.deepEqual(gate.runs, ["1", "2"], "the tool call still queued when the steer came ran too, as in Pi 0.73.1");
    assert.deepEqual(await file(agent), [
      "user: use the gate twice",
      "assistant: [gate][gate]",
      "toolResult: gate",
      "toolResult: gate",
      "user: STEER: do it differently",
      "assistant: steered",
    ]);
    assert.equal(kit.server.requests.length, 2);
    assert.deepEqual(userTexts(kit, 1), ["use the gate twice", "STEER: do it differently"]);
    assert.equal(steered.kind, "queued");
    const userIds = readLines(agent.sessionManager.getSessionFile()!).filter((l) => l.type === "message" && (l.message as { role: string }).role === "user").map((l) => l.id);
    assert.equal(steered.kind === "queued" && steered.entryId, userIds[1], "the steer's prompt resolves with its entry");
    assert.equal(result.kind, "reply");
    assert.deepEqual(agent.getQueuedMessages(), []);
  });

  it("a follow-up typed while a tool runs waits until the model would stop", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool]);
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("done with the tool"), reply.text("answered the follow-up"));
    const running = agent.prompt("use the gate");
    await gate.started;
    const followUp = agent.prompt("FOLLOW-UP: and then this", { streamingBehavior: "followUp" });
    assert.deepEqual(agent.getQueuedMessages().map((m) => m.kind), ["followUp"]);
    gate.release();
    await Promise.all([followUp, running]);
    assert.deepEqual(await file(agent), [
      "user: use the gate",
      "assistant: [gate]",
      "toolResult: gate",
      "assistant: done with the tool",
      "user: FOLLOW-UP: and then this",
      "assistant: answered the follow-up",
    ]);
    assert.equal(userTexts(kit, 1).includes("FOLLOW-UP: and then this"), false, "the call after the tool did not see it");
  });

  it("one at a time (Pi's default): each queued steer gets its own model call, then the follow-ups one by one", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool]);
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("a"), reply.text("b"), reply.text("c"), reply.text("d"));
    const running = agent.prompt("go");
    await gate.started;
    const queued = [
      agent.prompt("S1", { streamingBehavior: "steer" }),
      agent.prompt("S2", { streamingBehavior: "steer" }),
      agent.prompt("F1", { streamingBehavior: "followUp" }),
      agent.prompt("F2", { streamingBehavior: "followUp" }),
    ];
    assert.deepEqual(agent.getQueuedMessages().map((m) => m.text), ["S1", "S2", "F1", "F2"]);
    gate.release();
    await Promise.all([...queued, running]);
    assert.deepEqual(await file(agent), ["user: go", "assistant: [gate]", "toolResult: gate", "user: S1", "assistant: a", "user: S2", "assistant: b", "user: F1", "assistant: c", "user: F2", "assistant: d"]);
  });

  it("mode all (Arbor's setting): every queued steer goes in before one call, and the follow-ups together", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool], { steeringMode: "all", followUpMode: "all" });
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("a"), reply.text("b"));
    const running = agent.prompt("go");
    await gate.started;
    const queued = ["S1", "S2"].map((t) => agent.prompt(t, { streamingBehavior: "steer" }));
    queued.push(...["F1", "F2"].map((t) => agent.prompt(t, { streamingBehavior: "followUp" })));
    gate.release();
    await Promise.all([...queued, running]);
    assert.deepEqual(await file(agent), ["user: go", "assistant: [gate]", "toolResult: gate", "user: S1", "user: S2", "assistant: a", "user: F1", "user: F2", "assistant: b"]);
    assert.equal(kit.server.requests.length, 3);
  });

  it("takes Pi's steeringMode from its settings.json when Arbor's is not set", async () => {
    const agentDir = join(kit.root, "pi-agent");
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ steeringMode: "all" }));
    const gate = gateTool();
    const made = await makeSession(kit, { tools: [gate.tool], resources: (cwd) => loadResources({ cwd, agentDir, home: kit.root, trusted: true }) });
    opened.push(made.session, made.sm);
    assert.deepEqual(made.session.getQueueModes(), { steeringMode: "all", followUpMode: "one-at-a-time" });
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("a"));
    const running = made.session.prompt("go");
    await gate.started;
    const queued = ["S1", "S2"].map((t) => made.session.prompt(t, { streamingBehavior: "steer" }));
    gate.release();
    await Promise.all([...queued, running]);
    assert.deepEqual((await file(made.session)).slice(-3), ["user: S1", "user: S2", "assistant: a"]);
  });

  it("a prompt taken back before delivery is never recorded nor sent; the others still are", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool]);
    const changes: string[][] = [];
    agent.onEvent((e: AgentSessionEvent) => e.type === "queue_changed" && changes.push(e.queued.map((q) => q.text)));
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("saw the kept one"));
    const running = agent.prompt("go");
    await gate.started;
    const takenBack = agent.prompt("TAKEN BACK", { streamingBehavior: "steer" });
    const kept = agent.prompt("KEPT", { streamingBehavior: "steer" });
    const id = agent.getQueuedMessages()[0]!.id;
    assert.deepEqual(agent.withdrawQueued(id).map((m) => m.text), ["TAKEN BACK"]);
    gate.release();
    const results: PromptResult[] = await Promise.all([takenBack, kept, running]);
    assert.deepEqual(results[0], { kind: "withdrawn" });
    assert.equal(results[1]!.kind, "queued");
    assert.deepEqual(await file(agent), ["user: go", "assistant: [gate]", "toolResult: gate", "user: KEPT", "assistant: saw the kept one"]);
    assert.equal(JSON.stringify(kit.server.requests.map((r) => r.body)).includes("TAKEN BACK"), false);
    assert.deepEqual(changes, [["TAKEN BACK"], ["TAKEN BACK", "KEPT"], ["KEPT"], []]);
  });

  it("Stop after taking everything back ends the run with nothing queued recorded", async () => {
    const gate = gateTool();
    const { session: agent } = await session([gate.tool]);
    kit.server.script(reply.toolCall({ name: "gate", arguments: { n: "1" } }), reply.text("never"));
    const running = agent.prompt("go");
    await gate.started;
    const steer = agent.prompt("BACK TO THE INPUT", { streamingBehavior: "followUp" });
    assert.deepEqual(agent.withdrawQueued().map((m) => m.text), ["BACK TO THE INPUT"]);
    agent.abort();
    gate.release();
    await running;
    assert.deepEqual(await steer, { kind: "withdrawn" });
    assert.equal((await file(agent)).some((l) => l.includes("BACK TO THE INPUT")), false);
  });
});

// ---------------------------------------------------------------------------------------------
// Against the reference: the same scripted turns through Pi's AgentSession and through ours.

interface RefSession {
  prompt(text: string, options?: { streamingBehavior?: "steer" | "followUp" }): Promise<void>;
  subscribe(listener: (event: { type: string }) => void): () => void;
  agent: { waitForIdle(): Promise<void> };
  dispose?(): void;
}
interface RefModule {
  SessionManager: { create(cwd: string, dir: string): { getSessionFile(): string | undefined } };
  SettingsManager: { inMemory(settings: Record<string, unknown>): unknown };
  AuthStorage: { inMemory(): unknown };
  ModelRegistry: { create(auth: unknown, path: string): unknown };
  createAgentSession(options: Record<string, unknown>): Promise<{ session: RefSession }>;
}

/** The message lines as they are recorded, without what differs by nature (ids, times, usage, tool output). */
function comparable(file: string): unknown[] {
  const lines = readLines(file).filter((line) => line.type === "message");
  return lines.map((line, i) => {
    const message = { ...(line.message as Record<string, unknown>) };
    delete message.timestamp;
    if (message.role === "assistant") return { role: "assistant", stopReason: message.stopReason, content: message.content, chained: i === 0 || line.parentId === lines[i - 1]!.id };
    if (message.role === "toolResult") return { role: "toolResult", toolCallId: message.toolCallId, toolName: message.toolName, isError: message.isError, chained: line.parentId === lines[i - 1]!.id };
    return { ...message, chained: i === 0 || line.parentId === lines[i - 1]!.id };
  });
}

describe("steering and follow-ups, recorded as the reference records them", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  /** Two reads in the first reply; while the first runs, the user types two steers and two follow-ups. */
  const turns = (mode: "one-at-a-time" | "all") => [
    reply.toolCall([
      { id: "call_a", name: "read", arguments: { path: "a.txt" } },
      { id: "call_b", name: "read", arguments: { path: "b.txt" } },
    ]),
    ...(mode === "all" ? ["one", "two"] : ["one", "two", "three", "four"]).map((text) => reply.text(text)),
  ];
  const typed: [string, "steer" | "followUp"][] = [
    ["STEER 1", "steer"],
    ["FOLLOW 1", "followUp"],
    ["STEER 2", "steer"],
    ["FOLLOW 2", "followUp"],
  ];

  async function reference(mode: "one-at-a-time" | "all"): Promise<string> {
    const ref = (await import("@mariozechner/pi-coding-agent")) as unknown as RefModule;
    const agentDir = join(kit.root, `pi-agent-${mode}`);
    mkdirSync(agentDir);
    const modelsFile = join(agentDir, "models.json");
    writeFileSync(modelsFile, JSON.stringify({ providers: { local: { baseUrl: kit.server.baseUrl, api: "openai-completions", apiKey: "test-key", models: [{ id: "scripted-model" }] } } }));
    const auth = ref.AuthStorage.inMemory();
    const manager = ref.SessionManager.create(kit.cwd, join(kit.root, `ref-sessions-${mode}`));
    const { session } = await ref.createAgentSession({
      cwd: kit.cwd,
      agentDir,
      sessionManager: manager,
      authStorage: auth,
      modelRegistry: ref.ModelRegistry.create(auth, modelsFile),
      tools: ["read"],
      settingsManager: ref.SettingsManager.inMemory({ defaultProvider: "local", defaultModel: "scripted-model", steeringMode: mode, followUpMode: mode, retry: { enabled: false } }),
    });
    let sent = false;
    session.subscribe((event) => {
      if (event.type !== "tool_execution_start" || sent) return;
      sent = true;
      for (const [text, streamingBehavior] of typed) void session.prompt(text, { streamingBehavior });
    });
    await session.prompt("read both");
    await session.agent.waitForIdle();
    session.dispose?.();
    return manager.getSessionFile()!;
  }

  async function ours(mode: "one-at-a-time" | "all"): Promise<string> {
    const { sm, session } = await makeSession(kit, { queueModes: () => ({ steeringMode: mode, followUpMode: mode }) });
    let sent = false;
    const queued: Promise<unknown>[] = [];
    session.onEvent((event) => {
      if (event.type !== "tool_start" || sent) return;
      sent = true;
      for (const [text, streamingBehavior] of typed) queued.push(session.prompt(text, { streamingBehavior }));
    });
    await session.prompt("read both");
    await Promise.all(queued);
    await session.close();
    await sm.close();
    return sm.getSessionFile()!;
  }

  for (const mode of ["one-at-a-time", "all"] as const) {
    it(`${mode}: the same messages, in the same order and chain, as Pi's file`, async () => {
      writeFileSync(join(kit.cwd, "a.txt"), "alpha\n");
      writeFileSync(join(kit.cwd, "b.txt"), "beta\n");
      kit.server.script(...turns(mode));
      const theirs = await reference(mode);
      const theirRequests = kit.server.requests.length;
      kit.server.script(...turns(mode));
      const mine = await ours(mode);
      assert.deepEqual(comparable(mine), comparable(theirs));
      assert.equal(kit.server.requests.length - theirRequests, theirRequests, "as many model calls as the reference made");
      const roles = (comparable(mine) as { role: string; content?: { text?: string }[] }[]).map((m) => (m.role === "user" ? m.content![0]!.text : m.role));
      assert.deepEqual(
        roles,
        mode === "all"
          ? ["read both", "assistant", "toolResult", "toolResult", "STEER 1", "STEER 2", "assistant", "FOLLOW 1", "FOLLOW 2", "assistant"]
          : ["read both", "assistant", "toolResult", "toolResult", "STEER 1", "assistant", "STEER 2", "assistant", "FOLLOW 1", "assistant", "FOLLOW 2", "assistant"],
      );
    });
  }
});
