/**
 * Issue 8.2: a Pi extension file and a VS Code extension that uses Arbor's exported API see the same
 * events in the same order, in the real extension host, through VS Code's own paths: a prompt with a
 * tool call from the chat, `!cmd`, Select Model, a checkout, /compact, a fork and a new session
 * (where the Pi file is re-created per session and goes on recording in the next one). Select Model
 * gives model_select with the model the session was on as previousModel (Pi's models for the Pi file),
 * and the thinking level set by the command and by the chat's picker gives thinking_level_select.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { until } from "./host-helpers";
import { localProviderConfig, modelApi, setPiProvider, useScriptedModel } from "./model-helpers";
import { RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: { readonly agentSession: AgentSession | undefined; readonly chat: ChatController; readonly piExtensions: PiExtensions };
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: ApiEvent) => unknown> }): vscode.Disposable;
}

interface ApiEvent {
  reason?: string;
  model?: { provider: string; id: string };
  previousModel?: { provider: string; id: string };
  source?: string;
  level?: string;
  previousLevel?: string;
}

const EVENTS = [
  "session_start", "session_before_switch", "session_before_fork", "session_shutdown", "session_before_tree", "session_tree",
  "session_before_compact", "session_compact", "input", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end",
  "message_start", "message_update", "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
  "tool_call", "tool_result", "context", "before_provider_request", "model_select", "thinking_level_select", "user_bash",
];

const EXAMPLES = join(__dirname, "../../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

/**
 * Records every event it hears, with the reason where there is one, and for the model and thinking
 * events what changed, in a list both sides can read; keeps the last model_select as Pi's handler saw it.
 */
const RECORDER = `const EVENTS = ${JSON.stringify(EVENTS)};
const detail = (type, event) => {
  if (type === "model_select") return ":" + event.previousModel?.id + "->" + event.model.id + ":" + event.source;
  if (type === "thinking_level_select") return ":" + event.previousLevel + "->" + event.level;
  return event && event.reason ? ":" + event.reason : "";
};
export default function (pi) {
  for (const type of EVENTS) pi.on(type, (event) => {
    if (type === "model_select") globalThis.__arborPiModelSelect = event;
    (globalThis.__arborPiEvents ??= []).push(type + detail(type, event));
  });
}`;

/** The same record, from the events Arbor's API gives. */
function describe_(type: string, event: ApiEvent): string {
  if (type === "model_select") return `:${event.previousModel?.id}->${event.model?.id}:${event.source}`;
  if (type === "thinking_level_select") return `:${event.previousLevel}->${event.level}`;
  return event?.reason ? `:${event.reason}` : "";
}

describe("a Pi extension and a VS Code extension see the same events in the same order (issue 8.2)", function () {
  this.timeout(180_000);
  let arbor: Api;
  let server: ScriptedServer;
  let folder: string;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const session = (): AgentSession => arbor.testing!.agentSession!;
  const piEvents = (): string[] => ((globalThis as { __arborPiEvents?: string[] }).__arborPiEvents ??= []);
  const idle = () => until(() => surface.of("runState").at(-1)?.run === null && session().isIdle(), "the run to end", 30_000);

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    server = await startScriptedServer();
    await useScriptedModel("events-endpoint", server.baseUrl);
    // The second model thinks, so that its thinking level can be changed.
    setPiProvider("events-endpoint", localProviderConfig(server.baseUrl, [], { models: [{ id: "scripted-model" }, { id: "second-model", reasoning: true }] }));
    const { models } = await modelApi();
    await until(() => models.findEntry({ provider: "events-endpoint", id: "second-model" }) !== undefined, "the second model");
    folder = mkdtempSync(join(tmpdir(), "arbor-pi-events-"));
    writeFileSync(join(folder, "recorder.ts"), RECORDER);
    copyFileSync(join(EXAMPLES, "hello.ts"), join(folder, "hello.ts"));
    await config().update("extensions.paths", [folder], vscode.ConfigurationTarget.Global);
    await config().update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = arbor.testing!.chat.attach(surface);
  });

  after(async () => {
    detach?.dispose();
    await config().update("extensions.paths", undefined, vscode.ConfigurationTarget.Global);
    await config().update("tree.askToSummarizeBranch", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("arbor.newSession");
    rmSync(folder, { recursive: true, force: true });
    delete (globalThis as { __arborPiEvents?: unknown }).__arborPiEvents;
    delete (globalThis as { __arborPiModelSelect?: unknown }).__arborPiModelSelect;
    setPiProvider("events-endpoint", undefined);
    await server?.close();
  });

  it("a prompt with a tool call, !cmd, a model change, a checkout, /compact, a fork and a new session", async () => {
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.piExtensions.statuses().some((s) => s.extension.name === "recorder" && s.state === "loaded"), "the recorder loaded");
    const api: string[] = [];
    const reg = arbor.registerSessionExtension({ name: "api-recorder", handlers: Object.fromEntries(EVENTS.map((type) => [type, (event) => void api.push(type + describe_(type, event))])) });
    piEvents().length = 0;
    let levelBefore: string | undefined;
    const send = (text: string) => arbor.testing!.chat.receive(surface, { type: "send", text });
    try {
      server.script(reply.toolCall({ name: "hello", arguments: { name: "events" } }), reply.text("The tool said hello."));
      send("greet the events");
      await until(() => session().getBranch().some((e) => e.type === "message" && e.message.role === "toolResult"), "the tool result", 30_000);
      await idle();
      send("!echo from the shell");
      await until(() => session().getBranch().some((e) => e.type === "message" && e.message.role === "bashExecution"), "the shell command", 30_000);
      await idle();
      assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "events-endpoint", id: "second-model" }), true);
      // The thinking level through the command (as its quick pick ends) and through the chat's picker.
      levelBefore = session().getThinkingLevel();
      assert.notEqual(levelBefore, "high", "the test changes the level");
      assert.equal(await vscode.commands.executeCommand("arbor.setThinkingLevel", "high"), "high");
      await arbor.testing!.chat.receive(surface, { type: "setThinkingLevel", level: "low" });
      const question = session().getBranch().find((e) => e.type === "message" && e.message.role === "user")!;
      await vscode.commands.executeCommand("arbor.checkoutEntry", question.id);
      server.script(reply.text("## Goal\nGreet the events."));
      send("/compact");
      await until(() => session().getBranch().some((e) => e.type === "compaction"), "the compaction", 30_000);
      await idle();
      const leaf = session().sessionManager.getLeafId()!;
      await vscode.commands.executeCommand("arbor.tree.fork", leaf);
      await vscode.commands.executeCommand("arbor.newSession");
      await until(() => api.filter((e) => e === "session_start:new").length === 1, "the new session's start");
    } finally {
      reg.dispose();
    }
    assert.deepEqual(piEvents(), api, "the same events in the same order");
    // The Pi file is given Pi's models (pi-ai's Model, as models.json describes it), not Arbor's.
    const picked = (globalThis as { __arborPiModelSelect?: { model: Record<string, unknown>; previousModel?: Record<string, unknown> } }).__arborPiModelSelect;
    assert.deepEqual([picked?.model.provider, picked?.model.id, picked?.model.api, picked?.model.baseUrl, picked?.model.reasoning], ["events-endpoint", "second-model", "openai-completions", server.baseUrl, true]);
    assert.deepEqual([picked?.previousModel?.id, picked?.previousModel?.reasoning], ["scripted-model", false]);
    for (const expected of ["input", "before_agent_start", "agent_start", "turn_start", "context", "before_provider_request", "message_update", "tool_call", "tool_execution_start", "tool_execution_end", "tool_result", "turn_end", "agent_end", "user_bash", "model_select:scripted-model->second-model:set", `thinking_level_select:${levelBefore}->high`, "thinking_level_select:high->low", "session_before_tree", "session_tree", "session_before_compact", "session_compact", "session_before_fork", "session_shutdown:fork", "session_start:fork", "session_before_switch:new", "session_shutdown:new", "session_start:new"]) {
      assert.ok(api.includes(expected), `${expected} was heard (heard: ${[...new Set(api)].join(", ")})`);
    }
  });
});

