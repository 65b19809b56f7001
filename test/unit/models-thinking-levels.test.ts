/**
 * Thinking levels: Arbor's pure rules against pi-ai's own `getSupportedThinkingLevels` and
 * `clampThinkingLevel`, on every model of pi-ai's catalog and on hand-made capability maps.
 */
import * as assert from "node:assert/strict";
import { clampThinkingLevel, clampToLevels, supportedThinkingLevels, type ThinkingCapabilities } from "../../src/core/models/thinking-levels";
import { THINKING_LEVELS } from "../../src/core/session/types";

describe("thinking levels", function () {
  this.timeout(60_000);

  it("agree with pi-ai on every built-in model and every requested level", async () => {
    const pi = await import("@mariozechner/pi-ai");
    let models = 0;
    let reasoning = 0;
    for (const provider of pi.getProviders()) {
      for (const model of pi.getModels(provider)) {
        models += 1;
        if (model.reasoning) reasoning += 1;
        assert.deepEqual(supportedThinkingLevels(model), pi.getSupportedThinkingLevels(model), `${provider}/${model.id}`);
        for (const level of THINKING_LEVELS) {
          assert.equal(clampThinkingLevel(model, level), pi.clampThinkingLevel(model, level), `${provider}/${model.id} at ${level}`);
        }
      }
    }
    assert.ok(models > 100 && reasoning > 20, `the catalog has ${models} models, ${reasoning} with reasoning`);
  });

  const cases: [string, ThinkingCapabilities][] = [
    ["no reasoning", { reasoning: false }],
    ["plain reasoning", { reasoning: true }],
    ["xhigh named", { reasoning: true, thinkingLevelMap: { xhigh: "max" } }],
    ["off and minimal ruled out", { reasoning: true, thinkingLevelMap: { off: null, minimal: null } }],
    ["only high", { reasoning: true, thinkingLevelMap: { off: null, minimal: null, low: null, medium: null } }],
    ["nothing left", { reasoning: true, thinkingLevelMap: { off: null, minimal: null, low: null, medium: null, high: null } }],
  ];

  for (const [name, capabilities] of cases) {
    it(`agree with pi-ai on a model with ${name}`, async () => {
      const pi = await import("@mariozechner/pi-ai");
      const model = { id: "m", name: "m", api: "openai-completions", provider: "p", baseUrl: "", input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1, maxTokens: 1, ...capabilities } as Parameters<typeof pi.getSupportedThinkingLevels>[0];
      assert.deepEqual(supportedThinkingLevels(capabilities), pi.getSupportedThinkingLevels(model));
      for (const level of THINKING_LEVELS) assert.equal(clampThinkingLevel(capabilities, level), pi.clampThinkingLevel(model, level), level);
    });
  }

  it("clamps to the nearest stronger level first, then the nearest weaker one", () => {
    assert.equal(clampToLevels(["off", "high"], "low"), "high");
    assert.equal(clampToLevels(["off", "low"], "xhigh"), "low");
    assert.equal(clampToLevels(["off"], "medium"), "off");
    assert.equal(clampToLevels(undefined, "medium"), "medium", "no list: every level");
    assert.equal(clampToLevels([], "medium"), "off");
  });
});
