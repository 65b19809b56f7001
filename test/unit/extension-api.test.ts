/** The session-extension API: dispatch order, cancels, answers that change tree and compaction, contexts and the exported API. */
import * as assert from "node:assert/strict";
import { createArborApi } from "../../src/core/runtime/arbor-api";
import type { ExtensionContext, SessionEventType } from "../../src/core/runtime/extension-api";
import { STALE_CONTEXT_MESSAGE } from "../../src/core/runtime/extension-context";
import { ExtensionHost } from "../../src/core/runtime/extension-host";
import type { BranchSummaryEntry, CompactionEntry } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, makeKit, startRuntime, type AgentKit } from "./agent-harness.test";

/** A context that must not be touched by the dispatch tests. */
const NO_CONTEXT = new Proxy({}, { get: () => assert.fail("the host must not use the context itself") }) as ExtensionContext;

describe("ExtensionHost dispatch", () => {
  it("runs handlers in registration order, merges before-answers, and the first cancel wins", async () => {
    const host = new ExtensionHost();
    const calls: string[] = [];
    host.register({ name: "a", handlers: { session_before_tree: () => (calls.push("a"), { label: "from-a", customInstructions: "a" }) } });
    host.register({ name: "b", handlers: { session_before_tree: () => (calls.push("b"), { label: "from-b" }) } });
    const event = { type: "session_before_tree" as const, preparation: {} as never, signal: new AbortController().signal };
    assert.deepEqual(await host.emit("session_before_tree", event, NO_CONTEXT), { label: "from-b", customInstructions: "a" });
    assert.deepEqual(calls, ["a", "b"]);

    calls.length = 0;
    host.register({ name: "c", handlers: { session_before_tree: () => (calls.push("c"), { cancel: true }) } });
    host.register({ name: "d", handlers: { session_before_tree: () => (calls.push("d"), { cancel: true, label: "d" }) } });
    assert.deepEqual(await host.emit("session_before_tree", event, NO_CONTEXT), { cancel: true });
    assert.deepEqual(calls, ["a", "b", "c"], "handlers after the first cancel do not run");
  });

  it("reports a throwing handler, goes on with the next, and never counts it as a cancel", async () => {
    const host = new ExtensionHost();
    const reports: string[] = [];
    host.onDidReportError((r) => reports.push(`${r.extension}/${r.event}/${r.error.message}`));
    host.register({ name: "bad", handlers: { session_before_switch: async () => Promise.reject(new Error("nope")) } });
    host.register({ name: "good", handlers: { session_before_switch: () => ({}) } });
    assert.deepEqual(await host.emit("session_before_switch", { type: "session_before_switch", reason: "new" }, NO_CONTEXT), {});
    assert.deepEqual(reports, ["bad/session_before_switch/nope"]);
  });

  it("registration returns a disposable that unregisters; after-events ignore answers; bad registrations are refused", async () => {
    const host = new ExtensionHost();
    let count = 0;
    const registration = host.register({ name: "x", handlers: { session_start: () => void count++ } });
    const start = { type: "session_start" as const, reason: "startup" as const };
    assert.equal(await host.emit("session_start", start, NO_CONTEXT), undefined);
    registration.dispose();
    await host.emit("session_start", start, NO_CONTEXT);
    assert.equal(count, 1);
    assert.equal(host.hasHandlers("session_start" satisfies SessionEventType), false);
    assert.throws(() => host.register({ name: "y" } as never), /needs a name and a handlers object/);
  });
});

describe("extensions in the runtime", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("session_before_tree can cancel a navigation, or supply the summary and change the label", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.text("second answer"));
    await runtime.session.prompt("second question");
    const sm = runtime.session.sessionManager;
    const firstAnswer = sm.getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!.id;
    const leaf = sm.getLeafId();
    let mode: "cancel" | "supply" = "cancel";
    const treeEvents: { summaryEntry?: BranchSummaryEntry; fromExtension?: boolean }[] = [];
    runtime.extensions.register({
      name: "tree",
      handlers: {
        session_before_tree: (e) => {
          assert.equal(e.preparation.userWantsSummary, true);
          assert.equal(e.preparation.entriesToSummarize.length, 2);
          return mode === "cancel" ? { cancel: true } : { summary: { summary: "made by the extension", details: { by: "ext" } }, label: "ext-label" };
        },
        session_tree: (e) => void treeEvents.push(e),
      },
    });
    assert.deepEqual(await runtime.session.navigateTree(firstAnswer, { summarize: true }), { cancelled: true, leafId: leaf });
    assert.equal(sm.getLeafId(), leaf);

    mode = "supply";
    const requests = kit.server.requests.length;
    const result = await runtime.session.navigateTree(firstAnswer, { summarize: true, label: "mine" });
    assert.equal(kit.server.requests.length, requests, "the model was not asked");
    assert.equal(result.summaryEntry?.summary, "made by the extension");
    assert.equal(result.summaryEntry?.fromHook, true);
    assert.equal(sm.getLabel(result.summaryEntry!.id), "ext-label");
    assert.equal(treeEvents.length, 1);
    assert.equal(treeEvents[0]!.fromExtension, true);
    assert.equal(treeEvents[0]!.summaryEntry?.id, result.summaryEntry!.id);
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await runtime.dispose();
  });

  it("session_before_tree says when the files will follow; session_tree says whether they did, after the leaf moved", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.text("second answer"));
    await runtime.session.prompt("second question");
    const sm = runtime.session.sessionManager;
    const firstAnswer = sm.getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!.id;
    const seen: string[] = [];
    runtime.extensions.register({
      name: "files",
      handlers: {
        session_before_tree: (e) => void seen.push(`before restoreFiles=${String(e.preparation.restoreFiles)}`),
        session_tree: (e) => void seen.push(`tree filesRestored=${String(e.filesRestored)}`),
      },
    });
    let restored = true;
    const files = {
      restore: async () => {
        seen.push(`restore at leaf ${sm.getLeafId() === firstAnswer ? "target" : "old"}`);
        return restored;
      },
    };
    await runtime.session.navigateTree(firstAnswer, { files });
    const leaf = sm.getBranch().at(-1)!.id;
    restored = false;
    await runtime.session.navigateTree(leaf === firstAnswer ? sm.getBranch()[0]!.id : firstAnswer, { files });
    await runtime.session.navigateTree(firstAnswer);
    assert.deepEqual(seen, [
      "before restoreFiles=true",
      "restore at leaf target",
      "tree filesRestored=true",
      "before restoreFiles=true",
      "restore at leaf old",
      "tree filesRestored=false",
      "before restoreFiles=false",
      "tree filesRestored=false",
    ]);
    await runtime.dispose();
  });

  it("session_before_compact can cancel a compaction or supply one; session_compact reports the entry", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.text("second answer"));
    await runtime.session.prompt("second question");
    const sm = runtime.session.sessionManager;
    const keep = sm.getBranch().find((e) => e.type === "message" && JSON.stringify(e).includes("second question"))!.id;
    let cancel = true;
    const compacted: { entry: CompactionEntry; fromExtension: boolean }[] = [];
    runtime.extensions.register({
      name: "compactor",
      handlers: {
        session_before_compact: (e) => {
          assert.ok(e.branchEntries.length > 0 && typeof e.preparation.tokensBefore === "number");
          return cancel ? { cancel: true } : { compaction: { summary: "extension summary", firstKeptEntryId: keep, tokensBefore: 1234 } };
        },
        session_compact: (e) => void compacted.push({ entry: e.compactionEntry, fromExtension: e.fromExtension }),
      },
    });
    assert.deepEqual(await runtime.session.compact(), { kind: "cancelled", by: "extension" });
    assert.ok(!sm.getBranch().some((e) => e.type === "compaction"));

    cancel = false;
    const requests = kit.server.requests.length;
    const outcome = await runtime.session.compact();
    assert.equal(outcome.kind, "compacted");
    assert.equal(kit.server.requests.length, requests, "the model was not asked");
    const entry = sm.getLeafEntry() as CompactionEntry;
    assert.equal(entry.summary, "extension summary");
    assert.equal(entry.firstKeptEntryId, keep);
    assert.equal(entry.tokensBefore, 1234);
    assert.equal(entry.fromHook, true);
    assert.deepEqual(compacted.map((c) => [c.entry.id, c.fromExtension]), [[entry.id, true]]);
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await runtime.dispose();
  });

  it("a context appends custom entries, custom messages, labels and names, and hands out copies", async () => {
    const runtime = await startRuntime(kit);
    const ctx = runtime.createContext();
    const leaf = ctx.getLeafId()!;
    const customId = ctx.appendEntry("my-ext", { step: 1 });
    const messageId = await ctx.sendMessage({ customType: "my-ext", content: "injected note", display: false });
    ctx.setLabel(leaf, "checkpoint");
    ctx.setSessionName("Named by extension");
    const sm = runtime.session.sessionManager;
    assert.equal(sm.getEntry(customId)?.type, "custom");
    const message = sm.getEntry(messageId);
    assert.equal(message?.type, "custom_message");
    assert.equal(ctx.getLabel(leaf), "checkpoint");
    assert.equal(ctx.getSessionName(), "Named by extension");
    const copy = ctx.getEntry(customId) as { data: { step: number } };
    copy.data.step = 99;
    assert.deepEqual((sm.getEntry(customId) as { data: unknown }).data, { step: 1 });
    assert.ok(ctx.getTree().length > 0);
    kit.server.script(reply.text("seen"));
    await runtime.session.prompt("did you get the note?");
    assert.match(JSON.stringify(kit.server.requests[kit.server.requests.length - 1]!.body), /injected note/);
    await runtime.dispose();
  });

  it("a custom message sent while a prompt runs is appended after the reply", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.hang("working"));
    const streaming = new Promise<void>((resolve) => {
      const sub = runtime.session.onEvent((e) => e.type === "message_update" && (sub.dispose(), resolve()));
    });
    const prompt = runtime.session.prompt("long");
    await streaming;
    const sent = runtime.createContext().sendMessage({ customType: "ext", content: "later" });
    runtime.session.abort();
    await prompt;
    const id = await sent;
    const path = runtime.session.getBranch();
    assert.equal(path[path.length - 1]!.id, id);
    const before = path[path.length - 2]!;
    assert.equal(before.type === "message" && before.message.role === "assistant" && before.message.stopReason, "aborted", "it follows the stopped reply");
    await runtime.dispose();
  });

  it("the exported API registers extensions across replacements and hands out contexts that go stale", async () => {
    const runtime = await startRuntime(kit);
    const api = createArborApi(runtime.extensions, () => runtime);
    assert.equal(api.apiVersion, 1);
    const starts: string[] = [];
    const registration = api.registerSessionExtension({ name: "api", handlers: { session_start: (e) => void starts.push(e.reason) } });
    const context = api.getSessionContext()!;
    await runtime.newSession();
    await runtime.reload();
    assert.deepEqual(starts, ["new", "reload"]);
    assert.throws(() => context.appendEntry("x"), { message: STALE_CONTEXT_MESSAGE });
    assert.equal(api.getSessionContext()!.sessionId, runtime.session.sessionManager.getSessionId());
    registration.dispose();
    await runtime.newSession();
    assert.deepEqual(starts, ["new", "reload"]);
    assert.equal(createArborApi(runtime.extensions, () => undefined).getSessionContext(), undefined);
    await runtime.dispose();
  });
});
