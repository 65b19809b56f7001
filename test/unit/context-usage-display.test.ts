import * as assert from "node:assert/strict";
import { measureContextUsage } from "../../src/core/agent/auto-compaction";
import type { AgentMessage } from "../../src/core/session/types";
import { assistant, user } from "../support/messages";

describe("context use for the status bar", () => {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const reported = (tokens: number): AgentMessage => ({ ...assistant("the first answer"), usage: { ...zero, input: tokens - 10, output: 10, totalTokens: tokens } });

  it("does not drop to 0% after a reply that reports no usage (a stopped reply, a provider without usage, a thinking turn)", () => {
    const messages: AgentMessage[] = [user("hi"), reported(50_000), user("think about it"), { ...assistant("thought"), usage: zero }];
    const use = measureContextUsage([], messages, 100_000);
    assert.ok(use && use.tokens !== null && use.tokens >= 50_000, `about 50k tokens, not ${use?.tokens}`);
    assert.ok(use.percent !== null && use.percent >= 50);
    // A reply that reports its usage is still what counts.
    const after = measureContextUsage([], [...messages, user("go on"), reported(60_000)], 100_000);
    assert.equal(after?.tokens, 60_000);
  });
});
