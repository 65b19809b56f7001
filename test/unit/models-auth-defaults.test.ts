/**
 * Pi's auth.json as Arbor imports it, Pi's settings.json defaults, and the choice of a default model.
 */
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { chooseDefaultModel, formatModelKey, parseModelKey } from "../../src/core/models/default-model";
import { DEFAULT_RETRY_SETTINGS } from "../../src/core/agent/retry-policy";
import { readPiAuthFile, readPiDefaults } from "../../src/core/models/pi-auth-file";
import { makeTempDir } from "../support/temp-dir";

describe("Pi's auth.json and settings.json", () => {
  let tmp: { dir: string; cleanup(): void };
  beforeEach(() => (tmp = makeTempDir("arbor-auth-")));
  afterEach(() => tmp.cleanup());

  it("imports API keys (an environment variable's name resolved as Pi resolves it) imports OAuth logins with their credentials, and skips commands with the reason", async () => {
    const path = join(tmp.dir, "auth.json");
    writeFileSync(
      path,
      JSON.stringify({
        anthropic: { type: "api_key", key: "sk-ant-literal" },
        openai: { type: "api_key", key: "MY_OPENAI_KEY_VAR" },
        groq: { type: "api_key", key: "!op read op://vault/groq" },
        "github-copilot": { type: "oauth", access: "a", refresh: "r", expires: 1 },
        weird: { type: "api_key" },
        broken: "x",
      }),
    );
    const entries = await readPiAuthFile(path, { MY_OPENAI_KEY_VAR: "sk-from-env" });
    assert.deepEqual(entries, [
      { provider: "anthropic", importable: true, key: "sk-ant-literal" },
      { provider: "openai", importable: true, key: "sk-from-env" },
      { provider: "groq", importable: false, reason: "a shell command (Arbor stores keys, not commands)" },
      { provider: "github-copilot", importable: true, login: { access: "a", refresh: "r", expires: 1 } },
      { provider: "weird", importable: false, reason: "not an API key entry" },
      { provider: "broken", importable: false, reason: "not an API key entry" },
    ]);
    // Reasons never carry the key.
    assert.ok(!JSON.stringify(entries.filter((e) => !e.importable)).includes("op://vault"));
  });

  it("reads auth.json the way the reference writes it", async () => {
    const { AuthStorage } = (await import("@mariozechner/pi-coding-agent")) as unknown as { AuthStorage: { create(path: string): { set(provider: string, credential: unknown): void } } };
    const path = join(tmp.dir, "auth.json");
    AuthStorage.create(path).set("mistral", { type: "api_key", key: "mk-123" });
    assert.deepEqual(await readPiAuthFile(path, {}), [{ provider: "mistral", importable: true, key: "mk-123" }]);
  });

  it("says clearly when auth.json is missing or not an object", async () => {
    await assert.rejects(readPiAuthFile(join(tmp.dir, "nope.json")), /There is no .*nope\.json/);
    const path = join(tmp.dir, "auth.json");
    writeFileSync(path, "[1]");
    await assert.rejects(readPiAuthFile(path), /does not hold an object of providers/);
    writeFileSync(path, "{");
    await assert.rejects(readPiAuthFile(path), /is not valid JSON/);
  });

  it("reads Pi's default model and level and its scoped models from settings.json, ignoring what is not valid", async () => {
    const path = join(tmp.dir, "settings.json");
    writeFileSync(path, JSON.stringify({ defaultProvider: "anthropic", defaultModel: "claude-x", defaultThinkingLevel: "high", theme: "dark" }));
    assert.deepEqual(await readPiDefaults(path), { provider: "anthropic", model: "claude-x", thinkingLevel: "high", enabledModels: undefined, retry: DEFAULT_RETRY_SETTINGS, thinkingBudgets: undefined });
    writeFileSync(path, JSON.stringify({ defaultThinkingLevel: "extreme", defaultModel: 3, enabledModels: ["claude-*", 7, "", "gpt-4o:high"], retry: { enabled: false, baseDelayMs: 500, provider: { maxRetryDelayMs: 0 } }, thinkingBudgets: { minimal: 512, low: "4096", medium: -1, high: 32768.5, extreme: 9 } }));
    assert.deepEqual(await readPiDefaults(path), {
      provider: undefined,
      model: undefined,
      thinkingLevel: undefined,
      enabledModels: ["claude-*", "gpt-4o:high"],
      retry: { enabled: false, maxRetries: 3, baseDelayMs: 500, maxRetryDelayMs: 0 },
      // Only whole positive numbers of a known level make a budget (anything else would break the request).
      thinkingBudgets: { minimal: 512 },
    });
    assert.deepEqual(await readPiDefaults(join(tmp.dir, "missing.json")), {});
  });
});

describe("the default model", () => {
  const models = [
    { provider: "anthropic", id: "a1" },
    { provider: "openai", id: "o1" },
    { provider: "ollama", id: "llama" },
    { provider: "mine", id: "m" },
  ];
  const configured = new Set(["ollama", "mine"]);

  it("takes the first preference that names a known model, even without a key (as Pi does)", () => {
    const chosen = chooseDefaultModel({ models, preferences: [undefined, { provider: "x", id: "gone" }, { provider: "openai", id: "o1" }], hasCredentials: () => false, isConfigured: () => false });
    assert.deepEqual(chosen, { provider: "openai", id: "o1" });
  });

  it("else the first model with credentials, configured ones before built-in ones", () => {
    assert.deepEqual(chooseDefaultModel({ models, preferences: [], hasCredentials: (m) => m.provider !== "ollama", isConfigured: (m) => configured.has(m.provider) }), { provider: "mine", id: "m" });
    assert.deepEqual(chooseDefaultModel({ models, preferences: [], hasCredentials: (m) => m.provider === "openai", isConfigured: (m) => configured.has(m.provider) }), { provider: "openai", id: "o1" });
    assert.equal(chooseDefaultModel({ models, preferences: [], hasCredentials: () => false, isConfigured: () => true }), undefined);
  });

  it("parses and formats provider/id, ids with slashes included", () => {
    assert.deepEqual(parseModelKey("openrouter/anthropic/claude-sonnet"), { provider: "openrouter", id: "anthropic/claude-sonnet" });
    assert.equal(parseModelKey("nothing"), undefined);
    assert.equal(parseModelKey("/x"), undefined);
    assert.equal(parseModelKey("p/"), undefined);
    assert.equal(formatModelKey({ provider: "a", id: "b/c" }), "a/b/c");
  });
});
