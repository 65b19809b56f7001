/**
 * Pi's settings merged as the reference's SettingsManager merges them, packages found where Pi
 * installs them, and what an untrusted workspace loads.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadResources } from "../../src/core/resources";
import { parsePackageSource } from "../../src/core/resources/packages";
import { createRng, type Rng } from "../support/random-session";
import { loadReferenceResources, withHome, type RefResources } from "../support/reference-resources";
import { makeTempDir } from "../support/temp-dir";

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const KEYS = ["defaultProvider", "defaultModel", "compaction", "retry", "skills", "prompts", "queueMode", "steeringMode", "websockets", "transport", "hideThinkingBlock", "shellPath", "images", "enableSkillCommands", "branchSummary", "shellCommandPrefix"];

function value(rng: Rng, key: string, depth = 0): unknown {
  if (key === "skills" && rng.chance(0.3)) return { enableSkillCommands: rng.chance(0.5), customDirectories: rng.chance(0.5) ? ["./a"] : [] };
  if (key === "branchSummary") return rng.chance(0.2) ? null : { ...(rng.chance(0.6) ? { reserveTokens: 1000 + rng.int(30000) } : {}), ...(rng.chance(0.6) ? { skipPrompt: rng.chance(0.5) } : {}) };
  if (key === "shellCommandPrefix") return rng.pick(["shopt -s expand_aliases", "source ~/.profile", "set -e"]);
  if (key === "retry" && rng.chance(0.5)) return { enabled: rng.chance(0.5), maxDelayMs: rng.int(5000), ...(rng.chance(0.5) ? { provider: { maxRetries: rng.int(5) } } : {}) };
  switch (rng.int(depth > 0 ? 4 : 6)) {
    case 0:
      return rng.pick(["a", "b", "sse", "websocket"]);
    case 1:
      return rng.int(100);
    case 2:
      return rng.chance(0.5);
    case 3:
      return [rng.pick(["x", "y"]), rng.int(3)];
    case 4:
      return null;
    default:
      return { enabled: rng.chance(0.5), reserveTokens: rng.int(9999), nested: value(rng, "n", depth + 1) };
  }
}

function settings(rng: Rng): Record<string, unknown> {
  return Object.fromEntries(KEYS.filter(() => rng.chance(0.4)).map((k) => [k, value(rng, k)]));
}

describe("Pi's settings vs the reference's SettingsManager", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  for (let seed = 1; seed <= 80; seed++) {
    it(`settings ${seed}: the same user, project and merged settings`, () => {
      const tmp = makeTempDir("arbor-settings-");
      try {
        const rng = createRng(seed * 31337);
        const agentDir = join(tmp.dir, "agent");
        const cwd = join(tmp.dir, "work");
        mkdirSync(cwd, { recursive: true });
        const broken = rng.chance(0.1);
        if (rng.chance(0.8)) write(join(agentDir, "settings.json"), broken ? "{ not json" : JSON.stringify(settings(rng)));
        if (rng.chance(0.8)) write(join(cwd, ".pi", "settings.json"), JSON.stringify(settings(rng)));
        const mine = loadResources({ cwd, agentDir, home: tmp.dir, trusted: true }).settings;
        const theirs = pi.SettingsManager.create(cwd, agentDir);
        assert.deepEqual(mine.user, theirs.getGlobalSettings());
        assert.deepEqual(mine.project, theirs.getProjectSettings());
        assert.deepEqual(mine.merged, theirs.settings);
        // The values Arbor acts on, as the reference's getters give them.
        const summary = theirs.getBranchSummarySettings();
        assert.deepEqual({ reserveTokens: mine.view.branchSummary.reserveTokens ?? 16384, skipPrompt: mine.view.branchSummary.skipPrompt ?? false }, summary);
        assert.equal(mine.view.shellCommandPrefix, theirs.getShellCommandPrefix());
      } finally {
        tmp.cleanup();
      }
    });
  }

  it("reports a settings file that is not JSON, and reads the other", () => {
    const tmp = makeTempDir("arbor-settings-");
    try {
      write(join(tmp.dir, "agent", "settings.json"), "{ oops");
      write(join(tmp.dir, "work", ".pi", "settings.json"), '{"defaultModel":"m","shellCommandPrefix":"source ~/.env"}');
      const r = loadResources({ cwd: join(tmp.dir, "work"), agentDir: join(tmp.dir, "agent"), home: tmp.dir, trusted: true });
      assert.equal(r.settings.view.defaultModel, "m");
      assert.equal(r.settings.view.shellCommandPrefix, "source ~/.env");
      assert.deepEqual(r.diagnostics.map((d) => [d.kind, d.level, d.path]), [["settings", "error", join(tmp.dir, "agent", "settings.json")]]);
    } finally {
      tmp.cleanup();
    }
  });
});

/** A package folder with a skill, a prompt and an extension, by convention folders or by its manifest. */
function makePackage(root: string, name: string, manifest: boolean): void {
  write(join(root, "skills", `${name}-skill`, "SKILL.md"), `---\nname: ${name}-skill\ndescription: from ${name}\n---\nbody`);
  write(join(root, "prompts", `${name}-prompt.md`), `---\ndescription: ${name} prompt\n---\nDo $1`);
  write(join(root, "extensions", `${name}.ts`), "export default function () {}\n");
  write(join(root, "extra", `${name}-extra.md`), "Extra prompt");
  if (manifest) write(join(root, "package.json"), JSON.stringify({ name, pi: { prompts: ["./prompts", "./extra/*.md"], skills: ["./skills"], extensions: ["./extensions"] } }));
}

describe("Pi packages vs the reference", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  it("loads the skills, prompts and extensions of installed git and local packages, user and project, with filters", async () => {
    const tmp = makeTempDir("arbor-packages-");
    try {
      const agentDir = join(tmp.dir, "agent");
      const cwd = join(tmp.dir, "work");
      makePackage(join(agentDir, "git", "github.com", "me", "tools"), "tools", false);
      makePackage(join(cwd, ".pi", "git", "example.org", "team", "kit"), "kit", true);
      makePackage(join(tmp.dir, "local-pkg"), "local", true);
      makePackage(join(cwd, ".pi", "npm", "node_modules", "@me", "npm-pkg"), "npmpkg", false);
      // Pi reinstalls a pinned npm package whose installed version differs; this one matches.
      write(join(cwd, ".pi", "npm", "node_modules", "@me", "npm-pkg", "package.json"), JSON.stringify({ name: "@me/npm-pkg", version: "1.2.3" }));
      write(join(agentDir, "settings.json"), JSON.stringify({ packages: ["git:github.com/me/tools@v1", { source: "../local-pkg", prompts: ["!**/local-extra.md"], skills: [] }] }));
      write(join(cwd, ".pi", "settings.json"), JSON.stringify({ packages: ["https://example.org/team/kit.git", "npm:@me/npm-pkg@1.2.3"] }));
      process.env.PI_OFFLINE = "1";
      const theirs = await withHome(tmp.dir, async () => {
        const loader = new pi.DefaultResourceLoader({ cwd, agentDir, settingsManager: pi.SettingsManager.create(cwd, agentDir) });
        await loader.reload();
        return {
          skills: loader.getSkills().skills.map((s) => s.filePath),
          prompts: loader.getPrompts().prompts.map((p) => p.filePath),
          extensions: [...loader.getExtensions().extensions.map((e) => e.path), ...loader.getExtensions().errors.map((e) => e.path)].sort(),
        };
      });
      delete process.env.PI_OFFLINE;
      const r = loadResources({ cwd, agentDir, home: tmp.dir, trusted: true });
      assert.deepEqual(r.skills.map((s) => s.path), theirs.skills);
      assert.deepEqual(r.prompts.map((p) => p.path), theirs.prompts);
      assert.deepEqual(r.extensions.map((e) => e.path).sort(), theirs.extensions);
      assert.ok(r.skills.length >= 3 && r.prompts.length >= 5, "the packages' resources are there");
      assert.deepEqual(r.packages.map((p) => p.source).sort(), ["../local-pkg", "git:github.com/me/tools@v1", "https://example.org/team/kit.git", "npm:@me/npm-pkg@1.2.3"]);
      const kit = r.skills.find((s) => s.name === "kit-skill");
      assert.deepEqual(kit?.source, { scope: "project", origin: "package", packageSource: "https://example.org/team/kit.git" });

      const untrusted = loadResources({ cwd, agentDir, home: tmp.dir, trusted: false });
      assert.equal(untrusted.packages.some((p) => p.scope === "project"), false, "no project packages in an untrusted workspace");
      assert.ok(untrusted.skills.some((s) => s.name === "tools-skill"), "the user's packages still load");
    } finally {
      delete process.env.PI_OFFLINE;
      tmp.cleanup();
    }
  });

  it("says which configured package is not installed", () => {
    const tmp = makeTempDir("arbor-packages-");
    try {
      write(join(tmp.dir, "agent", "settings.json"), JSON.stringify({ packages: ["git:github.com/me/missing", "npm:left-pad"] }));
      const r = loadResources({ cwd: tmp.dir, agentDir: join(tmp.dir, "agent"), home: tmp.dir, trusted: true });
      assert.deepEqual(r.diagnostics.filter((d) => d.kind === "package").map((d) => /The Pi package (\S+) is not installed/.exec(d.message)?.[1]), ["git:github.com/me/missing", "npm:left-pad"]);
    } finally {
      tmp.cleanup();
    }
  });

  it("reads package sources as Pi does", () => {
    assert.deepEqual(parsePackageSource("npm:@scope/pkg@1.2.3"), { type: "npm", name: "@scope/pkg" });
    assert.deepEqual(parsePackageSource("npm:pkg"), { type: "npm", name: "pkg" });
    assert.deepEqual(parsePackageSource("git:github.com/user/repo@v1"), { type: "git", host: "github.com", path: "user/repo" });
    assert.deepEqual(parsePackageSource("git:git@github.com:user/repo@v1"), { type: "git", host: "github.com", path: "user/repo" });
    assert.deepEqual(parsePackageSource("https://github.com/user/repo"), { type: "git", host: "github.com", path: "user/repo" });
    assert.deepEqual(parsePackageSource("ssh://git@github.com/user/repo.git"), { type: "git", host: "github.com", path: "user/repo" });
    assert.deepEqual(parsePackageSource("./relative/path"), { type: "local", path: "./relative/path" });
  });
});

describe("an untrusted workspace", () => {
  it("loads the project's instruction files, skills and templates, never its settings.json", () => {
    const tmp = makeTempDir("arbor-trust-");
    try {
      const cwd = join(tmp.dir, "work");
      write(join(cwd, "AGENTS.md"), "project rules");
      write(join(cwd, ".pi", "skills", "s", "SKILL.md"), "---\ndescription: d\n---\nx");
      write(join(cwd, ".pi", "prompts", "p.md"), "prompt");
      write(join(cwd, ".pi", "settings.json"), JSON.stringify({ shellPath: "/bin/evil", prompts: ["../elsewhere"] }));
      const trusted = loadResources({ cwd, agentDir: join(tmp.dir, "agent"), home: tmp.dir, trusted: true });
      const untrusted = loadResources({ cwd, agentDir: join(tmp.dir, "agent"), home: tmp.dir, trusted: false });
      assert.equal(trusted.settings.view.shellPath, "/bin/evil");
      assert.equal(untrusted.settings.view.shellPath, undefined);
      assert.deepEqual(untrusted.contextFiles.map((f) => f.content), ["project rules"]);
      assert.deepEqual(untrusted.skills.map((s) => s.name), ["s"]);
      assert.deepEqual(untrusted.prompts.map((p) => p.name), ["p"]);
    } finally {
      tmp.cleanup();
    }
  });
});
