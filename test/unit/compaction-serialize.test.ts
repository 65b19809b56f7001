/**
 * File operations and the summarizer transcript, against the reference.
 */
import * as assert from "node:assert/strict";
import { buildSessionContext } from "../../src/core/context/build-context";
import { convertToLlm } from "../../src/core/context/convert-to-llm";
import {
  computeFileLists,
  createFileOperations,
  extractFileOperations,
  formatFileOperations,
} from "../../src/core/compaction/file-operations";
import { serializeConversation, TOOL_RESULT_MAX_CHARS } from "../../src/core/compaction/serialize-conversation";
import type { AgentMessage } from "../../src/core/session/types";
import { loadReference, loadReferenceInternals, type PiInternals, type PiReference } from "../support/reference";
import { generateReferenceSession } from "../support/random-session";

describe("file operations and conversation serialization", () => {
  let pi: PiReference;
  let internals: PiInternals;
  before(async () => {
    pi = await loadReference();
    internals = await loadReferenceInternals();
  });

  it("serializeConversation matches the reference on every random context", () => {
    let long = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 60 });
      for (const leaf of ids) {
        const llm = convertToLlm(buildSessionContext(manager.getEntries(), leaf).messages);
        const ours = serializeConversation(llm);
        assert.equal(ours, pi.serializeConversation(llm), `seed ${seed} leaf ${leaf}`);
        if (ours.includes("more characters truncated]")) long++;
      }
    }
    assert.ok(long > 10, `${long} transcripts with a cut tool result`);
  });

  it("cuts tool results at the limit and says how much was cut", () => {
    const text = "x".repeat(TOOL_RESULT_MAX_CHARS + 5);
    const messages: AgentMessage[] = [{ role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 0 }];
    const ours = serializeConversation(convertToLlm(messages));
    assert.equal(ours, `[Tool result]: ${"x".repeat(TOOL_RESULT_MAX_CHARS)}\n\n[... 5 more characters truncated]`);
    assert.equal(ours, pi.serializeConversation(convertToLlm(messages)));
  });

  it("extracts, lists and formats file operations like the reference", () => {
    let nonEmpty = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { manager } = generateReferenceSession(pi, { seed, entries: 80 });
      const ours = createFileOperations();
      const theirs = internals.createFileOps();
      for (const entry of manager.getEntries()) {
        if (entry.type !== "message") continue;
        extractFileOperations(entry.message, ours);
        internals.extractFileOpsFromMessage(entry.message, theirs);
      }
      assert.deepStrictEqual(ours, theirs, `seed ${seed}`);
      const lists = computeFileLists(ours);
      assert.deepStrictEqual(lists, internals.computeFileLists(theirs));
      assert.equal(formatFileOperations(lists.readFiles, lists.modifiedFiles), internals.formatFileOperations(lists.readFiles, lists.modifiedFiles));
      if (lists.modifiedFiles.length > 0 && lists.readFiles.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 10);
    assert.equal(formatFileOperations([], []), "");
  });

  it("counts a file both read and changed as modified only", () => {
    const ops = createFileOperations();
    ops.read.add("a").add("b");
    ops.written.add("b");
    ops.edited.add("c");
    assert.deepStrictEqual(computeFileLists(ops), { readFiles: ["a"], modifiedFiles: ["b", "c"] });
    assert.equal(formatFileOperations(["a"], ["b", "c"]), "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nb\nc\n</modified-files>");
  });
});
