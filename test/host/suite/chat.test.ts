/**
 * The chat in a real extension host, against a scripted OpenAI-compatible server on 127.0.0.1: a
 * prompt streams and is appended, Stop records the partial reply as Pi records it, an HTTP error is
 * shown and recorded, a prompt sent during a reply steers it after the tool result (a follow-up
 * waits for the reply's end) and Stop gives queued prompts back, /compact and automatic compaction land in the file, a branch summary shows in
 * the chat, and a checkout of a user message puts its text in the input. Every file is read back
 * with the reference package.
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { localProviderConfig, setPiProvider, useScriptedModel } from "./model-helpers";
import { RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined; readonly agentSession: AgentSession | undefined; readonly chat: ChatController };
}

interface RefMessage {
  role: string;
  stopReason?: string;
  errorMessage?: string;
  content?: unknown;
  summary?: string;
}

interface RefManager {
  getEntries(): { id: string; type: string; parentId: string | null }[];
  buildSessionContext(): { messages: RefMessage[] };
}

const loadReference = () => import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): RefManager } }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(25);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("the chat in the extension host", function () {
  this.timeout(90_000);
  let arbor: Api;
  let server: ScriptedServer;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const chat = (): ChatController => arbor.testing!.chat;
  const sm = (): SessionManager => {
    const current = arbor.testing!.currentSession;
    assert.ok(current, "a session is open");
    return current;
  };
  const send = (text: string) => chat().receive(surface, { type: "send", text });
  const idle = () => until(() => surface.of("runState").at(-1)?.run === null && !sm().isReadOnly(), "the run to end");
  const readBack = async (): Promise<RefManager> => {
    await sm().flush();
    const pi = await loadReference();
    return pi.SessionManager.open(sm().getSessionFile()!);
  };
  const lastMessage = (ref: RefManager): RefMessage => ref.buildSessionContext().messages.at(-1)!;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    assert.ok(arbor.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    server = await startScriptedServer();
    await useScriptedModel("chat-endpoint", server.baseUrl);
    await config().update("compaction.keepRecentTokens", 10, vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = chat().attach(surface);
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.currentSession !== undefined && chat().state().model?.id === "scripted-model", "a new session with the scripted model");
  });

  after(async () => {
    detach?.dispose();
    for (const key of ["compaction.keepRecentTokens", "tree.askToSummarizeBranch"]) {
      await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    }
    setPiProvider("chat-endpoint", undefined);
    await server?.close();
  });

  it("streams a prompt's reply into the chat and appends both messages to the file", async () => {
    surface.clear();
    server.script(reply.text("Hello from **the model**, in pieces.", { chunks: 5, delayMs: 20 }));
    send("say hello");
    await until(() => surface.of("itemsAppended").some((m) => m.items.some((i) => i?.kind === "assistant")), "the reply item");
    await idle();
    assert.ok(surface.of("replyDelta").length >= 3, "the reply arrived as deltas");
    assert.equal(surface.of("replyDelta").map((d) => d.delta).join(""), "Hello from **the model**, in pieces.");
    // Never the whole transcript per token: no reset, and only the new items travel.
    assert.equal(surface.of("transcriptReset").length, 0);
    assert.ok(surface.of("itemsAppended").every((m) => m.items.length <= 2));
    const ref = await readBack();
    const last = lastMessage(ref);
    assert.equal(last.role, "assistant");
    assert.equal(last.stopReason, "stop");
    const body = server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    assert.match(JSON.stringify(body.messages.at(-1)), /say hello/);
  });

  it("Stop aborts a streaming reply; the partial reply is recorded as aborted, as Pi records it", async () => {
    surface.clear();
    server.script(reply.hang("The first words of a long", { chunks: 3, delayMs: 20 }));
    send("write a long essay");
    await until(() => surface.of("replyDelta").length >= 3, "the first deltas");
    chat().receive(surface, { type: "stop" });
    await idle();
    const recorded = surface.of("itemsAppended").flatMap((m) => m.items).find((i) => i?.kind === "assistant");
    assert.ok(recorded && recorded.kind === "assistant");
    assert.equal(recorded.stopReason, "aborted");
    const ref = await readBack();
    const last = lastMessage(ref);
    assert.equal(last.stopReason, "aborted");
    assert.match(JSON.stringify(last.content), /The first words of a long/);
    assert.equal(server.requests.at(-1)!.clientAborted, true, "the request was cancelled on the wire");
  });

  it("shows an HTTP error and records the failed reply with its error text", async () => {
    surface.clear();
    // A 400: the provider does not retry it (a 5xx would be retried before it is recorded).
    server.script(reply.error(400, { error: { message: "the scripted server broke" } }));
    send("this will fail");
    await idle();
    const recorded = surface.of("itemsAppended").flatMap((m) => m.items).find((i) => i?.kind === "assistant");
    assert.ok(recorded && recorded.kind === "assistant" && recorded.stopReason === "error");
    assert.match(recorded.errorMessage ?? "", /the scripted server broke/);
    const last = lastMessage(await readBack());
    assert.equal(last.stopReason, "error");
    assert.match(last.errorMessage ?? "", /the scripted server broke/);
  });

  it("a prompt sent while a reply runs steers it (after the tool result) and a follow-up waits for the reply's end; both are listed until delivered", async () => {
    surface.clear();
    const before = server.requests.length;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const call = reply.toolCall({ name: "ls", arguments: { path: "." } }).steps;
    server.script(
      reply.steps(call[0]!, { type: "chunk", delta: { content: "Listing first." } }, { type: "wait", until: gate }, ...call.slice(1)),
      reply.text("Answer to the steer."),
      reply.text("Answer to the follow-up."),
    );
    send("first question");
    await until(() => surface.of("replyDelta").length > 0, "the first reply streaming");
    send("STEERED question");
    chat().receive(surface, { type: "send", text: "FOLLOW-UP question", followUp: true });
    await until(() => surface.of("queue").at(-1)?.queued.length === 2, "both prompts listed");
    assert.deepEqual(surface.of("queue").at(-1)!.queued.map((q) => [q.kind, q.text]), [["steer", "STEERED question"], ["followUp", "FOLLOW-UP question"]]);
    assert.equal(server.requests.length - before, 1, "nothing more asked of the model while the reply runs");
    open();
    await until(() => surface.of("itemsAppended").flatMap((m) => m.items).filter((i) => i?.kind === "assistant").length === 3, "three replies");
    await idle();
    assert.deepEqual(surface.of("queue").at(-1)!.queued, []);
    assert.equal(server.requests.length - before, 3);
    const tail = sm()
      .getBranch()
      .flatMap((e) => (e.type === "message" ? [e.message.role === "user" ? `user: ${JSON.stringify(e.message.content)}` : e.message.role] : []))
      .slice(-7);
    assert.deepEqual(
      tail.map((t) => t.replace(/^user: .*(first|STEERED|FOLLOW-UP) question.*$/, "user: $1")),
      ["user: first", "assistant", "toolResult", "user: STEERED", "assistant", "user: FOLLOW-UP", "assistant"],
    );
  });

  it("Stop gives the queued prompts back to the input and records none of them", async () => {
    surface.clear();
    server.script(reply.hang("Never ends", { chunks: 2, delayMs: 50 }));
    send("third question");
    await until(() => surface.of("replyDelta").length > 0, "the third reply streaming");
    send("fourth question");
    chat().receive(surface, { type: "send", text: "fifth question", followUp: true });
    await until(() => surface.of("queue").at(-1)?.queued.length === 2, "both prompts listed");
    chat().receive(surface, { type: "stop" });
    await idle();
    assert.equal(surface.of("setInput").at(-1)?.text, "fourth question\n\nfifth question");
    assert.deepEqual(surface.of("queue").at(-1)!.queued, []);
    const users = sm().getBranch().flatMap((e) => (e.type === "message" && e.message.role === "user" ? [JSON.stringify(e.message.content)] : []));
    assert.equal(users.some((u) => /fourth|fifth/.test(u)), false);
    chat().receive(surface, { type: "inputChanged", text: "" });
  });

  it("runs !cmd as a shell command and records it with its exit code; !!cmd stays out of the context", async () => {
    surface.clear();
    send("!echo hi-from-bash && exit 3");
    await until(() => surface.of("itemsAppended").some((m) => m.items.some((i) => i?.kind === "bash")), "the bash item");
    const bash = surface.of("itemsAppended").flatMap((m) => m.items).find((i) => i?.kind === "bash");
    assert.ok(bash && bash.kind === "bash");
    assert.equal(bash.exitCode, 3);
    assert.match(bash.output, /hi-from-bash/);
    assert.ok(surface.of("bashProgress").some((p) => p.state === "start"));
    send("!!echo private");
    await until(() => surface.of("itemsAppended").flatMap((m) => m.items).filter((i) => i?.kind === "bash").length === 2, "the second bash item");
    await sm().flush();
    const context = sm().buildSessionContext().messages;
    const excluded = context.filter((m) => m.role === "bashExecution" && m.excludeFromContext);
    assert.equal(excluded.length, 1);
  });

  it("/compact writes a compaction that the reference resolves to the same context", async () => {
    surface.clear();
    server.script(reply.text("## Goal\nSay hello and survive errors.\n\n## Progress\n- greeted"));
    send("/compact keep the greeting");
    await until(() => surface.of("itemsAppended").some((m) => m.items.some((i) => i?.kind === "compaction")), "the compaction card");
    await idle();
    const summaryRequest = JSON.stringify(server.requests.at(-1)!.body);
    assert.match(summaryRequest, /keep the greeting/, "the instructions reached the summary request");
    const ref = await readBack();
    const first = ref.buildSessionContext().messages[0]!;
    assert.equal(first.role, "compactionSummary");
    assert.match(first.summary ?? "", /Say hello and survive errors/);
    assert.deepEqual(JSON.parse(JSON.stringify(sm().buildSessionContext().messages)), JSON.parse(JSON.stringify(ref.buildSessionContext().messages)));
  });

  it("the Compact Session command asks what the summary should focus on: Escape writes nothing, an answer compacts with it", async () => {
    surface.clear();
    server.script(reply.text("Something new to summarise."));
    send("one more question before compacting");
    await idle();
    const w = vscode.window as unknown as { showInputBox: typeof vscode.window.showInputBox };
    const original = w.showInputBox;
    const asked: (vscode.InputBoxOptions | undefined)[] = [];
    let answer: string | undefined;
    w.showInputBox = (options?: vscode.InputBoxOptions) => (asked.push(options), Promise.resolve(answer));
    try {
      const entries = sm().getEntries().length;
      const requests = server.requests.length;
      await vscode.commands.executeCommand("arbor.compactSession");
      assert.equal(asked.length, 1, "asked once");
      assert.equal(asked[0]?.title, "Compact Session");
      assert.equal(sm().getEntries().length, entries, "Escape: nothing written");
      assert.equal(server.requests.length, requests, "Escape: no summary asked for");
      answer = "  keep the question  ";
      server.script(reply.text("## Goal\nAnswer the question asked before compacting."));
      await vscode.commands.executeCommand("arbor.compactSession");
      assert.equal(asked.length, 2);
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /keep the question/, "the answer reached the summary request");
      assert.equal(sm().getBranch().at(-1)?.type, "compaction", "the compaction is the new leaf");
      const ref = await readBack();
      assert.match(ref.buildSessionContext().messages[0]!.summary ?? "", /Answer the question asked before compacting/);
    } finally {
      w.showInputBox = original;
    }
  });

  it("compacts on its own before a prompt when a smaller window puts the context over the threshold, and the chat shows it", async () => {
    surface.clear();
    server.script(reply.text("A big reply.", { usage: { promptTokens: 5000, completionTokens: 20 } }));
    send("fill the context");
    await idle();
    assert.equal(sm().getBranch().at(-1)?.type, "message", "no compaction under the default window");
    // A smaller window (models.json edited, as after a switch to a smaller model): 20,000 - 16,384
    // reserved leaves 3,616 tokens.
    setPiProvider("chat-endpoint", localProviderConfig(server.baseUrl, [], { models: [{ id: "scripted-model", contextWindow: 20_000 }] }));
    await until(() => chat().state().model?.contextWindow === 20_000, "the smaller window");
    surface.clear();
    server.script(reply.text("## Goal\nAuto summary"), reply.text("Answer after compacting."));
    send("and now?");
    await until(() => surface.of("itemsAppended").some((m) => m.items.some((i) => i?.kind === "assistant")), "the answer");
    await idle();
    assert.ok(surface.of("runState").some((m) => m.run?.kind === "compaction"), "the chat said it was compacting");
    assert.ok(surface.of("itemsAppended").some((m) => m.items.some((i) => i?.kind === "compaction")), "the compaction card");
    const kinds = sm().getBranch().map((e) => (e.type === "message" ? e.message.role : e.type));
    assert.deepEqual(kinds.slice(-4), ["assistant", "compaction", "user", "assistant"]);
    const ref = await readBack();
    assert.equal(lastMessage(ref).role, "assistant");
    assert.deepEqual(JSON.parse(JSON.stringify(sm().buildSessionContext().messages)), JSON.parse(JSON.stringify(ref.buildSessionContext().messages)));
    setPiProvider("chat-endpoint", localProviderConfig(server.baseUrl, ["scripted-model"]));
    await until(() => chat().state().model?.contextWindow !== 20_000, "the default window again");
  });

  it("shows a branch summary under the new position, and a checkout of a user message puts its text in the input", async () => {
    await config().update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    const firstUser = sm().getBranch().find((e) => e.type === "message" && e.message.role === "user")!;
    surface.clear();
    server.script(reply.text("## Goal\nWhat the abandoned branch learned"));
    // Leave the branch with a summary (what the checkout's "Summarize" choice runs).
    const result = await arbor.testing!.agentSession!.navigateTree(firstUser.id, { summarize: true });
    assert.equal(result.editText, "say hello");
    await until(() => surface.of("transcriptReset").some((m) => m.transcript.items.some((i) => i?.kind === "branchSummary")), "the summary card in the chat");
    const ref = await readBack();
    assert.ok(ref.getEntries().some((e) => e.type === "branch_summary"), "the branch summary is in the file");

    surface.clear();
    const target = sm().getEntries().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("this will fail"))!;
    await vscode.commands.executeCommand("arbor.tree.checkout", target.id);
    await until(() => surface.of("setInput").length > 0, "the text in the input");
    assert.equal(surface.of("setInput")[0]!.text, "this will fail");
    assert.ok(surface.of("transcriptReset").length > 0, "the chat re-rendered to the new path");
    // A prompt sent now starts a branch where that message was: a sibling of it.
    server.script(reply.text("A different answer."));
    send("this will not fail");
    await idle();
    const conversational = (id: string | null): string | null => {
      while (id && sm().getEntry(id)?.type === "custom") id = sm().getEntry(id)!.parentId;
      return id;
    };
    const sent = [...sm().getBranch()].reverse().find((e) => e.type === "message" && e.message.role === "user")!;
    assert.notEqual(sent.id, target.id);
    assert.equal(conversational(sent.parentId), conversational(target.parentId));
    await config().update("tree.askToSummarizeBranch", undefined, vscode.ConfigurationTarget.Global);
  });
});
