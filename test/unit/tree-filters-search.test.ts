import * as assert from "node:assert/strict";
import { FILTER_MODES, isFilterMode, passesFilter, type FilterMode } from "../../src/core/tree/filters";
import { findMatchRanges, matchesSearch, parseSearchQuery, searchableText } from "../../src/core/tree/search";
import type { EntrySummary } from "../../src/core/tree/types";
import { entry } from "../support/webview-harness.fixtures";

const samples: Record<string, EntrySummary> = {
  user: entry("u", null, { role: "user" }),
  assistantText: entry("at", null, { role: "assistant" }),
  assistantToolOnly: entry("ao", null, { role: "assistant", toolName: "read", textless: true }),
  assistantError: entry("ae", null, { role: "assistant", toolName: "read", isError: true }),
  toolResult: entry("tr", null, { role: "toolResult", toolName: "read" }),
  bash: entry("bx", null, { role: "bashExecution" }),
  customMessage: entry("cm", null, { type: "custom_message", customType: "note" }),
  compaction: entry("co", null, { type: "compaction", tokensBefore: 1000, firstKeptEntryId: "u" }),
  branchSummary: entry("bs", null, { type: "branch_summary", fromId: "u" }),
  label: entry("la", null, { type: "label", targetId: "u", label: "x" }),
  custom: entry("cu", null, { type: "custom", customType: "state" }),
  modelChange: entry("mc", null, { type: "model_change", provider: "p", modelId: "m" }),
  thinking: entry("th", null, { type: "thinking_level_change", thinkingLevel: "high" }),
  sessionInfo: entry("si", null, { type: "session_info" }),
  unknown: entry("un", null, { type: "future_kind" }),
};

/** Which samples each filter shows (labelled: only "user" carries a label; the leaf is elsewhere). */
const expected: Record<FilterMode, string[]> = {
  default: ["user", "assistantText", "assistantError", "toolResult", "bash", "customMessage", "compaction", "branchSummary", "unknown"],
  "no-tools": ["user", "assistantText", "assistantError", "bash", "customMessage", "compaction", "branchSummary", "unknown"],
  "user-only": ["user"],
  "labeled-only": ["user"],
  all: Object.keys(samples).filter((name) => name !== "assistantToolOnly"),
  everything: Object.keys(samples),
};

describe("tree filters", () => {
  for (const mode of FILTER_MODES) {
    it(`"${mode}" shows exactly what it should`, () => {
      const shown = Object.entries(samples)
        .filter(([name, e]) => passesFilter(e, mode, name === "user"))
        .map(([name]) => name);
      assert.deepEqual(shown, expected[mode]);
    });
  }

  it("shows a turn without text while it is the leaf, as far as the mode's own rule allows", () => {
    const turn = samples.assistantToolOnly;
    for (const mode of ["default", "no-tools", "all"] as const) assert.equal(passesFilter(turn, mode, false, true), true, mode);
    assert.equal(passesFilter(turn, "user-only", false, true), false);
    assert.equal(passesFilter(turn, "labeled-only", false, true), false);
    assert.equal(passesFilter(turn, "labeled-only", true, true), true);
    assert.equal(passesFilter(turn, "labeled-only", true, false), false, "a label does not show a hidden turn");
  });

  it("knows its modes and nothing else", () => {
    assert.ok(isFilterMode("no-tools"));
    assert.ok(isFilterMode("everything"));
    assert.equal(isFilterMode("labelled-only"), false);
    assert.equal(isFilterMode(3), false);
  });
});

describe("tree search", () => {
  it("splits a query into lower-case tokens", () => {
    assert.deepEqual(parseSearchQuery("  Fix   THE bug "), ["fix", "the", "bug"]);
    assert.deepEqual(parseSearchQuery("   "), []);
  });

  it("needs every token, in the text or in the label", () => {
    const text = searchableText(entry("x", null, { role: "user", preview: "Refactor the Parser" }));
    assert.ok(matchesSearch(text, undefined, ["parser", "refactor"]));
    assert.ok(matchesSearch(text, "Checkpoint", ["parser", "checkpoint"]));
    assert.equal(matchesSearch(text, undefined, ["parser", "checkpoint"]), false);
    assert.ok(matchesSearch(text, undefined, ["user"]), "the role is searchable");
  });

  it("searches what Pi's tree searches: role, custom type, model, thinking level, kind words", () => {
    assert.ok(searchableText(samples.toolResult).startsWith("toolresult "));
    assert.equal(searchableText(samples.toolResult).includes("read"), false, "Pi does not search a tool result's tool name");
    assert.ok(searchableText(samples.custom).includes("state"));
    assert.ok(searchableText(samples.modelChange).includes("m"));
    assert.ok(searchableText(samples.thinking).includes("high"));
    assert.ok(searchableText(samples.compaction).includes("compaction"));
    assert.ok(searchableText(samples.branchSummary).includes("branch summary"));
  });

  it("finds merged, ordered match ranges for highlighting", () => {
    assert.deepEqual(findMatchRanges("Abcabc xyz", ["bc", "abc"]), [[0, 6]]);
    assert.deepEqual(findMatchRanges("one two one", ["one"]), [[0, 3], [8, 11]]);
    assert.deepEqual(findMatchRanges("nothing", ["zz"]), []);
    assert.deepEqual(findMatchRanges("anything", []), []);
  });

  it("gives no ranges when lower-casing changes the text's length", () => {
    assert.deepEqual(findMatchRanges("İstanbul", ["stanbul"]), []);
  });
});
