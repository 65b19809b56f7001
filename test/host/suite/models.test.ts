/**
 * Models in the real extension host: a provider in Pi's models.json answers with no further step,
 * through pi-ai to the scripted OpenAI-compatible server on 127.0.0.1 (streamed, appended, Stop and
 * errors recorded as Pi records them); keys stay out of settings and session files; VS Code's own
 * chat models (vscode.lm) answer a prompt and a tool call, with a chat model provider registered by a
 * test extension (VS Code 1.100's proposed chatProvider API).
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { sessionDirForCwd } from "../../../src/core/session/paths";
import type { AgentSessionEvent } from "../../../src/core/agent/events";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import type { HostToChatMessage } from "../../../src/protocol/chat-messages";
import { fileLines, filesUnder, localProviderConfig, modelApi, setPiProvider, until } from "./model-helpers";
import { acceptInQuickPick, messagesShownBy, quickPickDrawn } from "./host-helpers";
import { NO_VSCODE_MODELS_MESSAGE } from "../../../src/extension/models/vscode-lm-provider";

interface RefWriter {
  appendModelChange(provider: string, modelId: string): string;
  appendThinkingLevelChange(level: string): string;
  appendMessage(message: Record<string, unknown>): string;
  getSessionFile(): string | undefined;
}
const loadReference = () =>
  import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{
    SessionManager: {
      open(path: string): { buildSessionContext(): { messages: { role: string }[]; model: { provider: string; modelId: string } | null } };
      create(cwd: string, dir: string): RefWriter;
    };
  }>;


/** Resolves once the reply being streamed shows text that matches `pattern` (what Stop then has to keep). */
function streamedText(session: { onEvent(listener: (event: AgentSessionEvent) => void): { dispose(): void } }, pattern: RegExp): Promise<void> {
  return new Promise<void>((resolve) => {
    const sub = session.onEvent((event) => {
      if (event.type !== "message_update") return;
      const text = event.message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      if (!pattern.test(text)) return;
      sub.dispose();
      resolve();
    });
  });
}

describe("models", function () {
  this.timeout(90_000);
  let server: ScriptedServer;

  before(async () => {
    server = await startScriptedServer({ apiKey: "local" });
  });
  after(async () => {
    setPiProvider("host-local", undefined);
    await server.close();
  });

  describe("a model from Pi's models.json, through pi-ai", function () {

    it("answers with no further step: the new provider is listed, becomes the default, streams and is appended", async () => {
      const arbor = await modelApi();
      setPiProvider("host-local", localProviderConfig(server.baseUrl, ["scripted-model"], { name: "Host test server" }));
      await until(() => arbor.models.findEntry({ provider: "host-local", id: "scripted-model" }) !== undefined, "the models.json provider to be read");
      const entry = arbor.models.findEntry({ provider: "host-local", id: "scripted-model" })!;
      assert.equal(entry.source, "models.json");
      assert.equal(entry.keyMissing, false);
      assert.equal(entry.providerName, "Host test server");

      await vscode.commands.executeCommand("arbor.newSession");
      await until(() => arbor.agentSession !== undefined, "a session");
      const session = arbor.agentSession!;
      assert.equal(session.getModel()?.provider, "host-local", "the only model with a key is the default");

      server.script(reply.text("Hello from the scripted model, streamed in pieces.", { chunks: 6 }));
      const events: AgentSessionEvent[] = [];
      const sub = session.onEvent((event) => events.push(event));
      const result = await session.prompt("Say hello");
      sub.dispose();
      assert.equal(result.kind, "reply");
      assert.equal(events.filter((e) => e.type === "message_update").length, 6, "each streamed piece reached the front ends");
      const sm = arbor.currentSession!;
      await sm.flush();
      const file = sm.getSessionFile()!;
      const assistant = fileLines(file).flatMap((line) => (line.type === "message" && (line.message as { role: string }).role === "assistant" ? [line.message as Record<string, unknown>] : []));
      assert.equal(assistant.length, 1);
      assert.equal(assistant[0]!.provider, "host-local");
      assert.equal(assistant[0]!.api, "openai-completions");
      assert.equal(assistant[0]!.stopReason, "stop");
      const body = server.requests[0]!.body as Record<string, unknown>;
      assert.equal(server.requests[0]!.headers.authorization, "Bearer local", "the key from models.json");
      assert.ok(typeof body.max_completion_tokens === "number", "an output cap is sent");
      const pi = await loadReference();
      const context = pi.SessionManager.open(file).buildSessionContext();
      assert.deepEqual(context.messages.map((m) => m.role), ["user", "assistant"]);
      assert.deepEqual(context.model, { provider: "host-local", modelId: "scripted-model" });
    });

    it("Stop keeps the streamed part with stopReason aborted; an HTTP error is recorded with its message", async () => {
      const arbor = await modelApi();
      const session = arbor.agentSession!;
      server.script(reply.hang("The beginning of a long answer", { chunks: 3 }));
      const streaming = streamedText(session, /^The beginning of a long answer$/);
      const running = session.prompt("Tell me a long story");
      await streaming;
      session.abort();
      await running;
      server.script(reply.error(400, { error: { message: "Invalid value for 'temperature'" } }));
      await session.prompt("And again");
      const sm = arbor.currentSession!;
      await sm.flush();
      const replies = fileLines(sm.getSessionFile()!).flatMap((line) => (line.type === "message" && (line.message as { role: string }).role === "assistant" ? [line.message as { stopReason: string; errorMessage?: string; content: { text?: string }[] }] : []));
      const [aborted, failed] = replies.slice(-2);
      assert.equal(aborted!.stopReason, "aborted");
      assert.match(aborted!.content.map((b) => b.text ?? "").join(""), /^The beginning/);
      assert.equal(failed!.stopReason, "error");
      assert.equal(failed!.errorMessage, "400 Invalid value for 'temperature'");
    });

    it("a key set in Arbor is sent, and never lands in settings, the session file, the logs or the chat webview", async () => {
      const arbor = await modelApi();
      const secret = "sk-host-secret-123";
      const keyed = await startScriptedServer({ apiKey: secret });
      const posted: HostToChatMessage[] = [];
      const chatSurface = { visible: true, post: (message: HostToChatMessage) => void posted.push(message) };
      const surface = arbor.chat.attach(chatSurface);
      try {
        setPiProvider("host-keyed", localProviderConfig(keyed.baseUrl, ["keyed-model"], { apiKey: "placeholder" }));
        await until(() => arbor.models.findEntry({ provider: "host-keyed", id: "keyed-model" }) !== undefined, "the keyed provider");
        await arbor.models.keys.set("host-keyed", secret);
        assert.equal(arbor.models.findEntry({ provider: "host-keyed", id: "keyed-model" })?.keyFrom, "a key stored in Arbor");
        assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "host-keyed", id: "keyed-model" }), true);
        keyed.script(reply.text("authorized"));
        const result = await arbor.agentSession!.prompt("hi");
        assert.equal(result.kind === "reply" && result.message.stopReason, "stop", "the stored key won over the placeholder");
        assert.equal(keyed.requests[0]!.headers.authorization, `Bearer ${secret}`);
        // A request that fails carries its error text to the file, the log and the chat: still no key.
        keyed.script(reply.error(401, { error: { message: "Incorrect API key provided" } }));
        const failed = await arbor.agentSession!.prompt("again");
        assert.equal(failed.kind === "reply" && failed.message.stopReason, "error");
        const sm = arbor.currentSession!;
        await sm.flush();
        assert.ok(!readFileSync(sm.getSessionFile()!, "utf8").includes(secret), "not in the session file");
        assert.ok(!JSON.stringify(vscode.workspace.getConfiguration("arbor")).includes(secret), "not in settings");
        // Every JSON file of the user's data (settings.json, Arbor's models file, extensions' storage).
        const userFolder = dirname(dirname(dirname(arbor.models.arborModelsFile)));
        const jsonFiles = filesUnder(userFolder, (name) => name.endsWith(".json"));
        assert.ok(jsonFiles.length > 0, `JSON files under ${userFolder}`);
        for (const file of jsonFiles) assert.ok(!readFileSync(file, "utf8").includes(secret), `not in ${file}`);
        // The Arbor output channel's file (and every other log of this extension host).
        // The log is written behind the output channel; a line logged now, once it is in the file, means
        // that everything logged before it (the failed request's) is there too.
        const logFolder = dirname(arbor.logUri.fsPath);
        const marker = `after the failed request ${Date.now()}`;
        arbor.chat.receive(chatSurface, { type: "log", level: "info", message: marker });
        await until(() => filesUnder(logFolder, (name) => name.endsWith(".log")).some((file) => readFileSync(file, "utf8").includes(marker)), "Arbor's log to hold the line logged after the failed request", 20_000);
        const logs = filesUnder(logFolder, (name) => name.endsWith(".log"));
        assert.ok(logs.some((file) => readFileSync(file, "utf8").includes("activated for")), `Arbor's own log is among ${logs.join(", ")}`);
        for (const file of logs) assert.ok(!readFileSync(file, "utf8").includes(secret), `not in ${file}`);
        assert.ok(posted.some((message) => message.type === "modelState"), "the chat was told about the model");
        assert.ok(!JSON.stringify(posted).includes(secret), "not in anything sent to the chat webview");
        assert.ok(!JSON.stringify(arbor.chat.state()).includes(secret), "not in the chat's state");
      } finally {
        surface.dispose();
        await arbor.models.keys.set("host-keyed", "");
        setPiProvider("host-keyed", undefined);
        await keyed.close();
      }
    });

    it("keys from the environment work: a models.json apiKey naming a variable, and pi-ai's own variables", async () => {
      const arbor = await modelApi();
      const envServer = await startScriptedServer({ apiKey: "sk-from-env-456" });
      process.env.ARBOR_HOST_TEST_KEY = "sk-from-env-456";
      const savedGroq = process.env.GROQ_API_KEY;
      try {
        setPiProvider("host-env", localProviderConfig(envServer.baseUrl, ["env-model"], { apiKey: "ARBOR_HOST_TEST_KEY" }));
        await until(() => arbor.models.findEntry({ provider: "host-env", id: "env-model" }) !== undefined, "the provider whose key is a variable");
        assert.equal(await vscode.commands.executeCommand("arbor.selectModel", "host-env/env-model"), true);
        envServer.script(reply.text("the variable's key worked"));
        const result = await arbor.agentSession!.prompt("hi");
        assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
        assert.equal(envServer.requests[0]!.headers.authorization, "Bearer sk-from-env-456", "the variable's value was sent, not its name");

        const groq = () => arbor.models.entries().filter((entry) => entry.provider === "groq");
        delete process.env.GROQ_API_KEY;
        assert.ok(groq().length > 0 && groq().every((entry) => entry.keyMissing), "no key for pi-ai's groq models without GROQ_API_KEY");
        process.env.GROQ_API_KEY = "gsk-test";
        assert.ok(groq().every((entry) => !entry.keyMissing && entry.keyFrom === "GROQ_API_KEY"), "GROQ_API_KEY makes them usable");
      } finally {
        delete process.env.ARBOR_HOST_TEST_KEY;
        if (savedGroq === undefined) delete process.env.GROQ_API_KEY;
        else process.env.GROQ_API_KEY = savedGroq;
        setPiProvider("host-env", undefined);
        await envServer.close();
      }
    });

    it("a session Pi wrote resumes with the model and thinking level named in its file, not the default", async () => {
      const arbor = await modelApi();
      const other = await startScriptedServer();
      try {
        setPiProvider("host-resume", { ...localProviderConfig(other.baseUrl, []), models: [{ id: "resume-thinker", reasoning: true }] });
        await until(() => arbor.models.findEntry({ provider: "host-resume", id: "resume-thinker" }) !== undefined, "the provider the session names");
        // The default (the model last chosen) is another one.
        assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "host-local", id: "scripted-model" }), true);
        const pi = await loadReference();
        const workspace = process.env.ARBOR_HOST_WORKSPACE!;
        // In the workspace's own sessions folder: Resume takes only files under the sessions folders Arbor knows.
        const writer = pi.SessionManager.create(workspace, sessionDirForCwd(workspace, { agentDir: process.env.PI_CODING_AGENT_DIR }));
        writer.appendModelChange("host-resume", "resume-thinker");
        writer.appendThinkingLevelChange("low");
        writer.appendMessage({ role: "user", content: "earlier question", timestamp: 1 });
        writer.appendMessage({
          role: "assistant",
          content: [{ type: "text", text: "earlier answer" }],
          api: "openai-completions",
          provider: "host-resume",
          model: "resume-thinker",
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "stop",
          timestamp: 2,
        });
        const file = writer.getSessionFile()!;
        await vscode.commands.executeCommand("arbor.resumeSession", file);
        await until(() => arbor.currentSession?.getSessionFile() === file && arbor.agentSession !== undefined, "the resumed session");
        const session = arbor.agentSession!;
        assert.deepEqual([session.getModel()?.provider, session.getModel()?.id, session.getThinkingLevel()], ["host-resume", "resume-thinker", "low"]);
        other.script(reply.text("answered by the session's own model"));
        const result = await session.prompt("and now?");
        assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
        assert.equal(other.requests.length, 1, "the request went to the provider the file names");
        assert.equal((other.requests[0]!.body as { model?: string }).model, "resume-thinker");
        // The default model was not used and nothing new was recorded about the model.
        assert.ok(!fileLines(file).slice(5).some((line) => line.type === "model_change"), "no model_change for a model the file already names");
      } finally {
        setPiProvider("host-resume", undefined);
        await other.close();
      }
    });

    it("Set Thinking Level clamps to what the model takes", async () => {
      const arbor = await modelApi();
      const thinking = await startScriptedServer();
      try {
        setPiProvider("host-thinking", { ...localProviderConfig(thinking.baseUrl, []), models: [{ id: "thinker", reasoning: true }] });
        await until(() => arbor.models.findEntry({ provider: "host-thinking", id: "thinker" }) !== undefined, "the reasoning model");
        assert.deepEqual(arbor.models.findEntry({ provider: "host-thinking", id: "thinker" })?.thinkingLevels, ["off", "minimal", "low", "medium", "high"]);
        await vscode.commands.executeCommand("arbor.selectModel", "host-thinking/thinker");
        assert.equal(await vscode.commands.executeCommand("arbor.setThinkingLevel", "xhigh"), "high");
        assert.equal(arbor.agentSession!.getThinkingLevel(), "high");
        await vscode.commands.executeCommand("arbor.selectModel", { provider: "host-local", id: "scripted-model" });
        assert.equal(arbor.agentSession!.getThinkingLevel(), "off", "a model without thinking runs at off");
      } finally {
        setPiProvider("host-thinking", undefined);
        await thinking.close();
      }
    });

  });

  describe("VS Code's chat models (vscode.lm)", function () {

    before(async () => {
      const fixture = vscode.extensions.getExtension("arbor-dev.arbor-test-lm-provider");
      assert.ok(fixture, "the test chat model provider is loaded beside Arbor");
      await fixture.activate();
      await vscode.commands.executeCommand("arborTestLm.reset");
    });

    it("lists the chat model after a user action, answers a prompt, and runs a tool call through it", async () => {
      const arbor = await modelApi();
      const models = await vscode.lm.selectChatModels({ vendor: "arbor-test" });
      assert.equal(models.length, 1, "VS Code offers the test model");
      const id = models[0]!.id;
      assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "vscode-lm", id }), true);
      const entry = arbor.models.findEntry({ provider: "vscode-lm", id });
      assert.equal(entry?.source, "vscode-lm");
      assert.equal(entry?.contextWindow, 64000);
      const session = arbor.agentSession!;
      assert.equal(session.getModel()?.provider, "vscode-lm");

      await vscode.commands.executeCommand("arborTestLm.script", { text: "Hello from VS Code's model." });
      const first = await session.prompt("Hi there");
      assert.equal(first.kind === "reply" && first.message.stopReason, "stop");
      assert.equal(first.kind === "reply" && first.message.content.map((b) => (b.type === "text" ? b.text : "")).join(""), "Hello from VS Code's model.");

      await vscode.commands.executeCommand(
        "arborTestLm.script",
        { text: "Let me read it.", toolCall: { id: "call-1", name: "read", input: { path: "README.md" } } },
        { text: "The README is a heading." },
      );
      const second = await session.prompt("What is in README.md?");
      assert.equal(second.kind === "reply" && second.message.stopReason, "stop");
      const requests = (await vscode.commands.executeCommand("arborTestLm.requests")) as { tools: string[]; messages: { role: string; parts: Record<string, unknown>[] }[] }[];
      const last = requests[requests.length - 1]!;
      assert.ok(requests[requests.length - 2]!.tools.includes("read"), "the tools were offered");
      const result = last.messages.flatMap((m) => m.parts).find((p) => p.toolResult) as { toolResult: { callId: string; content: string[] } } | undefined;
      assert.equal(result?.toolResult.callId, "call-1");
      assert.match(result!.toolResult.content.join(""), /Arbor host-test workspace/, "the read tool's output went back to the model");
      assert.match(String((last.messages[0]!.parts[0] as { text: string }).text), /^<system_instructions>/, "the system prompt is folded into the first user message");

      const sm = arbor.currentSession!;
      await sm.flush();
      const lines = fileLines(sm.getSessionFile()!).filter((line) => line.type === "message").map((line) => line.message as { role: string; api?: string; provider?: string; content: { type: string; name?: string }[] });
      const tail = lines.slice(-4);
      assert.deepEqual(tail.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
      assert.equal(tail[1]!.provider, "vscode-lm");
      assert.equal(tail[1]!.api, "vscode-lm");
      assert.deepEqual(tail[1]!.content.map((b) => b.type), ["text", "toolCall"]);
    });

    it("Add a Model, from the chat's no-model notice, offers VS Code's chat model at the top: one pick uses it", async () => {
      const arbor = await modelApi();
      assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "host-local", id: "scripted-model" }), true);
      const surface = { visible: true, post: () => undefined };
      const attached = arbor.chat.attach(surface);
      try {
        arbor.models.lastAddModelOffer = undefined;
        // The notice's "Add a model" link posts this message.
        arbor.chat.receive(surface, { type: "addModel" });
        await until(() => arbor.models.lastAddModelOffer !== undefined, "Add a Model's lookups");
        assert.match(arbor.models.lastAddModelOffer![0]!, /^\$\(copilot\) Arbor Test Model/, `offered: ${arbor.models.lastAddModelOffer!.join(" | ")}`);
        const first = arbor.models.lastAddModelOffer![0]!;
        // The workbench drew the routes first; it makes the first item active again when the ready model arrives.
        await until(async () => (await quickPickDrawn("Add a Model")).active === first, "the ready model to be the active item");
        assert.equal(await acceptInQuickPick("Add a Model", first), first, "one Enter uses it");
        await until(() => arbor.agentSession?.getModel()?.provider === "vscode-lm", "the VS Code model in use");
        assert.match(arbor.agentSession!.getModel()?.name ?? "", /^Arbor Test Model/);
      } finally {
        await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
        attached.dispose();
      }
    });

    /** Each test below starts on VS Code's test model, whatever the test before it left selected. */
    async function useTestChatModel(): Promise<void> {
      const models = await vscode.lm.selectChatModels({ vendor: "arbor-test" });
      assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "vscode-lm", id: models[0]!.id }), true);
    }

    it("a model the provider fails on records the error; Stop records the partial reply", async () => {
      const arbor = await modelApi();
      await useTestChatModel();
      const session = arbor.agentSession!;
      await vscode.commands.executeCommand("arborTestLm.script", { error: "the test model is down" });
      const failed = await session.prompt("hello?");
      assert.equal(failed.kind === "reply" && failed.message.stopReason, "error");
      assert.match((failed.kind === "reply" && failed.message.errorMessage) || "", /the test model is down/);
      await vscode.commands.executeCommand("arborTestLm.script", { text: "partial answer", delayMs: 50, hang: true });
      const streaming = streamedText(session, /^partial/);
      const running = session.prompt("long one");
      await streaming;
      session.abort();
      const stopped = await running;
      assert.equal(stopped.kind === "reply" && stopped.message.stopReason, "aborted");
      assert.match(stopped.kind === "reply" ? stopped.message.content.map((b) => (b.type === "text" ? b.text : "")).join("") : "", /^partial/);
    });

    it("a refused permission (LanguageModelError.NoPermissions) is recorded with what to do about it", async () => {
      const arbor = await modelApi();
      await useTestChatModel();
      await vscode.commands.executeCommand("arborTestLm.script", { errorCode: "NoPermissions", error: "consent was not given" });
      const result = await arbor.agentSession!.prompt("may I?");
      assert.equal(result.kind === "reply" && result.message.stopReason, "error");
      assert.match((result.kind === "reply" && result.message.errorMessage) || "", /^Arbor may not use this VS Code chat model: the permission was refused or not given/);
    });

    it("a VS Code model that is gone is a clear error, not a crash", async () => {
      const arbor = await modelApi();
      const missing = await Promise.resolve(vscode.commands.executeCommand("arbor.selectModel", { provider: "vscode-lm", id: "no-such-model" }));
      assert.equal(missing, true, "the session names it; whether it exists is checked when it is used");
      const result = await arbor.agentSession!.prompt("anyone?");
      assert.equal(result.kind === "reply" && result.message.stopReason, "error");
      assert.match((result.kind === "reply" && result.message.errorMessage) || "", /"no-such-model" is not available now/);
      assert.ok(existsSync(join(process.env.ARBOR_HOST_WORKSPACE ?? "", "README.md")));
    });

    it("with no VS Code chat model, Add a Model's VS Code route says how to get one, and the prompt's error says it too", async () => {
      const arbor = await modelApi();
      await vscode.commands.executeCommand("arborTestLm.unregister");
      try {
        await until(async () => (await vscode.lm.selectChatModels({ vendor: "arbor-test" })).length === 0, "VS Code to drop the test model");
        arbor.models.lastAddModelOffer = undefined;
        const shown = messagesShownBy(() => vscode.commands.executeCommand("arbor.addModel"));
        await until(() => arbor.models.lastAddModelOffer !== undefined, "Add a Model's lookups");
        const route = arbor.models.lastAddModelOffer!.find((label) => label.includes("VS Code's chat models"));
        assert.ok(route, `the VS Code route is offered: ${arbor.models.lastAddModelOffer!.join(" | ")}`);
        assert.ok(!arbor.models.lastAddModelOffer!.some((label) => label.includes("Arbor Test Model")), "no chat model is offered as ready");
        await acceptInQuickPick("Add a Model", route);
        const { infos } = await shown;
        assert.deepEqual(infos, [NO_VSCODE_MODELS_MESSAGE]);

        assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "vscode-lm", id: "arbor-test-model" }), true);
        const result = await arbor.agentSession!.prompt("anyone there?");
        assert.equal(result.kind === "reply" && result.message.stopReason, "error");
        assert.ok(((result.kind === "reply" && result.message.errorMessage) || "").endsWith(NO_VSCODE_MODELS_MESSAGE), "the error says how to get a model");
      } finally {
        await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
        await vscode.commands.executeCommand("arborTestLm.register");
      }
    });

    it("Select Model... lists every usable model, models.json's first, and uses the one picked; Escape changes nothing", async () => {
      const arbor = await modelApi();
      const models = await vscode.lm.selectChatModels({ vendor: "arbor-test" });
      await vscode.commands.executeCommand("arbor.selectModel", { provider: "vscode-lm", id: models[0]!.id });
      let running = vscode.commands.executeCommand("arbor.selectModel");
      await quickPickDrawn("Select Model");
      await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
      assert.equal(await running, false);
      assert.equal(arbor.agentSession!.getModel()?.provider, "vscode-lm", "closing the pick changes nothing");
      running = vscode.commands.executeCommand("arbor.selectModel");
      await acceptInQuickPick("Select Model");
      assert.equal(await running, true);
      assert.deepEqual([arbor.agentSession!.getModel()?.provider, arbor.agentSession!.getModel()?.id], ["host-local", "scripted-model"]);
    });
  });
});
