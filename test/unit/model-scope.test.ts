/**
 * Model cycling's pure parts: the scoped models `enabledModels` patterns pick (against the
 * reference's own resolver on random patterns), the next model of the cycle and the next thinking level.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { nextInCycle, nextThinkingLevel, resolveModelScope, type ScopeCandidate } from "../../src/core/models/model-scope";

type RefScope = (patterns: string[], registry: { getAvailable(): Promise<ScopeCandidate[]> }) => Promise<{ model: ScopeCandidate; thinkingLevel?: string }[]>;

const MODELS: ScopeCandidate[] = [
  { provider: "anthropic", id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5" },
  { provider: "anthropic", id: "claude-sonnet-4-5-20250929", name: "Claude Sonnet 4.5 (dated)" },
  { provider: "anthropic", id: "claude-opus-4-1-20250805", name: "Claude Opus 4.1" },
  { provider: "anthropic", id: "claude-opus-4-20250514", name: "Claude Opus 4" },
  { provider: "openai", id: "gpt-4o", name: "GPT-4o" },
  { provider: "openai", id: "gpt-4o-mini", name: "GPT-4o mini" },
  { provider: "openrouter", id: "openai/gpt-4o", name: "GPT-4o via OpenRouter" },
  { provider: "openrouter", id: "qwen/qwen3:exacto", name: "Qwen3 exacto" },
  { provider: "ollama", id: "llama3.1:8b", name: "Llama 3.1 8B" },
  { provider: "local", id: "gpt-4o", name: "Local GPT" },
];

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["claude", "sonnet", "opus", "gpt-4o", "mini", "*", "?", "anthropic/", "openai/", "openrouter/", "qwen", ":exacto", ":high", ":off", ":bogus", "4-5", "llama3.1", ":8b", "GPT", "Sonnet 4.5", "[ol]", "local/"];

describe("model scope and cycling", () => {
  let reference: RefScope;
  before(async () => {
    // The reference's resolver is not among its package's exports; its file is loaded directly.
    const file = join(__dirname, "..", "..", "..", "node_modules", "@mariozechner", "pi-coding-agent", "dist", "core", "model-resolver.js");
    reference = ((await import(pathToFileURL(file).href)) as { resolveModelScope: RefScope }).resolveModelScope;
  });

  it("picks the same models, in the same order and with the same thinking levels, as the reference (400 random pattern lists)", async () => {
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      let nonEmpty = 0;
      for (let seed = 1; seed <= 400; seed++) {
        const rand = random(seed);
        const patterns = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
          Array.from({ length: 1 + Math.floor(rand() * 3) }, () => PIECES[Math.floor(rand() * PIECES.length)]!).join(""),
        );
        const expected = (await reference(patterns, { getAvailable: async () => MODELS })).map((s) => ({ key: `${s.model.provider}/${s.model.id}`, level: s.thinkingLevel }));
        const actual = resolveModelScope(patterns, MODELS).map((s) => ({ key: `${s.model.provider}/${s.model.id}`, level: s.thinkingLevel }));
        assert.deepEqual(actual, expected, `seed ${seed}: ${JSON.stringify(patterns)}`);
        if (expected.length > 0) nonEmpty++;
      }
      assert.ok(nonEmpty > 100, `patterns that picked something: ${nonEmpty}`);
    } finally {
      console.warn = warn;
    }
  });

  it("prefers an alias over dated ids, takes globs against provider/id and id, and reads a trailing thinking level", () => {
    const keys = (patterns: string[]) => resolveModelScope(patterns, MODELS).map((s) => `${s.model.provider}/${s.model.id}${s.thinkingLevel ? `:${s.thinkingLevel}` : ""}`);
    assert.deepEqual(keys(["sonnet"]), ["anthropic/claude-sonnet-4-5"]);
    assert.deepEqual(keys(["opus"]), ["anthropic/claude-opus-4-20250514"], "no alias: the dated id that sorts last");
    assert.deepEqual(keys(["openai/*"]), ["openai/gpt-4o", "openai/gpt-4o-mini", "openrouter/openai/gpt-4o"]);
    assert.deepEqual(keys(["gpt-4o:high", "anthropic/claude-sonnet-4-5"]), ["openrouter/openai/gpt-4o:high", "anthropic/claude-sonnet-4-5"], "an id two providers have is no exact match");
    assert.deepEqual(keys(["qwen/qwen3:exacto:low"]), ["openrouter/qwen/qwen3:exacto:low"]);
    assert.deepEqual(keys(["nothing-like-it"]), []);
  });

  it("steps forward and backward around the cycle, from the first when the current model is not in it", () => {
    const [a, b, c] = MODELS;
    assert.equal(nextInCycle([a!, b!, c!], b, "forward"), c);
    assert.equal(nextInCycle([a!, b!, c!], c, "forward"), a);
    assert.equal(nextInCycle([a!, b!, c!], a, "backward"), c);
    assert.equal(nextInCycle([a!, b!, c!], MODELS[5], "forward"), b);
    assert.equal(nextInCycle([a!], a, "forward"), undefined);
    assert.equal(nextThinkingLevel(["off", "minimal", "low", "medium", "high"], "high"), "off");
    assert.equal(nextThinkingLevel(["off", "low", "high"], "low"), "high");
    assert.equal(nextThinkingLevel(["off"], "off"), undefined);
  });
});
