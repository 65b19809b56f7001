/** Compaction end to end over the loopback server: manual, threshold, overflow with one retry, cancel and error. */
import * as assert from "node:assert/strict";
import { waitFor } from "../support/temp-dir";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type AgentSessionConfig } from "../../src/core/agent/agent-session";
import { AgentError } from "../../src/core/agent/errors";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { prepareCompaction } from "../../src/core/compaction/prepare-compaction";
import {
  COMPACTION_INSTRUCTIONS,
  COMPACTION_UPDATE_INSTRUCTIONS,
  SPLIT_TURN_HEADING,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_PREFIX_INSTRUCTIONS,
} from "../../src/core/compaction/prompts";
import { DEFAULT_COMPACTION_SETTINGS, estimateTokens } from "../../src/core/compaction/tokens";
import type { SessionManager } from "../../src/core/session/session-manager";
import type { CompactionEntry, SessionEntry } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import {
  assertPiReadsSame,
  expectedChatMessages,
  makeKit,
  makeSession,
  nextEvent,
  readLines,
  recordEvents,
  sentMessages,
  type AgentKit,
} from "./agent-harness.test";

const FILE_LISTS = "\n\n<read-files>\na.txt\n</read-files>\n\n<modified-files>\nb.txt\n</modified-files>";
const words = (tag: string): string => `${tag}: ${"lorem ipsum dolor sit amet ".repeat(8)}`;
/** Keeps one reply made by `words` and the user message before it: the cut lands on that user message. */
const KEEP_ONE_REPLY = Math.ceil(words("xxx").length / 4) + 1;

/** The user prompt text of chat-completions request `index`. */
function promptOf(kit: AgentKit, index: number): { system: string; user: string; maxTokens: unknown } {
  const messages = sentMessages(kit.server, index) as { role: string; content: unknown }[];
  const body = kit.server.requests.filter((r) => r.path.endsWith("/chat/completions"))[index]!.body as { max_completion_tokens?: unknown };
  const user = messages[1]!.content;
  const text = typeof user === "string" ? user : (user as { text: string }[]).map((p) => p.text).join("");
  return { system: messages[0]!.content as string, user: text, maxTokens: body.max_completion_tokens };
}

/** Two tool turns (a read of a.txt, a write of b.txt) then two plain turns. */
async function buildConversation(kit: AgentKit, session: AgentSession): Promise<void> {
  writeFileSync(join(kit.cwd, "a.txt"), "contents of a\n");
  kit.server.script(
    reply.toolCall({ name: "read", arguments: { path: "a.txt" } }),
    reply.text(words("read it")),
    reply.toolCall({ name: "write", arguments: { path: "b.txt", content: "new b" } }),
    reply.text(words("wrote it")),
    reply.text(words("third answer")),
    reply.text(words("fourth answer")),
  );
  await session.prompt(words("please read a"));
  await session.prompt(words("please write b"));
  await session.prompt(words("third question"));
  await session.prompt(words("fourth question"));
}

/** A budget that keeps exactly the last turn (its user message and reply), so the cut is at a turn start. */
function keepLastTurn(sm: SessionManager): number {
  const path = sm.getBranch();
  const last = path[path.length - 1] as SessionEntry & { type: "message" };
  return estimateTokens(last.message) + 1;
}

async function sessionWith(kit: AgentKit, sm: SessionManager, extra: AgentSessionConfig): Promise<AgentSession> {
  return new AgentSession({ ...kit.config(extra), sessionManager: sm });
}

describe("AgentSession compaction", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("compacts manually through the model: structured request, files listed, entry read the same by Pi, then updated", async () => {
    const built = await makeSession(kit);
    await buildConversation(kit, built.session);
    await built.session.close();
    const sm = built.sm;
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keepLastTurn(sm) };
    const session = await sessionWith(kit, sm, { compaction: settings });
    const expected = prepareCompaction(sm.getBranch(), settings)!;
    assert.equal(expected.isSplitTurn, false);
    const log = recordEvents(session);

    kit.server.script(reply.text("## Goal\nFirst summary."));
    const outcome = await session.compact("the file work");
    assert.equal(outcome.kind, "compacted");
    const request = promptOf(kit, 6);
    assert.equal(request.system, SUMMARIZER_SYSTEM_PROMPT);
    assert.ok(request.user.startsWith("<conversation>\n"));
    assert.ok(request.user.includes(COMPACTION_INSTRUCTIONS));
    assert.ok(request.user.endsWith("Pay particular attention to: the file work"));
    assert.ok(!request.user.includes("fourth question"), "the kept turn is not summarized");
    assert.equal(request.maxTokens, Math.floor(0.8 * settings.reserveTokens));

    const entry = sm.getLeafEntry() as CompactionEntry;
    assert.equal(entry.type, "compaction");
    assert.equal(entry.summary, `## Goal\nFirst summary.${FILE_LISTS}`);
    assert.deepEqual(entry.details, { readFiles: ["a.txt"], modifiedFiles: ["b.txt"] });
    assert.equal(entry.firstKeptEntryId, expected.firstKeptEntryId);
    assert.equal(entry.tokensBefore, expected.tokensBefore);
    assert.equal(entry.fromHook, false);
    assert.deepEqual(
      log.events.flatMap((e) => (e.type === "compaction_progress" ? [e.phase] : e.type.startsWith("compaction") ? [e.type] : [])),
      ["compaction_start", "preparing", "summarizing", "writing", "compaction_end"],
    );
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());

    // The next prompt sends the summary and the kept turn.
    kit.server.script(reply.text(words("fifth answer")));
    await session.prompt(words("fifth question"));
    const fifthUser = sm.getBranch().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message).includes("fifth"))!;
    assert.deepEqual(sentMessages(kit.server, 7), await expectedChatMessages(kit, promptSystem(kit, 7), sm.buildSessionContext(fifthUser.id)));
    const sent = JSON.stringify(sentMessages(kit.server, 7));
    assert.ok(sent.includes("First summary.") && sent.includes("fourth question") && !sent.includes("third question"));

    // A second compaction updates the first summary, carrying its file lists.
    kit.server.script(reply.text("## Goal\nSecond summary."));
    const again = await session.compact();
    assert.equal(again.kind, "compacted");
    const update = promptOf(kit, 8);
    assert.ok(update.user.includes(`<previous-summary>\n## Goal\nFirst summary.${FILE_LISTS}\n</previous-summary>`));
    assert.ok(update.user.endsWith(COMPACTION_UPDATE_INSTRUCTIONS));
    const second = sm.getLeafEntry() as CompactionEntry;
    assert.equal(second.summary, `## Goal\nSecond summary.${FILE_LISTS}`);
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await assert.rejects(session.compact(), (e: unknown) => e instanceof AgentError && e.code === "already-compacted");
    await session.close();
    await sm.close();
  });

  it("summarizes a split turn's start separately and joins both summaries", async () => {
    const built = await makeSession(kit);
    await buildConversation(kit, built.session);
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "a.txt" } }), reply.text(words("final")));
    await built.session.prompt(words("last turn with a tool"));
    await built.session.close();
    const sm = built.sm;
    const session = await sessionWith(kit, sm, { compaction: { keepRecentTokens: 1 } });
    kit.server.script(reply.text("PART"), reply.text("PART"));
    await session.compact();
    const prompts = [promptOf(kit, 8).user, promptOf(kit, 9).user];
    assert.equal(prompts.filter((p) => p.endsWith(TURN_PREFIX_INSTRUCTIONS)).length, 1);
    assert.equal(prompts.filter((p) => p.endsWith(COMPACTION_INSTRUCTIONS)).length, 1);
    const entry = sm.getLeafEntry() as CompactionEntry;
    assert.ok(entry.summary.startsWith(`PART\n\n---\n\n${SPLIT_TURN_HEADING}\n\nPART`));
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("compacts on its own once the reported context crosses the window minus reserveTokens", async () => {
    const small = await makeKit({ contextWindow: 1000 });
    try {
      const { sm, session } = await makeSession(small, { compaction: { reserveTokens: 200, keepRecentTokens: KEEP_ONE_REPLY } });
      small.server.script(reply.text(words("one")), reply.text(words("two"), { usage: { promptTokens: 790, completionTokens: 20 } }), reply.text("AUTO SUMMARY"));
      const log = recordEvents(session);
      await session.prompt(words("first"));
      assert.ok(!sm.getBranch().some((e) => e.type === "compaction"), "under the threshold nothing happens");
      await session.prompt(words("second"));
      const leaf = sm.getLeafEntry() as CompactionEntry;
      assert.equal(leaf.type, "compaction");
      assert.ok(leaf.summary.startsWith("AUTO SUMMARY"));
      const end = log.events.find((e) => e.type === "compaction_end") as Extract<AgentSessionEvent, { type: "compaction_end" }>;
      assert.equal(end.reason, "threshold");
      assert.equal(end.willRetry, false);
      assert.equal(small.server.requests.length, 3, "no retry after a threshold compaction");
      await session.close();
      await sm.close();
    } finally {
      await small.cleanup();
    }
  });

  it("after a context-overflow error compacts once and sends the request again", async () => {
    const { sm, session } = await makeSession(kit, { compaction: { keepRecentTokens: 10 } });
    kit.server.script(reply.text(words("one")), reply.overflow(), reply.text("OVERFLOW SUMMARY"), reply.text("answer after retry"));
    await session.prompt(words("first"));
    const result = await session.prompt(words("second"));
    assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
    const kinds = sm.getBranch().map((e) => (e.type === "message" ? `${e.message.role}${e.message.role === "assistant" ? `:${e.message.stopReason}` : ""}` : e.type));
    assert.deepEqual(kinds.slice(-4), ["user", "assistant:error", "compaction", "assistant:stop"]);
    const compaction = sm.getBranch().find((e) => e.type === "compaction")!;
    assert.deepEqual(sentMessages(kit.server, 3), await expectedChatMessages(kit, promptSystem(kit, 3), sm.buildSessionContext(compaction.id)));
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());

    kit.server.script(reply.overflow(), reply.text("SUMMARY 2"), reply.overflow());
    const failed = await session.prompt(words("third"));
    assert.equal(failed.kind === "reply" && failed.message.stopReason, "error", "only one compact-and-retry per prompt");
    assert.equal(kit.server.requests.length, 7);
    await session.close();
    await sm.close();
  });

  it("after a silent overflow (input tokens above the window) compacts once and sends the request again", async () => {
    const { sm, session } = await makeSession(kit, { compaction: { keepRecentTokens: 10 } });
    const window = session.getModel()?.contextWindow ?? 0;
    assert.ok(window > 0);
    kit.server.script(
      reply.text(words("one")),
      reply.text("truncated answer", { usage: { promptTokens: window + 500, completionTokens: 5 } }),
      reply.text("SILENT SUMMARY"),
      reply.text("answer after retry"),
    );
    await session.prompt(words("first"));
    const result = await session.prompt(words("second"));
    assert.equal(result.kind === "reply" && result.message.content.find((b) => b.type === "text")?.text, "answer after retry");
    const kinds = sm.getBranch().map((e) => (e.type === "message" ? `${e.message.role}${e.message.role === "assistant" ? `:${e.message.stopReason}` : ""}` : e.type));
    assert.deepEqual(kinds.slice(-4), ["user", "assistant:stop", "compaction", "assistant:stop"]);
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("a cancelled or failed compaction writes nothing", async () => {
    const { sm, session } = await makeSession(kit, { compaction: { keepRecentTokens: KEEP_ONE_REPLY } });
    kit.server.script(reply.text(words("one")), reply.text(words("two")));
    await session.prompt(words("first"));
    await session.prompt(words("second"));
    await sm.flush();
    const before = readLines(sm.getSessionFile()!);

    kit.server.script(reply.hang("## Goal\npartial"));
    const controller = new AbortController();
    const summarizing = nextEvent(session, (e) => e.type === "compaction_progress" && e.phase === "summarizing");
    const cancelled = session.compact(undefined, { signal: controller.signal });
    await summarizing;
    // Abort once the request is at the server, so the hanging reply is used up by this request.
    await waitFor(() => kit.server.pendingReplies() === 0, "the summary request at the server");
    controller.abort();
    assert.deepEqual(await cancelled, { kind: "cancelled", by: "user" });

    kit.server.script(reply.error(503, { error: { message: "overloaded" } }));
    await assert.rejects(session.compact(), (e: unknown) => e instanceof AgentError && e.code === "summary-failed" && /overloaded/.test(e.message));
    await sm.flush();
    assert.deepEqual(readLines(sm.getSessionFile()!), before);
    await session.close();
    await sm.close();
  });
});

function promptSystem(kit: AgentKit, index: number): string | undefined {
  const first = sentMessages(kit.server, index)[0] as { role: string; content: string };
  return first.role === "system" ? first.content : undefined;
}
