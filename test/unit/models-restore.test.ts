/**
 * A resumed session's model and thinking level, restored by Arbor as Pi restores them: each session
 * file is written by the reference's own SessionManager, then opened by the reference's
 * `createAgentSession` and by Arbor's AgentSession over the same models.json and defaults, and both
 * must land on the same model and level (the model named last by a model_change or an assistant
 * message, when it has a key; else the default; the level from the file, else the default, clamped to
 * what the model takes). Then the clamping on later changes.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession } from "../../src/core/agent/agent-session";
import { parseModelKey } from "../../src/core/models/default-model";
import { ModelHub } from "../../src/core/models/model-hub";
import { piAi } from "../../src/core/models/pi-ai-modules";
import { SessionManager } from "../../src/core/session/session-manager";
import type { ThinkingLevel } from "../../src/core/session/types";
import { makeTempDir } from "../support/temp-dir";

interface RefSessionManagerLike {
  appendMessage(message: unknown): string;
  appendModelChange(provider: string, modelId: string): string;
  appendThinkingLevelChange(level: string): string;
  getSessionFile(): string | undefined;
}
interface RefModule {
  SessionManager: { create(cwd: string, dir: string): RefSessionManagerLike; open(file: string): unknown };
  SettingsManager: { inMemory(settings: Record<string, unknown>): unknown };
  AuthStorage: { inMemory(): unknown };
  ModelRegistry: { create(auth: unknown, path: string): unknown };
  createAgentSession(options: Record<string, unknown>): Promise<{ session: { model?: { provider: string; id: string }; thinkingLevel: string; dispose?(): void } }>;
}

type Step = ["model", string] | ["level", ThinkingLevel] | ["user"] | ["assistant", string];

const MODELS = {
  providers: {
    local: {
      baseUrl: "http://127.0.0.1:9/v1",
      api: "openai-completions",
      apiKey: "local-key",
      models: [{ id: "plain" }, { id: "thinker", reasoning: true }, { id: "deep", reasoning: true, thinkingLevelMap: { xhigh: "max", minimal: null } }],
    },
  },
};

describe("restoring a session's model and thinking level, against the reference", function () {
  this.timeout(60_000);

  let ref: RefModule;
  let tmp: { dir: string; cleanup(): void };
  let agentDir: string;
  /** A built-in model; with no environment key it has no credentials. */
  let builtIn: string;
  const savedEnv = { ...process.env };

  before(async () => {
    ref = (await import("@mariozechner/pi-coding-agent")) as unknown as RefModule;
    // No provider keys from this machine's environment: only models.json decides what is available.
    const catalog = await piAi.catalog();
    for (const provider of catalog.getProviders()) for (const variable of catalog.findEnvKeys(provider) ?? []) delete process.env[variable];
    builtIn = `mistral/${catalog.getModels("mistral")[0]!.id}`;
  });
  after(() => (process.env = { ...savedEnv }));
  beforeEach(() => {
    tmp = makeTempDir("arbor-restore-");
    agentDir = join(tmp.dir, "agent");
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(MODELS));
  });
  afterEach(() => tmp.cleanup());

  function writeSession(steps: Step[]): string {
    const sm = ref.SessionManager.create(tmp.dir, join(tmp.dir, "sessions"));
    let t = 1;
    for (const raw of steps) {
      const step = (raw[0] === "assistant" && raw[1] === "@built-in" ? ["assistant", builtIn] : raw) as Step;
      if (step[0] === "model") {
        const [provider, id] = step[1].split("/");
        sm.appendModelChange(provider!, id!);
      } else if (step[0] === "level") sm.appendThinkingLevelChange(step[1]);
      else if (step[0] === "user") sm.appendMessage({ role: "user", content: "hi", timestamp: t++ });
      else {
        const [provider, model] = step[1].split("/");
        sm.appendMessage({
          role: "assistant",
          content: [{ type: "text", text: "ok" }],
          api: "openai-completions",
          provider,
          model,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "stop",
          timestamp: t++,
        });
      }
    }
    return sm.getSessionFile()!;
  }

  async function restoreBoth(steps: Step[], defaults: { model?: string; level?: ThinkingLevel } = {}) {
    const file = writeSession(steps);
    const defaultKey = parseModelKey(defaults.model);
    const auth = ref.AuthStorage.inMemory();
    const { session: theirs } = await ref.createAgentSession({
      cwd: tmp.dir,
      agentDir,
      sessionManager: ref.SessionManager.open(file),
      authStorage: auth,
      modelRegistry: ref.ModelRegistry.create(auth, join(agentDir, "models.json")),
      settingsManager: ref.SettingsManager.inMemory({ defaultProvider: defaultKey?.provider, defaultModel: defaultKey?.id, defaultThinkingLevel: defaults.level }),
    });
    const hub = await ModelHub.create({ files: [{ path: join(agentDir, "models.json"), origin: "models.json" }], storedKeys: { get: async () => undefined, has: () => false }, allowCommands: () => false });
    const sm = await SessionManager.open(file);
    const ours = new AgentSession({ sessionManager: sm, ...hub.sessionConfig(() => [defaultKey], defaults.level ?? "medium") });
    const result = {
      ours: { model: ours.getModel() && `${ours.getModel()!.provider}/${ours.getModel()!.id}`, level: ours.getThinkingLevel() },
      theirs: { model: theirs.model && `${theirs.model.provider}/${theirs.model.id}`, level: theirs.thinkingLevel },
      notice: ours.getModelNotice(),
      session: ours,
    };
    return { ...result, close: async () => (await ours.close(), await sm.close(), theirs.dispose?.()) };
  }

  const scenarios: [string, Step[], { model?: string; level?: ThinkingLevel }, string, ThinkingLevel][] = [
    ["a model_change to a reasoning model and a level it takes", [["model", "local/thinker"], ["level", "low"], ["user"], ["assistant", "local/thinker"]], {}, "local/thinker", "low"],
    ["a level above what the model takes is clamped down", [["model", "local/thinker"], ["level", "xhigh"], ["user"], ["assistant", "local/thinker"]], {}, "local/thinker", "high"],
    ["a level the model rules out moves up to the nearest it takes", [["model", "local/deep"], ["level", "minimal"], ["user"], ["assistant", "local/deep"]], {}, "local/deep", "low"],
    ["a model without reasoning runs at off", [["level", "high"], ["user"], ["assistant", "local/plain"]], {}, "local/plain", "off"],
    ["the last assistant message names the model after a model_change", [["model", "local/thinker"], ["user"], ["assistant", "local/plain"]], {}, "local/plain", "off"],
    ["a later model_change wins over an earlier assistant", [["user"], ["assistant", "local/plain"], ["model", "local/deep"], ["level", "xhigh"]], {}, "local/deep", "xhigh"],
    ["no level in the file: the default level, clamped", [["user"], ["assistant", "local/thinker"]], { level: "xhigh" }, "local/thinker", "high"],
    ["no level and no default: Pi's medium", [["user"], ["assistant", "local/thinker"]], {}, "local/thinker", "medium"],
    ["a model without a key: the default model instead", [["user"], ["assistant", "@built-in"]], { model: "local/deep" }, "local/deep", "medium"],
    ["a model that is not configured: the first available", [["user"], ["assistant", "gone/x"], ["level", "high"]], {}, "local/plain", "off"],
  ];

  for (const [name, steps, defaults, model, level] of scenarios) {
    it(name, async () => {
      const result = await restoreBoth(steps, defaults);
      try {
        assert.deepEqual(result.ours, result.theirs, "Arbor restores what Pi restores");
        assert.deepEqual(result.ours, { model, level });
      } finally {
        await result.close();
      }
    });
  }

  it("says why a session's own model was not restored", async () => {
    const result = await restoreBoth([["user"], ["assistant", "@built-in"]], { model: "local/plain" });
    try {
      assert.equal(result.notice, `This session used ${builtIn}, which cannot be used (it has no API key). Using local/plain.`);
    } finally {
      await result.close();
    }
  });

  it("switching models keeps the level where the new model takes it, clamps it where not, and records both", async () => {
    const result = await restoreBoth([["model", "local/deep"], ["level", "xhigh"], ["user"], ["assistant", "local/deep"]]);
    const session = result.session;
    try {
      const hub = await ModelHub.create({ files: [{ path: join(agentDir, "models.json"), origin: "models.json" }], storedKeys: { get: async () => undefined, has: () => false }, allowCommands: () => false });
      session.setModel(hub.describe({ provider: "local", id: "thinker" })!);
      assert.equal(session.getThinkingLevel(), "high", "xhigh is not a level of thinker");
      session.setModel(hub.describe({ provider: "local", id: "plain" })!);
      assert.equal(session.getThinkingLevel(), "off");
      // Coming from a model without thinking, the default level (medium) comes back.
      session.setModel(hub.describe({ provider: "local", id: "deep" })!);
      assert.equal(session.getThinkingLevel(), "medium");
      assert.equal(session.setThinkingLevel("minimal"), true);
      assert.equal(session.getThinkingLevel(), "low", "minimal is ruled out for deep");
      const recorded = session.sessionManager.getBranch().flatMap((e) => (e.type === "thinking_level_change" ? [e.thinkingLevel] : e.type === "model_change" ? [`model:${e.modelId}`] : []));
      assert.deepEqual(recorded.slice(1), ["xhigh", "model:thinker", "high", "model:plain", "off", "model:deep", "medium", "low"]);
    } finally {
      await result.close();
    }
  });

  it("a session that started without a model uses one added later (models.json written while it is open)", async () => {
    const path = join(tmp.dir, "later.json");
    const hub = await ModelHub.create({ files: [{ path, origin: "models.json" }], storedKeys: { get: async () => undefined, has: () => false }, allowCommands: () => false });
    const sm = SessionManager.inMemory(tmp.dir);
    const session = new AgentSession({ sessionManager: sm, ...hub.sessionConfig(() => [], "medium") });
    try {
      assert.equal(session.getModel(), undefined);
      writeFileSync(path, JSON.stringify(MODELS));
      hub.registry.refresh();
      assert.equal(session.getModel()?.id, "plain");
      assert.equal(session.getThinkingLevel(), "off", "medium, clamped to a model without thinking");
    } finally {
      await session.close();
      hub.dispose();
    }
  });
});
