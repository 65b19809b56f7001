/**
 * Pi's models.json, read by Arbor's model registry and by the reference's own ModelRegistry on the
 * same files: the same models in the same order (custom providers, base URLs, APIs, compat flags,
 * per-model overrides, pi-ai's built-in catalog), the same files rejected, and the same key and
 * headers for each call. Then what Arbor adds: a second file (Arbor's own), re-reading on change.
 */
import * as assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CredentialResolver, type StoredKeys } from "../../src/core/models/credentials";
import { ModelRegistry } from "../../src/core/models/model-registry";
import { parseModelsJson, stripJsonComments } from "../../src/core/models/models-json";
import { piAi, type PiCatalog, type PiModel } from "../../src/core/models/pi-ai-modules";
import { watchFiles } from "../../src/core/util/watch-files";
import { makeTempDir } from "../support/temp-dir";

interface RefRegistry {
  getAll(): PiModel[];
  getError(): string | undefined;
  getApiKeyAndHeaders(model: PiModel): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string> } | { ok: false; error: string }>;
  hasConfiguredAuth(model: PiModel): boolean;
}
interface RefModule {
  AuthStorage: { inMemory(data?: Record<string, unknown>): unknown };
  ModelRegistry: { create(auth: unknown, path: string): RefRegistry };
}

const NO_STORED_KEYS: StoredKeys = { get: async () => undefined, has: () => false };
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("models.json against the reference's model registry", function () {
  this.timeout(60_000);

  let catalog: PiCatalog;
  let ref: RefModule;
  let tmp: { dir: string; cleanup(): void };
  let anthropicId: string;
  let openaiId: string;
  const savedEnv = { ...process.env };

  before(async () => {
    catalog = await piAi.catalog();
    ref = (await import("@mariozechner/pi-coding-agent")) as unknown as RefModule;
    anthropicId = catalog.getModels("anthropic")[0]!.id;
    openaiId = catalog.getModels("openai")[0]!.id;
  });
  beforeEach(() => (tmp = makeTempDir("arbor-models-")));
  afterEach(() => {
    tmp.cleanup();
    process.env = { ...savedEnv };
  });

  function both(text: string): { ours: ModelRegistry; theirs: RefRegistry; path: string } {
    const path = join(tmp.dir, "models.json");
    writeFileSync(path, text);
    return { ours: new ModelRegistry(catalog, [{ path, origin: "models.json" }]), theirs: ref.ModelRegistry.create(ref.AuthStorage.inMemory(), path), path };
  }

  function assertSameModels(text: string): { ours: ModelRegistry; theirs: RefRegistry } {
    const { ours, theirs } = both(text);
    assert.deepEqual(plain(ours.getAll()), plain(theirs.getAll()));
    assert.equal(ours.getErrors().length > 0, theirs.getError() !== undefined, `ours: ${ours.getErrors()[0]?.message}; theirs: ${theirs.getError()}`);
    return { ours, theirs };
  }

  const files: [string, () => unknown][] = [
    ["no file content but providers {}", () => ({ providers: {} })],
    [
      "a local server (custom provider, defaults, compat on provider and model)",
      () => ({
        providers: {
          ollama: {
            baseUrl: "http://localhost:11434/v1",
            api: "openai-completions",
            apiKey: "ollama",
            compat: { supportsDeveloperRole: false, openRouterRouting: { order: ["a"] } },
            models: [
              { id: "llama3.1:8b" },
              {
                id: "qwen2.5-coder:32b",
                name: "Qwen Coder",
                contextWindow: 32768,
                maxTokens: 8192,
                reasoning: true,
                input: ["text", "image"],
                thinkingLevelMap: { minimal: null, xhigh: "max" },
                cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0 },
                compat: { maxTokensField: "max_tokens", openRouterRouting: { only: ["b"] } },
              },
            ],
          },
        },
      }),
    ],
    [
      "built-in providers changed: a proxy base URL, compat, and per-model overrides merged field by field",
      () => ({
        providers: {
          openai: { baseUrl: "https://proxy.example/v1", compat: { supportsStore: false } },
          anthropic: {
            modelOverrides: {
              [anthropicId]: { name: "Renamed", contextWindow: 100000, cost: { input: 1 }, thinkingLevelMap: { xhigh: "max" }, headers: { "x-a": "b" }, compat: { supportsLongCacheRetention: false } },
              "no-such-model": { contextWindow: 5 },
            },
          },
        },
      }),
    ],
    [
      "models added to built-in providers (inheriting API and base URL) and one replacing a built-in model",
      () => ({ providers: { openrouter: { models: [{ id: "my/model" }] }, openai: { models: [{ id: openaiId, name: "Mine", contextWindow: 5 }] } } }),
    ],
    ["a custom provider without an apiKey (rejected: built-ins only)", () => ({ providers: { lan: { baseUrl: "http://10.0.0.2/v1", api: "openai-completions", models: [{ id: "m" }] } } })],
    ["a model of a custom provider without an api", () => ({ providers: { lan: { baseUrl: "http://10.0.0.2/v1", apiKey: "k", models: [{ id: "m" }] } } })],
    ["a wrongly typed field", () => ({ providers: { lan: { baseUrl: "http://x/v1", apiKey: "k", api: "openai-completions", models: [{ id: "m", contextWindow: "big" }] } } })],
    ["a wrongly typed compat flag that another compat shape allows", () => ({ providers: { openai: { compat: { supportsStore: "yes" } } } })],
    ["a wrongly typed flag every compat shape declares", () => ({ providers: { openai: { compat: { supportsLongCacheRetention: "yes" } } } })],
    ["a provider entry that says nothing", () => ({ providers: { openai: { name: "Just a name" } } })],
    ["maxTokens 0", () => ({ providers: { lan: { baseUrl: "http://x/v1", apiKey: "k", api: "openai-completions", models: [{ id: "m", maxTokens: 0 }] } } })],
    ["an empty model id", () => ({ providers: { lan: { baseUrl: "http://x/v1", apiKey: "k", api: "openai-completions", models: [{ id: "" }] } } })],
    ["no providers key", () => ({ models: [] })],
    ["a cost missing a field", () => ({ providers: { lan: { baseUrl: "http://x/v1", apiKey: "k", api: "openai-completions", models: [{ id: "m", cost: { input: 1 } }] } } })],
    ["unknown extra fields (allowed)", () => ({ providers: { lan: { baseUrl: "http://x/v1", apiKey: "k", api: "anthropic-messages", extra: 1, models: [{ id: "m", future: true }] } }, version: 2 })],
  ];

  for (const [name, make] of files) {
    it(`reads the same models: ${name}`, () => assertSameModels(JSON.stringify(make(), null, 2)));
  }

  it("accepts // comments and trailing commas, not inside strings", () => {
    const text = `{
      // local models
      "providers": {
        "lm": { "baseUrl": "http://127.0.0.1:1234/v1", // LM Studio
                "api": "openai-completions", "apiKey": "a//b,}", "models": [ { "id": "x", }, ], },
      },
    }`;
    const { ours } = assertSameModels(text);
    assert.equal(ours.find("lm", "x")?.baseUrl, "http://127.0.0.1:1234/v1");
    assert.equal(ours.requestConfig("lm")?.apiKey, "a//b,}");
    assert.equal(stripJsonComments('{"a": "x//y", // c\n"b": [1,2,],}'), '{"a": "x//y", \n"b": [1,2]}');
  });

  it("rejects a file that is not JSON, keeping the built-in models", () => {
    const { ours } = assertSameModels("{ providers: ");
    assert.match(ours.getErrors()[0]!.message, /is not valid JSON/);
    assert.ok(ours.getAll().length > 100);
  });

  it("resolves the same key and headers for each call (environment names, literals, authHeader)", async () => {
    process.env.ARBOR_TEST_LAN_KEY = "from-env";
    process.env.ARBOR_TEST_TOKEN = "tok";
    const config = {
      providers: {
        lan: { baseUrl: "http://10.0.0.2/v1", api: "openai-completions", apiKey: "ARBOR_TEST_LAN_KEY", headers: { "x-team": "ARBOR_TEST_TOKEN", "x-lit": "literal" }, models: [{ id: "m", headers: { "x-model": "mm" } }] },
        gw: { baseUrl: "https://gw.example/v1", api: "openai-completions", apiKey: "plain-key", authHeader: true, models: [{ id: "g" }] },
        anthropic: { modelOverrides: { [anthropicId]: { headers: { "anthropic-beta": "x" } } } },
      },
    };
    const { ours, theirs } = assertSameModels(JSON.stringify(config));
    const resolver = new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: false }));
    for (const [provider, id] of [["lan", "m"], ["gw", "g"]] as const) {
      const model = ours.find(provider, id)!;
      assert.deepEqual(await resolver.resolve(model), await theirs.getApiKeyAndHeaders(model), `${provider}/${id}`);
      assert.equal(resolver.hasConfiguredAuth(model), theirs.hasConfiguredAuth(model));
    }
    // A built-in provider without a key: Pi sends nothing and fails in pi-ai; Arbor says so before the call.
    const claude = ours.find("anthropic", anthropicId)!;
    assert.equal(resolver.hasConfiguredAuth(claude), theirs.hasConfiguredAuth(claude));
    process.env.ANTHROPIC_API_KEY = "sk-ant-env";
    delete process.env.ANTHROPIC_OAUTH_TOKEN;
    assert.deepEqual(await resolver.resolve(claude), await theirs.getApiKeyAndHeaders(claude));
    assert.deepEqual(resolver.keySource("anthropic"), { kind: "environment", variable: "ANTHROPIC_API_KEY" });
  });

  it("a stored key comes before the environment and models.json, as auth.json does in Pi", async () => {
    process.env.OPENAI_API_KEY = "env-key";
    const { ours } = both(JSON.stringify({ providers: { openai: { apiKey: "file-key", baseUrl: "https://api.openai.com/v1" } } }));
    const stored: StoredKeys = { get: async (p) => (p === "openai" ? "stored-key" : undefined), has: (p) => p === "openai" };
    const model = ours.find("openai", openaiId)!;
    assert.deepEqual(await new CredentialResolver(ours, catalog, stored, () => ({ allowCommands: false })).resolve(model), { ok: true, apiKey: "stored-key", headers: undefined });
    assert.deepEqual(await new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: false })).resolve(model), { ok: true, apiKey: "env-key", headers: undefined });
    delete process.env.OPENAI_API_KEY;
    assert.deepEqual(await new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: false })).resolve(model), { ok: true, apiKey: "file-key", headers: undefined });
  });

  it("runs a !command key only where commands are allowed, and reports one that fails", async () => {
    const { ours } = both(JSON.stringify({ providers: { lan: { baseUrl: "http://10.0.0.2/v1", api: "openai-completions", apiKey: "!echo from-command", models: [{ id: "m" }] }, bad: { baseUrl: "http://10.0.0.3/v1", api: "openai-completions", apiKey: "!exit 3", models: [{ id: "b" }] } } }));
    const model = ours.find("lan", "m")!;
    const restricted = await new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: false })).resolve(model);
    assert.deepEqual(restricted, { ok: false, error: 'The API key of provider "lan" comes from a shell command (!echo from-command); Arbor runs it only in a trusted workspace.' });
    const trusted = new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: true }));
    assert.deepEqual(await trusted.resolve(model), { ok: true, apiKey: "from-command", headers: undefined });
    const failed = await trusted.resolve(ours.find("bad", "b")!);
    assert.equal(failed.ok, false);
    assert.match(!failed.ok ? failed.error : "", /shell command for the API key of provider "bad" failed/);
  });

  it("says how to add a key when there is none", async () => {
    const { ours } = both(JSON.stringify({ providers: {} }));
    delete process.env.MISTRAL_API_KEY;
    const resolver = new CredentialResolver(ours, catalog, NO_STORED_KEYS, () => ({ allowCommands: false }), (p) => `Run "Set API Key" for ${p}.`);
    const result = await resolver.resolve(ours.modelsOf("mistral")[0]!);
    assert.deepEqual(result, { ok: false, error: 'No API key for provider "mistral". Run "Set API Key" for mistral.' });
  });
});

describe("Arbor's model registry beyond Pi", function () {
  this.timeout(60_000);

  let catalog: PiCatalog;
  let tmp: { dir: string; cleanup(): void };
  before(async () => (catalog = await piAi.catalog()));
  beforeEach(() => (tmp = makeTempDir("arbor-models-")));
  afterEach(() => tmp.cleanup());

  const local = (id: string, baseUrl = "http://127.0.0.1:1/v1") => ({ providers: { local: { baseUrl, api: "openai-completions", apiKey: "none", models: [{ id }] } } });

  it("reads Arbor's own file after Pi's: its providers win by name, its models are marked as Arbor's", () => {
    const pi = join(tmp.dir, "pi.json");
    const arbor = join(tmp.dir, "arbor.json");
    writeFileSync(pi, JSON.stringify({ providers: { ...local("from-pi").providers, other: { baseUrl: "http://o/v1", api: "openai-completions", apiKey: "k", models: [{ id: "o" }] } } }));
    writeFileSync(arbor, JSON.stringify(local("from-arbor")));
    const registry = new ModelRegistry(catalog, [{ path: pi, origin: "models.json" }, { path: arbor, origin: "arbor" }]);
    assert.deepEqual(registry.modelsOf("local").map((m) => m.id), ["from-arbor"]);
    assert.equal(registry.originOf({ provider: "local", id: "from-arbor" }), "arbor");
    assert.equal(registry.originOf({ provider: "other", id: "o" }), "models.json");
    assert.equal(registry.originOf(registry.modelsOf("anthropic")[0]!), "built-in");
  });

  it("keeps the other file when one is broken, and reports which", () => {
    const pi = join(tmp.dir, "pi.json");
    const arbor = join(tmp.dir, "arbor.json");
    writeFileSync(pi, "{ not json");
    writeFileSync(arbor, JSON.stringify(local("a")));
    const registry = new ModelRegistry(catalog, [{ path: pi, origin: "models.json" }, { path: arbor, origin: "arbor" }]);
    assert.equal(registry.find("local", "a")?.id, "a");
    assert.deepEqual(registry.getErrors().map((e) => e.path), [pi]);
  });

  it("refresh() picks up an edit, a new file and a deleted one, and fires only on a change", () => {
    const path = join(tmp.dir, "models.json");
    const registry = new ModelRegistry(catalog, [{ path, origin: "models.json" }]);
    let fired = 0;
    registry.onDidChange(() => fired++);
    assert.equal(registry.find("local", "a"), undefined);
    writeFileSync(path, JSON.stringify(local("a")));
    registry.refresh();
    assert.equal(registry.find("local", "a")?.id, "a");
    registry.refresh();
    assert.equal(fired, 1, "an unchanged file fires nothing");
    writeFileSync(path, JSON.stringify(local("b")));
    registry.refresh();
    assert.deepEqual(registry.modelsOf("local").map((m) => m.id), ["b"]);
    rmSync(path);
    registry.refresh();
    assert.equal(registry.modelsOf("local").length, 0);
    assert.equal(fired, 3);
  });

  it("watchFiles notices a file written into a folder that did not exist at first", async () => {
    const dir = join(tmp.dir, "agent");
    const path = join(dir, "models.json");
    let changes = 0;
    const watcher = watchFiles([path], () => changes++, { debounceMs: 20, pollMs: 100 });
    try {
      const { mkdirSync } = await import("node:fs");
      mkdirSync(dir);
      writeFileSync(path, "{}");
      const deadline = Date.now() + 5000;
      while (changes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(changes > 0, "the new file was noticed");
    } finally {
      watcher.dispose();
    }
  });

  it("parseModelsJson names the field that is wrong", () => {
    const result = parseModelsJson(JSON.stringify({ providers: { lan: { baseUrl: 5 } } }), new Set(), "m.json");
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.error : "", /providers\.lan\.baseUrl: expected a string/);
  });
});
