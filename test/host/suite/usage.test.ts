/**
 * Usage and cost in a real extension host (issue 22.4), over the scripted server with a model
 * that has prices in models.json (so pi-ai records a cost with each reply): each reply's item
 * carries its usage and cost to the chat, the status bar shows the session's running total after
 * each reply and after a checkout, and `/session` reports the numbers a direct sum over the file
 * (read back with the reference package) gives, along the current path and over the whole file.
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { SessionStats } from "../../../src/protocol/chat-messages";
import { usageLine } from "../../../src/core/session/usage-format";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { localProviderConfig, modelApi, setPiProvider, until } from "./model-helpers";
import { RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly chat: ChatController;
    readonly statusBar: { readonly text: string; readonly tooltip: string };
  };
}

interface RefEntry {
  id: string;
  type: string;
  parentId: string | null;
  message?: { role: string; usage?: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: { total: number } }; content?: { type: string }[] };
}

const loadReference = () => import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): { getEntries(): RefEntry[]; getBranch(): RefEntry[] } } }>;

/** Per million tokens, as models.json gives them. */
const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

function sum(entries: RefEntry[]): { user: number; assistant: number; toolCalls: number; input: number; output: number; cost: number } {
  const t = { user: 0, assistant: 0, toolCalls: 0, input: 0, output: 0, cost: 0 };
  for (const e of entries) {
    if (e.type !== "message" || !e.message) continue;
    if (e.message.role === "user") t.user++;
    if (e.message.role !== "assistant") continue;
    t.assistant++;
    t.toolCalls += (e.message.content ?? []).filter((b) => b.type === "toolCall").length;
    t.input += e.message.usage!.input;
    t.output += e.message.usage!.output;
    t.cost += e.message.usage!.cost.total;
  }
  return t;
}

describe("usage and cost in the extension host", function () {
  this.timeout(90_000);
  let arbor: NonNullable<Api["testing"]>;
  let server: ScriptedServer;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  const sm = (): SessionManager => {
    assert.ok(arbor.currentSession, "a session is open");
    return arbor.currentSession;
  };
  const send = (text: string) => arbor.chat.receive(surface, { type: "send", text });
  /** The run started after the last `surface.clear()` has ended. */
  const idle = () => until(() => surface.of("runState").length > 1 && surface.of("runState").at(-1)?.run === null, "the run to end");
  const readBack = async () => {
    await sm().flush();
    return (await loadReference()).SessionManager.open(sm().getSessionFile()!);
  };
  const sessionStats = async (): Promise<SessionStats> => {
    const before = surface.of("sessionStats").length;
    send("/session");
    await until(() => surface.of("sessionStats").length > before, "the /session report");
    return surface.of("sessionStats").at(-1)!.stats;
  };

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = ((await ext.activate()) as Api).testing!;
    assert.ok(arbor, "the runner sets ARBOR_TEST_HOOKS=1");
    server = await startScriptedServer();
    setPiProvider("usage-endpoint", { ...localProviderConfig(server.baseUrl, []), models: [{ id: "priced-model", cost: PRICES }] });
    const { models } = await modelApi();
    await until(() => models.findEntry({ provider: "usage-endpoint", id: "priced-model" }) !== undefined, "the priced model");
    assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "usage-endpoint", id: "priced-model" }), true);
    // A checkout would otherwise ask whether to summarize the branch it leaves.
    await vscode.workspace.getConfiguration("arbor").update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = arbor.chat.attach(surface);
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.currentSession !== undefined && arbor.chat.state().model?.id === "priced-model", "a new session with the priced model");
  });

  after(async () => {
    detach?.dispose();
    await vscode.workspace.getConfiguration("arbor").update("tree.askToSummarizeBranch", undefined, vscode.ConfigurationTarget.Global);
    setPiProvider("usage-endpoint", undefined);
    await server?.close();
  });

  it("each reply carries its tokens and recorded cost to the chat, and the status bar shows the running total", async () => {
    surface.clear();
    server.script(reply.text("First answer.", { usage: { promptTokens: 1200, completionTokens: 340 } }));
    send("first question");
    await idle();
    const item = surface.of("itemsAppended").flatMap((m) => m.items).find((i) => i?.kind === "assistant");
    assert.ok(item?.kind === "assistant" && item.usage, "the reply's item has its usage");
    assert.equal(item.usage.input, 1200);
    assert.equal(item.usage.output, 340);
    const expectedCost = (1200 * PRICES.input + 340 * PRICES.output) / 1e6;
    assert.ok(Math.abs(item.usage.cost.total - expectedCost) < 1e-12, `the recorded cost travels with the item: ${item.usage.cost.total}`);
    await until(() => arbor.statusBar.text.includes("↑1.2k ↓340 $0.0087"), `the status bar total (${arbor.statusBar.text})`);

    surface.clear();
    server.script(reply.text("Second answer.", { usage: { promptTokens: 2500, completionTokens: 600 } }));
    send("second question");
    await idle();
    const ref = await readBack();
    const all = sum(ref.getEntries());
    assert.equal(all.assistant, 2);
    const line = usageLine({ input: all.input, output: all.output, cacheRead: 0, cacheWrite: 0, total: all.input + all.output }, all.cost)!;
    assert.equal(line, "↑3.7k ↓940 $0.025");
    await until(() => arbor.statusBar.text.includes(line), `the status bar to add the second reply (${arbor.statusBar.text})`);
    assert.match(arbor.statusBar.tooltip, /whole file[^]*Input: 3,700 tokens[^]*Output: 940 tokens[^]*Cost: \$0\.0252/);
  });

  it("/session reports what a direct sum over the file gives, along the current path and over the whole file, and follows a checkout", async () => {
    const ref = await readBack();
    const file = sum(ref.getEntries());
    let stats = await sessionStats();
    assert.equal(stats.id, sm().getSessionId());
    assert.equal(stats.file, sm().getSessionFile());
    for (const [what, totals] of [["path", stats.path], ["whole file", stats.wholeFile]] as const) {
      assert.equal(totals.messages.user, file.user, `${what}: user messages`);
      assert.equal(totals.messages.assistant, file.assistant, `${what}: assistant messages`);
      assert.equal(totals.messages.total, file.user + file.assistant, `${what}: all messages`);
      assert.equal(totals.tokens.input, file.input, `${what}: input tokens`);
      assert.equal(totals.tokens.output, file.output, `${what}: output tokens`);
      assert.ok(Math.abs(totals.cost - file.cost) < 1e-12, `${what}: cost ${totals.cost} against ${file.cost}`);
    }

    // Back to the first reply: the path drops the second exchange, the file keeps it.
    const firstReply = ref.getEntries().find((e) => e.message?.role === "assistant")!;
    await vscode.commands.executeCommand("arbor.checkoutEntry", firstReply.id);
    await until(() => sm().getLeafId() === firstReply.id, "the checkout");
    await until(() => /Along the current path:\nInput: 1,200 tokens/.test(arbor.statusBar.tooltip), `the tooltip's path totals to follow the checkout (${arbor.statusBar.tooltip})`);
    assert.ok(arbor.statusBar.text.includes("↑3.7k ↓940 $0.025"), "the running total is the whole file's");
    stats = await sessionStats();
    const path = sum((await readBack()).getBranch());
    assert.equal(stats.path.messages.assistant, 1);
    assert.equal(stats.path.tokens.input, path.input);
    assert.ok(Math.abs(stats.path.cost - path.cost) < 1e-12);
    assert.equal(stats.wholeFile.tokens.input, file.input);
  });
});
