/**
 * The summarizer requests and recorded summary texts: structure, and wording of our own.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createFileOperations } from "../../src/core/compaction/file-operations";
import * as prompts from "../../src/core/compaction/prompts";
import {
  branchSummaryTokenBudget,
  composeBranchSummary,
  composeCompactionSummary,
  createBranchSummaryRequest,
  createCompactionSummaryRequest,
  createTurnPrefixSummaryRequest,
} from "../../src/core/compaction/summary-requests";
import type { AgentMessage } from "../../src/core/session/types";
import { referencePackageDir } from "../support/reference";

const MESSAGES: AgentMessage[] = [
  { role: "user", content: "please fix src/a.ts", timestamp: 0 },
  { role: "bashExecution", command: "npm test", output: "1 failing", exitCode: 1, cancelled: false, truncated: false, timestamp: 1 },
];

/** Lines of the text constants in the reference's compaction sources (its prompt texts), headings aside. */
function referencePromptLines(): string[] {
  const dir = join(referencePackageDir(), "dist", "core", "compaction");
  const lines: string[] = [];
  for (const file of ["compaction.js", "branch-summarization.js", "utils.js"]) {
    const source = readFileSync(join(dir, file), "utf8");
    for (const [, literal] of source.matchAll(/const [A-Z_]+ = `([^`]*)`/g)) {
      for (const line of literal.split("\n")) {
        // Section headings are the shared shape of a summary, not wording.
        if (line.startsWith("#")) continue;
        const trimmed = line.replace(/^[-#*\d.\s[\]x]+/, "").trim();
        if (trimmed.length >= 25) lines.push(trimmed);
      }
    }
  }
  return lines;
}

describe("summary requests and prompts", () => {
  it("asks for every section of a structured summary", () => {
    for (const text of [prompts.COMPACTION_INSTRUCTIONS, prompts.COMPACTION_UPDATE_INSTRUCTIONS]) {
      for (const heading of ["## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions", "## Next Steps", "## Critical Context"]) {
        assert.ok(text.includes(heading), heading);
      }
    }
    assert.ok(prompts.BRANCH_SUMMARY_INSTRUCTIONS.includes("## Next Steps"));
  });

  it("uses wording of our own, not the reference's prompt texts", () => {
    const ours = Object.values(prompts).filter((value: unknown): value is string => typeof value === "string").join("\n");
    const theirs = referencePromptLines();
    assert.ok(theirs.length > 40, "found the reference's prompts to compare with");
    const copied = theirs.filter((line) => ours.includes(line));
    assert.deepStrictEqual(copied, []);
  });

  it("builds a compaction request with the transcript, the previous summary and a focus", () => {
    const fresh = createCompactionSummaryRequest(MESSAGES, { reserveTokens: 16384 });
    assert.equal(fresh.systemPrompt, prompts.SUMMARIZER_SYSTEM_PROMPT);
    assert.equal(fresh.maxTokens, 13107);
    assert.ok(fresh.prompt.startsWith("<conversation>\n[User]: please fix src/a.ts\n\n[User]: Ran `npm test`"));
    assert.ok(fresh.prompt.endsWith(prompts.COMPACTION_INSTRUCTIONS));
    assert.ok(!fresh.prompt.includes("<previous-summary>"));

    const update = createCompactionSummaryRequest(MESSAGES, { reserveTokens: 1000, previousSummary: "OLD", customInstructions: "tests" });
    assert.ok(update.prompt.includes("</conversation>\n\n<previous-summary>\nOLD\n</previous-summary>\n\n"));
    assert.ok(update.prompt.includes(prompts.COMPACTION_UPDATE_INSTRUCTIONS));
    assert.ok(update.prompt.endsWith("tests"));
    assert.equal(update.maxTokens, 800);
  });

  it("builds turn-prefix and branch requests; custom instructions can replace ours", () => {
    const prefix = createTurnPrefixSummaryRequest(MESSAGES, 1001);
    assert.equal(prefix.maxTokens, 500);
    assert.ok(prefix.prompt.endsWith(prompts.TURN_PREFIX_INSTRUCTIONS));
    const branch = createBranchSummaryRequest(MESSAGES, { customInstructions: "only X" });
    assert.ok(branch.prompt.includes(prompts.BRANCH_SUMMARY_INSTRUCTIONS) && branch.prompt.endsWith("only X"));
    const replaced = createBranchSummaryRequest(MESSAGES, { customInstructions: "only X", replaceInstructions: true });
    assert.ok(!replaced.prompt.includes(prompts.BRANCH_SUMMARY_INSTRUCTIONS) && replaced.prompt.endsWith("</conversation>\n\nonly X"));
    assert.equal(branchSummaryTokenBudget(undefined, 16384), 128000 - 16384);
    assert.equal(branchSummaryTokenBudget(200000, 1000), 199000);
  });

  it("composes recorded summaries with the split turn and the file lists", () => {
    const ops = createFileOperations();
    ops.read.add("r.md");
    ops.edited.add("e.ts");
    const compaction = composeCompactionSummary("H", "P", ops);
    assert.equal(compaction.summary, `H\n\n---\n\n${prompts.SPLIT_TURN_HEADING}\n\nP\n\n<read-files>\nr.md\n</read-files>\n\n<modified-files>\ne.ts\n</modified-files>`);
    assert.deepStrictEqual(compaction.details, { readFiles: ["r.md"], modifiedFiles: ["e.ts"] });
    assert.equal(composeCompactionSummary("H", undefined, createFileOperations()).summary, "H");
    const branch = composeBranchSummary("B", createFileOperations());
    assert.equal(branch.summary, `${prompts.BRANCH_SUMMARY_PREAMBLE}B`);
  });
});
