/**
 * Usage and cost of a session (issue 22.4): the ledger's sums over real session files, checked
 * against a direct computation over every entry, against what Pi 0.73.1's own `/session` reports
 * (its `getSessionStats`, over the messages in its context), and against pi-ai's own prices for
 * replies that recorded no cost. A fake index of 1,000,000 entries shows each body is read once.
 */
import * as assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import type { AssistantMessage, SessionEntry, Usage } from "../../src/core/session/types";
import { UsageLedger, pricedReply, replyCost, tokensOf, type CostLookup, type UsageSource, type UsageTotals } from "../../src/core/session/usage-totals";
import { costLookupFrom, loadCostLookup, type PiPricing } from "../../src/core/models/model-prices";
import { createSampleSessions } from "../support/sample-sessions";
import { makeTempDir } from "../support/temp-dir";

const FIXTURES = resolve(__dirname, "../../../test/fixtures");
const USAGE_FILE = join(FIXTURES, "usage-session.jsonl");
const SAMPLE_FILE = join(FIXTURES, "sample-session.jsonl");

/** What Pi's `/session` prints, from its AgentSession over the same file. */
interface PiSessionStats {
  sessionFile: string | undefined;
  sessionId: string;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  totalMessages: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
}

async function piSessionStats(file: string, agentDir: string): Promise<PiSessionStats> {
  const pi = (await import("@mariozechner/pi-coding-agent")) as unknown as {
    SessionManager: { open(path: string, dir?: string): unknown };
    createAgentSession(options: object): Promise<{ session: { getSessionStats(): PiSessionStats; dispose?: () => void } }>;
  };
  const { session } = await pi.createAgentSession({ cwd: agentDir, agentDir, sessionManager: pi.SessionManager.open(file, agentDir), noTools: "all" });
  const stats = session.getSessionStats();
  session.dispose?.();
  return stats;
}

/** The same numbers the direct way: every entry parsed, summed by hand. */
function direct(entries: readonly SessionEntry[], lookup?: CostLookup): UsageTotals & { priced: number } {
  const t = {
    messages: { user: 0, assistant: 0, toolCalls: 0, toolResults: 0, bash: 0, custom: 0, branchSummaries: 0, compactions: 0, total: 0 },
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
    unpriced: 0,
    priced: 0,
  };
  for (const e of entries) {
    if (e.type === "custom_message") t.messages.custom++;
    else if (e.type === "branch_summary") t.messages.branchSummaries++;
    else if (e.type === "compaction") t.messages.compactions++;
    else if (e.type !== "message") continue;
    t.messages.total++;
    if (e.type !== "message") continue;
    const m = e.message;
    if (m.role === "user") t.messages.user++;
    else if (m.role === "toolResult") t.messages.toolResults++;
    else if (m.role === "bashExecution") t.messages.bash++;
    else if (m.role === "assistant") {
      t.messages.assistant++;
      t.messages.toolCalls += m.content.filter((b) => b.type === "toolCall").length;
      const u = m.usage;
      t.tokens.input += u.input;
      t.tokens.output += u.output;
      t.tokens.cacheRead += u.cacheRead;
      t.tokens.cacheWrite += u.cacheWrite;
      t.tokens.total += u.input + u.output + u.cacheRead + u.cacheWrite;
      if (u.cost.total > 0) t.cost += u.cost.total;
      else if (u.input + u.output + u.cacheRead + u.cacheWrite > 0) {
        const c = lookup?.(m.provider, m.model, tokensOf(u));
        if (c !== undefined && c > 0) {
          t.cost += c;
          t.priced++;
        } else t.unpriced++;
      }
    }
  }
  return t;
}

function assertTotals(actual: UsageTotals, expected: UsageTotals, what: string): void {
  assert.deepEqual(actual.messages, expected.messages, `${what}: messages`);
  assert.deepEqual(actual.tokens, expected.tokens, `${what}: tokens`);
  assert.ok(Math.abs(actual.cost - expected.cost) < 1e-12, `${what}: cost ${actual.cost} against ${expected.cost}`);
  assert.equal(actual.unpriced, expected.unpriced, `${what}: replies without prices`);
}

/** The ids of the entries Pi's context holds at the leaf: the last compaction, then what it kept and what followed. */
function contextIds(sm: SessionManager): string[] {
  const path = sm.getPathIds();
  let at = -1;
  for (let k = path.length - 1; k >= 0 && at < 0; k--) if (sm.getEntryType(path[k]!) === "compaction") at = k;
  if (at < 0) return path;
  const compaction = sm.getEntry(path[at]!)!;
  assert.equal(compaction.type, "compaction");
  const firstKept = path.indexOf(compaction.type === "compaction" ? compaction.firstKeptEntryId : "");
  return [path[at]!, ...path.slice(firstKept, at), ...path.slice(at + 1)];
}

function assertMatchesPi(totals: UsageTotals, pi: PiSessionStats, what: string): void {
  assert.deepEqual(
    {
      userMessages: totals.messages.user,
      assistantMessages: totals.messages.assistant,
      toolCalls: totals.messages.toolCalls,
      toolResults: totals.messages.toolResults,
      totalMessages: totals.messages.total,
      tokens: totals.tokens,
    },
    { userMessages: pi.userMessages, assistantMessages: pi.assistantMessages, toolCalls: pi.toolCalls, toolResults: pi.toolResults, totalMessages: pi.totalMessages, tokens: pi.tokens },
    what,
  );
  assert.ok(Math.abs(totals.cost - pi.cost) < 1e-12, `${what}: cost ${totals.cost} against Pi's ${pi.cost}`);
}

describe("usage and cost of a session", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let files: string[];
  let prices: CostLookup;
  before(async () => {
    tmp = makeTempDir();
    const samples = await createSampleSessions({ agentDir: join(tmp.dir, "agent"), cwd: join(tmp.dir, "project") });
    files = [USAGE_FILE, SAMPLE_FILE, samples.mainFile, samples.linearFile, samples.forkFile];
    prices = await loadCostLookup();
  });
  after(() => tmp.cleanup());

  it("sums the whole file and the current path as a direct computation over every entry does", async () => {
    for (const file of files) {
      const sm = await SessionManager.open(file, { whenLocked: "read-only" });
      try {
        const ledger = sm.getUsageLedger();
        const all = sm.getEntries();
        assertTotals(ledger.fileTotals(), direct(all), `${file}: whole file, recorded costs only`);
        assertTotals(ledger.fileTotals(prices), direct(all, prices), `${file}: whole file, priced`);
        assertTotals(ledger.totalsOf(sm.getPathIds(), prices), direct(sm.getBranch(), prices), `${file}: current path`);
        // Every leaf of the tree, not just the current one.
        for (const leaf of [...sm.idsOfKind("message")].filter((id) => sm.getChildren(id).length === 0)) {
          assertTotals(ledger.totalsOf(sm.getPathIds(leaf), prices), direct(sm.getBranch(leaf), prices), `${file}: path to ${leaf}`);
        }
      } finally {
        await sm.close();
      }
    }
  });

  it("reports what Pi's /session reports for the messages in its context, on every sample file", async () => {
    for (const file of files) {
      const pi = await piSessionStats(file, join(tmp.dir, "pi-agent"));
      const sm = await SessionManager.open(file, { whenLocked: "read-only" });
      try {
        assert.equal(pi.sessionId, sm.getSessionId());
        // Pi sums recorded costs only; so does the ledger without a price lookup.
        assertMatchesPi(sm.getUsageLedger().totalsOf(contextIds(sm)), pi, file);
      } finally {
        await sm.close();
      }
    }
  });

  it("prices a reply that recorded no cost with pi-ai's own calculateCost, and leaves a model without prices at tokens only", async () => {
    const sm = await SessionManager.open(USAGE_FILE, { whenLocked: "read-only" });
    try {
      const piAi = (await import("@mariozechner/pi-ai")) as unknown as { getModel(p: string, id: string): never; calculateCost(model: never, usage: Usage): Usage["cost"] };
      const replies = sm.getEntries().flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message as AssistantMessage] : []));
      const unrecorded = replies.filter((m) => m.usage.cost.total === 0 && tokensOf(m.usage).total > 0);
      assert.deepEqual([...new Set(unrecorded.map((m) => `${m.provider}/${m.model}`))].sort(), ["anthropic/claude-sonnet-4-5", "ollama/qwen2.5-coder:7b"], "the fixture has both kinds");
      let expected = 0;
      for (const m of replies) {
        if (m.usage.cost.total > 0) expected += m.usage.cost.total;
        else if (m.provider === "anthropic") expected += piAi.calculateCost(piAi.getModel(m.provider, m.model), structuredClone(m.usage)).total;
      }
      const totals = sm.getUsageLedger().fileTotals(prices);
      assert.ok(Math.abs(totals.cost - expected) < 1e-12, `${totals.cost} against ${expected}`);
      assert.equal(totals.unpriced, 1, "the local model's reply has tokens and no price");
      const ollama = unrecorded.find((m) => m.provider === "ollama")!;
      assert.equal(replyCost(ollama.usage, ollama.provider, ollama.model, prices), undefined);
      const sonnet = unrecorded.find((m) => m.provider === "anthropic")!;
      assert.equal(replyCost(sonnet.usage, sonnet.provider, sonnet.model, prices), piAi.calculateCost(piAi.getModel("anthropic", "claude-sonnet-4-5"), structuredClone(sonnet.usage)).total);
      const recorded = replies.find((m) => m.usage.cost.total > 0)!;
      assert.equal(replyCost(recorded.usage, recorded.provider, recorded.model, () => 1000), recorded.usage.cost.total, "a recorded cost is kept, never recomputed");
    } finally {
      await sm.close();
    }
  });

  it("the chat's item of a reply that recorded no cost gets the cost its prices give; a recorded one is left as it is", async () => {
    const sm = await SessionManager.open(USAGE_FILE, { whenLocked: "read-only" });
    try {
      const replies = sm.getEntries().flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message as AssistantMessage] : []));
      const unrecorded = replies.find((m) => m.provider === "anthropic" && m.usage.cost.total === 0 && m.usage.input > 0)!;
      const priced = pricedReply(unrecorded, prices);
      assert.notEqual(priced, unrecorded, "a copy");
      assert.equal(unrecorded.usage.cost.total, 0, "the entry itself is not changed");
      assert.equal(priced.usage.cost.total, replyCost(unrecorded.usage, "anthropic", unrecorded.model, prices));
      assert.ok(priced.usage.cost.total > 0);
      const recorded = replies.find((m) => m.usage.cost.total > 0)!;
      assert.equal(pricedReply(recorded, prices), recorded);
      const local = replies.find((m) => m.provider === "ollama")!;
      assert.equal(pricedReply(local, prices), local, "no prices: tokens only");
      assert.equal(pricedReply(unrecorded, undefined), unrecorded, "prices not loaded yet");
    } finally {
      await sm.close();
    }
  });

  it("a model whose prices are all zero has no price", () => {
    const pricing: PiPricing = {
      getModels: (provider) => (provider === "local" ? [{ id: "free", cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } } as never] : []),
      calculateCost: () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }),
    };
    const lookup = costLookupFrom(pricing);
    assert.equal(lookup("local", "free", tokensOf({ input: 10, output: 5 })), undefined);
    assert.equal(lookup("local", "missing", tokensOf({ input: 10, output: 5 })), undefined);
  });

  it("takes in replies appended after the first question, reading only their bodies", async () => {
    const sm = SessionManager.inMemory("/tmp");
    const usage = (input: number, cost: number): Usage => ({ input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
    const reply = (input: number, cost: number): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "x", provider: "p", model: "m", usage: usage(input, cost), stopReason: "stop", timestamp: 1 });
    sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    sm.appendMessage(reply(100, 0.5));
    const ledger = sm.getUsageLedger();
    assert.equal(ledger.fileTotals().tokens.input, 100);
    const first = sm.getPathIds();
    assert.equal(ledger.totalsOf(first).tokens.input, 100);
    sm.appendMessage({ role: "user", content: "more", timestamp: 2 });
    sm.appendMessage(reply(50, 0.25));
    assert.equal(ledger.behind, true);
    const t = ledger.fileTotals();
    assert.equal(t.tokens.input, 150);
    assert.equal(t.cost, 0.75);
    assert.equal(t.messages.total, 4);
    // The path grew from the one counted last: the same answer as counting it afresh.
    const along = ledger.totalsOf(sm.getPathIds());
    assert.deepEqual(along, { ...t, messages: { ...t.messages } });
    assert.deepEqual(new UsageLedger({ size: 0, typeAt: () => "", roleAt: () => undefined, indexOf: () => -1, forEachEntry: () => undefined }).totalsOf([]).messages.total, 0);
    // A shorter path (a checkout back to the first reply) is counted whole, not from the longer one.
    assert.equal(ledger.totalsOf(first).tokens.input, 100);
    assert.equal(ledger.totalsOf(first).messages.total, 2);
    assert.equal(sm.getUsageLedger(), ledger, "one ledger per index");
  });

  it("reads each reply's body once on a 1,000,000-entry index, however often totals are asked for", () => {
    const size = 1_000_000;
    const reads = new Uint8Array(size);
    const source: UsageSource = {
      size,
      typeAt: (i) => (i % 10 === 9 ? "label" : "message"),
      roleAt: (i) => (i % 10 === 9 ? undefined : i % 3 === 0 ? "user" : i % 3 === 1 ? "assistant" : "toolResult"),
      indexOf: (id) => Number(id),
      forEachEntry(positions, visit) {
        for (let k = 0; k < positions.length; k++) {
          const i = positions[k]!;
          reads[i]!++;
          const message: AssistantMessage = {
            role: "assistant",
            content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: {} }],
            api: "x",
            provider: "p",
            model: "m",
            usage: { input: 2, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 } },
            stopReason: "toolUse",
            timestamp: 0,
          };
          visit(i, { type: "message", id: String(i), parentId: null, timestamp: "", message });
        }
      },
    };
    const ledger = new UsageLedger(source);
    let assistants = 0;
    for (let i = 0; i < size; i++) if (source.typeAt(i) === "message" && source.roleAt(i) === "assistant") assistants++;
    const file = ledger.fileTotals();
    assert.equal(file.messages.assistant, assistants);
    assert.equal(file.tokens.input, 2 * assistants);
    assert.equal(file.messages.toolCalls, assistants);
    const path = Array.from({ length: size }, (_, i) => String(i));
    const along = ledger.totalsOf(path);
    assert.deepEqual(along.tokens, file.tokens);
    ledger.fileTotals();
    ledger.totalsOf(path);
    let readTwice = 0;
    let read = 0;
    for (let i = 0; i < size; i++) {
      if (reads[i]! > 1) readTwice++;
      if (reads[i]! > 0) read++;
    }
    assert.equal(readTwice, 0, "no body is read twice");
    assert.equal(read, assistants, "only replies' bodies are read");
  });
});
