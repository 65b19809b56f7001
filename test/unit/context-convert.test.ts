/**
 * convertToLlm and the derived-message builders, case by case against the reference.
 */
import * as assert from "node:assert/strict";
import { convertToLlm } from "../../src/core/context/convert-to-llm";
import {
  bashExecutionToText,
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "../../src/core/context/messages";
import type { AgentMessage, BashExecutionMessage } from "../../src/core/session/types";
import { loadReference, loadReferenceInternals, type PiInternals, type PiReference } from "../support/reference";

const T = "2025-06-07T08:09:10.111Z";

function bash(overrides: Partial<BashExecutionMessage>): BashExecutionMessage {
  return { role: "bashExecution", command: "ls -la", output: "a\nb", exitCode: 0, cancelled: false, truncated: false, timestamp: 5, ...overrides };
}

const BASH_CASES: BashExecutionMessage[] = [
  bash({}),
  bash({ output: "" }),
  bash({ exitCode: 2 }),
  bash({ exitCode: undefined }),
  bash({ cancelled: true, exitCode: 130 }),
  bash({ truncated: true }),
  bash({ truncated: true, fullOutputPath: "/tmp/out.log", exitCode: 1 }),
  bash({ command: "echo `x`", output: "```\nfenced\n```" }),
];

describe("convertToLlm", () => {
  let pi: PiReference;
  let internals: PiInternals;
  before(async () => {
    pi = await loadReference();
    internals = await loadReferenceInternals();
  });

  it("writes bash runs exactly as the reference does", () => {
    for (const message of BASH_CASES) {
      assert.equal(bashExecutionToText(message), internals.bashExecutionToText(message), JSON.stringify(message));
    }
  });

  it("turns a bash run into user text and drops one excluded from context", () => {
    const kept = bash({ exitCode: 3 });
    const excluded = bash({ excludeFromContext: true });
    const llm = convertToLlm([kept, excluded]);
    assert.deepStrictEqual(llm, [{ role: "user", content: [{ type: "text", text: bashExecutionToText(kept) }], timestamp: 5 }]);
    assert.match(bashExecutionToText(kept), /^Ran `ls -la`\n```\na\nb\n```\n\nCommand exited with code 3$/);
    assert.deepStrictEqual(llm, pi.convertToLlm([kept, excluded]));
  });

  it("wraps summaries in <summary> tags behind the reference's preambles, byte for byte", () => {
    const compaction = createCompactionSummaryMessage("S1", 10, T);
    const branch = createBranchSummaryMessage("S2", "root", T);
    const ours = convertToLlm([compaction, branch]);
    assert.deepStrictEqual(ours, pi.convertToLlm([compaction, branch]));
    const [c, b] = ours.map((m) => (m.content as { text: string }[])[0].text);
    assert.ok(c.endsWith("<summary>\nS1\n</summary>"), c);
    assert.ok(b.endsWith("<summary>\nS2</summary>"), b);
  });

  it("turns custom messages into user messages, string content into one text block", () => {
    const fromString = createCustomMessage("ext", "hello", true, { k: 1 }, T);
    const fromBlocks = createCustomMessage("ext", [{ type: "text", text: "x" }, { type: "image", data: "AA==", mimeType: "image/png" }], false, undefined, T);
    const ours = convertToLlm([fromString, fromBlocks]);
    assert.deepStrictEqual(ours, pi.convertToLlm([fromString, fromBlocks]));
    assert.deepStrictEqual(ours[0].content, [{ type: "text", text: "hello" }]);
  });

  it("passes user, assistant and tool results through as the same objects", () => {
    const messages: AgentMessage[] = [
      { role: "user", content: "q", timestamp: 1 },
      { role: "toolResult", toolCallId: "c", toolName: "read", content: [], isError: false, timestamp: 3 },
    ];
    const ours = convertToLlm(messages);
    assert.equal(ours[0], messages[0]);
    assert.equal(ours[1], messages[1]);
  });

  it("drops messages of roles it does not know", () => {
    const unknown = { role: "hookMessage", content: "x", timestamp: 1 } as unknown as AgentMessage;
    assert.deepStrictEqual(convertToLlm([unknown]), []);
    assert.deepStrictEqual(convertToLlm([unknown]), pi.convertToLlm([unknown]));
  });

  it("builds derived messages with the reference's fields, key order and timestamps", () => {
    const pairs: [unknown, unknown][] = [
      [createCustomMessage("t", "c", true, undefined, T), internals.createCustomMessage("t", "c", true, undefined, T)],
      [createBranchSummaryMessage("s", "root", T), internals.createBranchSummaryMessage("s", "root", T)],
      [createCompactionSummaryMessage("s", 7, T), internals.createCompactionSummaryMessage("s", 7, T)],
      [createCompactionSummaryMessage("s", 7, "not a date"), internals.createCompactionSummaryMessage("s", 7, "not a date")],
    ];
    for (const [ours, theirs] of pairs) {
      assert.deepStrictEqual(ours, theirs);
      assert.deepStrictEqual(Object.keys(ours as object), Object.keys(theirs as object));
    }
  });
});
