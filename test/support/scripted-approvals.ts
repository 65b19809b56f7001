/** What the safety tests share: a host that answers approvals from a script, and the tool results a session recorded. */
import * as assert from "node:assert/strict";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/core/agent/safety/approvals";
import type { ToolPolicy } from "../../src/core/agent/tool-runner";
import type { SessionManager } from "../../src/core/session/session-manager";
import type { ToolResultMessage } from "../../src/core/session/types";

/** A host that answers from a queue and records what it was asked; one question more than scripted fails. */
export function scriptedApprover(...answers: ApprovalAnswer[]): { asked: ApprovalRequest[]; approve: NonNullable<ToolPolicy["approve"]> } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: (request) => {
      asked.push(request);
      const answer = answers.shift();
      assert.ok(answer, `asked once more than scripted: ${JSON.stringify(request)}`);
      return answer;
    },
  };
}

/** The tool results on the session's current branch, in order. */
export function toolResults(sm: SessionManager): ToolResultMessage[] {
  return sm.getBranch().flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
}

/** A tool result's text. */
export function textOf(result: ToolResultMessage): string {
  return result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}
