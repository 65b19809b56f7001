/**
 * Pi's filters, exactly: on random sessions written by the reference, every filter mode and every
 * search query select the same entries, in the same row order, under the same shown parents, as the reference's own tree
 * selector (driven headless, see test/support/reference-tree-selector.ts), for the session's leaf
 * and for other leaves. Arbor's side is what the extension runs: the session file opened by Arbor's
 * SessionManager, its entry summaries and labels, and the host's tree model.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import { summarizeEntry } from "../../src/core/session/summarize";
import type { AssistantMessage, SessionEntry } from "../../src/core/session/types";
import { FILTER_MODES } from "../../src/core/tree/filters";
import { searchableText } from "../../src/core/tree/search";
import { referenceSearchText } from "../../src/core/tree/search-text";
import { TreeModel } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { createRng, generateReferenceSession, type Rng } from "../support/random-session";
import { loadReference, type PiReference, type RefSessionManager, type RefTreeNode } from "../support/reference";
import { loadReferenceTreeSelector, REF_FILTER_MODES, type ReferenceTreeSelector, type RefSelection } from "../support/reference-tree-selector";

const SEEDS = 36;
const ENTRIES = 110;

/** Words that stress case folding and the 200-character cut of Pi's search text. */
const EDGE_WORDS = ["ΟΔΥΣΣΕΥΣ", "İstanbul", "straße", "CamelCase", "MiXeD", "tab\tbed", "ﬁne", "x".repeat(30)];

function usage(): AssistantMessage["usage"] {
  return { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

function assistantWith(content: unknown, stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return { role: "assistant", content, api: "openai-completions", provider: "openai", model: "gpt-5", usage: usage(), stopReason, timestamp: 1_700_000_000_000 } as AssistantMessage;
}

function words(rng: Rng, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(EDGE_WORDS));
  return out.join(rng.chance(0.2) ? "\n" : " ");
}

/**
 * Entries the generic generator rarely or never makes, appended with the reference's manager at
 * random places: assistant turns with string or empty content, only thinking, blank text, several
 * text blocks that join into one word; text whose words straddle the 200th character; long custom
 * messages and branch summaries; upper-case labels and names.
 */
function appendEdgeCases(manager: RefSessionManager, rng: Rng): void {
  const ids = (): string[] => manager.getEntries().map((e) => e.id);
  for (let n = 0; n < 14; n++) {
    if (rng.chance(0.5)) manager.branch(rng.pick(ids()));
    switch (rng.int(10)) {
      case 0:
        manager.appendMessage(assistantWith(words(rng, 3), rng.pick(["stop", "toolUse"] as const)));
        break;
      case 1:
        manager.appendMessage(assistantWith([], rng.pick(["stop", "toolUse", "length"] as const)));
        break;
      case 2:
        manager.appendMessage(assistantWith([{ type: "thinking", thinking: words(rng, 4) }, { type: "text", text: " \n " }], "stop"));
        break;
      case 3:
        manager.appendMessage(assistantWith([{ type: "text", text: "join" }, { type: "text", text: "ed WORD" }], "stop"));
        break;
      case 4: {
        const head = "y".repeat(rng.between(180, 205));
        manager.appendMessage({ role: "user", content: `${head} ${words(rng, 5)}`, timestamp: 1 });
        break;
      }
      case 5:
        manager.appendMessage({ role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: words(rng, 40) }, { type: "text", text: "TAIL" }], isError: false, timestamp: 1 });
        break;
      case 6:
        manager.appendCustomMessageEntry("ext.Note", `${"z".repeat(250)} ${words(rng, 4)}`, true);
        break;
      case 7:
        manager.branchWithSummary(rng.pick(ids()), `${words(rng, 60)} END`);
        break;
      case 8:
        manager.appendLabelChange(rng.pick(ids()), `Label ${rng.pick(EDGE_WORDS)}`);
        break;
      default:
        manager.appendSessionInfo(rng.chance(0.3) ? "" : `Title ${words(rng, 2)}`);
    }
  }
}

/** Search queries made from the session's own words: pieces of entry texts, labels, kind words, mixed case. */
function queriesFor(rng: Rng, summaries: readonly EntrySummary[], labels: ReadonlyMap<string, string>): string[] {
  const texts = summaries.map((s) => s.searchText ?? s.preview).filter((t) => t.trim());
  const tokenFrom = (text: string): string => {
    const parts = text.split(/\s+/).filter(Boolean);
    const word = parts.length ? rng.pick(parts) : "x";
    const start = rng.int(Math.max(1, word.length));
    return word.slice(start, start + rng.between(1, 6));
  };
  const kinds = ["user", "assistant", "toolresult", "bashexecution", "custom", "compaction", "branch", "summary", "title", "model", "thinking", "label", "ext", "TAIL", "joined", "yyyy", "zzz"];
  const queries: string[] = [];
  for (let q = 0; q < 6; q++) {
    const tokens: string[] = [];
    for (let t = rng.between(1, 3); t > 0; t--) {
      const roll = rng.int(4);
      if (roll === 0) tokens.push(rng.pick(kinds));
      else if (roll === 1 && labels.size > 0) tokens.push(tokenFrom(rng.pick([...labels.values()])));
      else if (texts.length > 0) tokens.push(tokenFrom(rng.pick(texts)));
      else tokens.push(rng.pick(kinds));
    }
    const query = tokens.join(rng.chance(0.2) ? "  \t" : " ");
    queries.push(rng.chance(0.3) ? query.toUpperCase() : query);
  }
  return queries;
}

/** The ids of the reference's tree (getTree: children oldest first), depth first, parents before children. */
function preorder(roots: readonly RefTreeNode[]): string[] {
  const out: string[] = [];
  const stack = [...roots].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    out.push(node.entry.id);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

/** What Arbor's tree shows: the drawn rows' ids and each row's shown parent. */
function arborSelection(summaries: EntrySummary[], labels: Map<string, string>, leafId: string | null, mode: (typeof FILTER_MODES)[number], query: string): RefSelection {
  const model = TreeModel.create(mode);
  model.load({ sessionId: "s", name: null, entries: [...summaries], labels: [...labels].map(([targetId, label]) => ({ targetId, label })), leafId });
  model.setQuery(query);
  const ids: string[] = [];
  const visibleParent = new Map<string, string | null>();
  for (let r = 0; r < model.rows.count; r++) {
    const i = model.rows.nodeAt(r);
    const parent = model.rows.drawnParent(i);
    ids.push(model.idAt(r));
    visibleParent.set(model.idAt(r), parent < 0 ? null : model.index.idAt(parent));
  }
  return { ids, visibleParent };
}

describe("tree filters and search against the reference's tree selector", function () {
  this.timeout(240_000);
  let pi: PiReference;
  let selector: ReferenceTreeSelector;
  let dir: string;
  before(async () => {
    pi = await loadReference();
    selector = await loadReferenceTreeSelector();
    dir = mkdtempSync(join(tmpdir(), "arbor-filters-diff-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("every mode and search shows the same rows in the same order under the same shown parents, for several leaves", async () => {
    let compared = 0;
    let hiddenTurnsCompared = 0;
    let nonEmptySearches = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const rng = createRng(seed * 7919);
      const generated = generateReferenceSession(pi, { seed, entries: ENTRIES, persistDir: join(dir, String(seed)) });
      appendEdgeCases(generated.manager, rng);
      const file = generated.file!;
      const ref = pi.SessionManager.open(file);
      const ours = await SessionManager.open(file, { readOnly: true });
      try {
        const summaries = ours.getSummaries();
        const labels = ours.getLabels();
        assert.equal(ours.getLeafId(), ref.getLeafId(), `seed ${seed}: leaf`);
        const tree = ref.getTree();
        const treeOrder = preorder(tree);
        const textless = summaries.filter((s) => s.textless).map((s) => s.id);
        const leaves = [ref.getLeafId(), rng.pick(summaries).id, textless.length ? rng.pick(textless) : rng.pick(summaries).id];
        const queries = ["", ...queriesFor(rng, summaries, labels)];
        for (const leafId of leaves) {
          for (const mode of REF_FILTER_MODES) {
            for (const query of queries) {
              const theirs = selector.select(tree, leafId, mode, query);
              const mine = arborSelection(summaries, labels, leafId, mode, query);
              const where = `seed ${seed}, leaf ${leafId}, mode ${mode}, query ${JSON.stringify(query)}`;
              assert.deepEqual([...mine.ids].sort(), [...theirs.ids].sort(), `${where}: shown entries`);
              // And in the same order as the reference's tree (a set comparison alone would pass rows
              // drawn in any order). Pi's selector also moves the branch that holds the leaf before its
              // siblings; Arbor keeps the tree's own order, so that a checkout never moves rows.
              const shown = new Set(theirs.ids);
              assert.deepEqual(mine.ids, treeOrder.filter((id) => shown.has(id)), `${where}: rows in the reference's tree order`);
              assert.deepEqual(new Map([...mine.visibleParent].sort()), new Map([...theirs.visibleParent].sort()), `${where}: shown parents`);
              compared++;
              if (query !== "" && theirs.ids.length > 0) nonEmptySearches++;
              if (mode !== "user-only" && summaries.some((s) => s.textless && s.id !== leafId)) hiddenTurnsCompared++;
            }
          }
        }
      } finally {
        ours.dispose();
      }
    }
    // The comparison must have exercised what it is about, not only empty results.
    assert.ok(compared >= SEEDS * 3 * 5 * 7, `${compared} comparisons`);
    assert.ok(nonEmptySearches > compared / 4, `only ${nonEmptySearches} searches found anything`);
    assert.ok(hiddenTurnsCompared > compared / 3, `${hiddenTurnsCompared} comparisons with hidden turns`);
  });

  it('"everything" (Arbor\'s own mode) shows what "all" shows plus the turns without text', async () => {
    const generated = generateReferenceSession(pi, { seed: 99, entries: ENTRIES, persistDir: join(dir, "everything") });
    const ours = await SessionManager.open(generated.file!, { readOnly: true });
    try {
      const summaries = ours.getSummaries();
      const all = arborSelection(summaries, ours.getLabels(), ours.getLeafId(), "all", "").ids;
      const everything = arborSelection(summaries, ours.getLabels(), ours.getLeafId(), "everything", "").ids;
      const textless = summaries.filter((s) => s.textless && s.id !== ours.getLeafId()).map((s) => s.id);
      assert.ok(textless.length > 0);
      assert.deepEqual([...everything].sort(), [...all, ...textless].sort());
      assert.equal(everything.length, summaries.length);
    } finally {
      ours.dispose();
    }
  });

  it("a summary's search text holds exactly the words the reference's selector searches, for every entry", () => {
    const collapse = (text: string): string => text.split(/\s+/).filter(Boolean).join(" ");
    let stored = 0;
    let derived = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { manager } = generateReferenceSession(pi, { seed, entries: ENTRIES, unknownRoles: true });
      appendEdgeCases(manager, createRng(seed));
      for (const entry of manager.getEntries()) {
        const raw = entry as unknown as Record<string, unknown>;
        const summary = summarizeEntry(entry as SessionEntry, 1);
        const theirs = selector.searchText(entry as SessionEntry).toLowerCase();
        assert.equal(collapse(searchableText(summary)), collapse(theirs), `${entry.type} ${JSON.stringify(entry).slice(0, 300)}`);
        assert.equal(referenceSearchText(raw).toLowerCase(), theirs);
        if (summary.searchText === undefined) derived++;
        else stored++;
      }
    }
    // Most entries need no stored text; long or multi-block ones do.
    assert.ok(derived > stored, `${derived} derived, ${stored} stored`);
    assert.ok(stored > 50);
  });
});
