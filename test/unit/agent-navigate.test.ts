/** navigateTree with Pi's semantics: leaf moves that persist, branch summaries through the model, cancel and error. */
import * as assert from "node:assert/strict";
import { waitFor } from "../support/temp-dir";
import { AgentSession } from "../../src/core/agent/agent-session";
import { AgentError } from "../../src/core/agent/errors";
import { BRANCH_SUMMARY_INSTRUCTIONS, BRANCH_SUMMARY_PREAMBLE, SUMMARIZER_SYSTEM_PROMPT } from "../../src/core/compaction/prompts";
import { SessionManager } from "../../src/core/session/session-manager";
import type { BranchSummaryEntry, SessionEntry } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, makeKit, makeSession, nextEvent, readLines, sentMessages, type AgentKit } from "./agent-harness.test";

interface Tree {
  sm: SessionManager;
  session: AgentSession;
  user1: string;
  answer1: string;
  user2: string;
  answer2: string;
}

function findMessage(sm: SessionManager, role: string, text: string): SessionEntry {
  const found = sm.getEntries().find((e) => e.type === "message" && e.message.role === role && JSON.stringify(e.message).includes(text));
  assert.ok(found, `a ${role} message with ${text}`);
  return found;
}

/** user1 -> answer1 -> user2 -> answer2 (the leaf). */
async function linearSession(kit: AgentKit): Promise<Tree> {
  const { sm, session } = await makeSession(kit);
  kit.server.script(reply.text("answer one"), reply.text("answer two"));
  await session.prompt("question one");
  await session.prompt("question two");
  return {
    sm,
    session,
    user1: findMessage(sm, "user", "question one").id,
    answer1: findMessage(sm, "assistant", "answer one").id,
    user2: findMessage(sm, "user", "question two").id,
    answer2: findMessage(sm, "assistant", "answer two").id,
  };
}

function requestText(kit: AgentKit, index: number): { system: string; user: string } {
  const messages = sentMessages(kit.server, index) as { role: string; content: unknown }[];
  const content = messages[1]!.content;
  return { system: messages[0]!.content as string, user: typeof content === "string" ? content : (content as { text: string }[]).map((c) => c.text).join("") };
}

describe("AgentSession navigateTree", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("on a user message moves the leaf to its parent, hands back its text, and the move survives a reopen (in Pi too)", async () => {
    const t = await linearSession(kit);
    const result = await t.session.navigateTree(t.user2);
    assert.deepEqual(result, { cancelled: false, leafId: t.answer1, editText: "question two" });
    assert.equal(t.sm.getLeafId(), t.answer1);
    await t.sm.flush();
    await assertPiReadsSame(t.sm.getSessionFile()!, t.sm.buildSessionContext());
    const file = t.sm.getSessionFile()!;
    await t.session.close();
    await t.sm.close();
    const reopened = await SessionManager.open(file);
    assert.equal(reopened.getLeafId(), t.answer1);
    await reopened.close();
  });

  it("on any other entry makes it the leaf; navigating to the leaf itself is a no-op", async () => {
    const t = await linearSession(kit);
    assert.deepEqual(await t.session.navigateTree(t.answer1), { cancelled: false, leafId: t.answer1 });
    const count = t.sm.getEntryCount();
    assert.deepEqual(await t.session.navigateTree(t.answer1), { cancelled: false, leafId: t.answer1 });
    assert.equal(t.sm.getEntryCount(), count);
    await assert.rejects(t.session.navigateTree("deadbeef"), (e: unknown) => e instanceof AgentError && e.code === "unknown-entry");
    await t.session.close();
    await t.sm.close();
  });

  it("summarizes the branch being left through the model and attaches it, labelled, under the new position", async () => {
    const t = await linearSession(kit);
    await t.session.navigateTree(t.user2);
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "missing.txt" } }), reply.text("alternative answer"));
    await t.session.prompt("alternative question");
    const altAnswer = findMessage(t.sm, "assistant", "alternative answer").id;
    const requestsBefore = kit.server.requests.length;

    kit.server.script(reply.text("## Goal\nTried an alternative."));
    const result = await t.session.navigateTree(t.answer2, { summarize: true, customInstructions: "what was tried", label: "alt-notes" });
    assert.equal(result.cancelled, false);
    const summary = result.summaryEntry as BranchSummaryEntry;
    assert.equal(summary.parentId, t.answer2);
    assert.equal(summary.fromId, t.answer2);
    assert.equal(summary.summary, `${BRANCH_SUMMARY_PREAMBLE}## Goal\nTried an alternative.\n\n<read-files>\nmissing.txt\n</read-files>`);
    assert.deepEqual(summary.details, { readFiles: ["missing.txt"], modifiedFiles: [] });
    assert.equal(t.sm.getLabel(summary.id), "alt-notes");

    const request = requestText(kit, requestsBefore);
    assert.equal(request.system, SUMMARIZER_SYSTEM_PROMPT);
    assert.ok(request.user.includes("alternative question") && request.user.includes("alternative answer"));
    assert.ok(!request.user.includes("question one"), "entries up to the common ancestor only");
    assert.ok(request.user.endsWith(`${BRANCH_SUMMARY_INSTRUCTIONS}\n\nPay particular attention to: what was tried`));
    assert.ok(t.sm.getPathIds().includes(summary.id) && !t.sm.getPathIds().includes(altAnswer));

    kit.server.script(reply.text("continuing"));
    await t.session.prompt("go on");
    assert.match(JSON.stringify(sentMessages(kit.server, requestsBefore + 1)), /Tried an alternative/);
    await t.sm.flush();
    await assertPiReadsSame(t.sm.getSessionFile()!, t.sm.buildSessionContext());
    await t.session.close();
    await t.sm.close();
  });

  it("replaceInstructions sends only the caller's instructions", async () => {
    const t = await linearSession(kit);
    kit.server.script(reply.text("short"));
    await t.session.navigateTree(t.answer1, { summarize: true, customInstructions: "One line only.", replaceInstructions: true });
    assert.ok(requestText(kit, 2).user.endsWith("</conversation>\n\nOne line only."));
    await t.session.close();
    await t.sm.close();
  });

  it("a cancelled or failed summary writes nothing and leaves the leaf where it was", async () => {
    const t = await linearSession(kit);
    await t.sm.flush();
    const before = readLines(t.sm.getSessionFile()!);

    kit.server.script(reply.hang("## Goal\nhalf"));
    const controller = new AbortController();
    const started = nextEvent(t.session, (e) => e.type === "branch_summary_start");
    const navigation = t.session.navigateTree(t.answer1, { summarize: true, signal: controller.signal });
    await started;
    // Abort once the request is at the server, so the hanging reply is used up by this request.
    await waitFor(() => kit.server.pendingReplies() === 0, "the summary request at the server");
    controller.abort();
    assert.deepEqual(await navigation, { cancelled: true, aborted: true, leafId: t.answer2 });

    kit.server.script(reply.error(500, { error: { message: "summarizer down" } }));
    await assert.rejects(t.session.navigateTree(t.answer1, { summarize: true }), (e: unknown) => e instanceof AgentError && e.code === "summary-failed" && /summarizer down/.test(e.message));
    assert.equal(t.sm.getLeafId(), t.answer2);
    await t.sm.flush();
    assert.deepEqual(readLines(t.sm.getSessionFile()!), before);
    await t.session.close();
    await t.sm.close();
  });

  it("a label without a summary goes on the target and keeps the new position across a reopen", async () => {
    const t = await linearSession(kit);
    await t.session.navigateTree(t.user2, { label: "retry-here" });
    assert.equal(t.sm.getLabel(t.user2), "retry-here");
    const file = t.sm.getSessionFile()!;
    await t.session.close();
    await t.sm.close();
    const reopened = await SessionManager.open(file);
    assert.deepEqual(reopened.buildSessionContext(), reopened.buildSessionContext(t.answer1));
    await reopened.close();
  });

  it("in a read-only view moves the leaf in memory only, and refuses to write a summary", async () => {
    const t = await linearSession(kit);
    await t.sm.flush();
    const view = await SessionManager.open(t.sm.getSessionFile()!, { whenLocked: "read-only" });
    const viewer = new AgentSession({ ...kit.config(), sessionManager: view });
    await viewer.navigateTree(t.answer1);
    assert.equal(view.getLeafId(), t.answer1);
    await assert.rejects(viewer.navigateTree(t.user1, { summarize: true }), (e: unknown) => e instanceof AgentError && e.code === "read-only");
    await viewer.close();
    await view.close();
    await t.session.close();
    await t.sm.close();
  });
});
