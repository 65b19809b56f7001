/**
 * Differential tests of the resource loader: random folder layouts (context files at every level,
 * SYSTEM.md / APPEND_SYSTEM.md, skills in every folder Pi looks in, prompt templates, settings
 * entries with patterns, ignore files), loaded by Arbor and by the reference's DefaultResourceLoader.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadResources, type LoadedResources } from "../../src/core/resources";
import { createRng, type Rng } from "../support/random-session";
import { loadReferenceResources, withHome, type RefResources } from "../support/reference-resources";
import { makeTempDir } from "../support/temp-dir";

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const WORDS = ["alpha", "beta", "gamma", "delta", "review", "deploy", "lint", "docs"];

/** A front matter value in one of the forms YAML writers use. */
function yamlValue(rng: Rng, text: string): string {
  switch (rng.int(6)) {
    case 0:
      return ` "${text}: quoted"`;
    case 1:
      return ` '${text} it''s'`;
    case 2:
      return ` |\n  ${text} first\n  second line\n`;
    case 3:
      return ` >\n  ${text} folded\n  onto one line\n`;
    case 4:
      return ` ${text} plain\n  continued`;
    default:
      return ` ${text} plain`;
  }
}

function skillFile(rng: Rng, folderName: string): string {
  const lines = ["---"];
  if (rng.chance(0.6)) lines.push(`name: ${rng.chance(0.7) ? folderName : rng.pick(["Bad_Name", "-lead", "a--b", rng.pick(WORDS)])}`);
  if (rng.chance(0.85)) lines.push(`description:${yamlValue(rng, rng.pick(WORDS))}`.replace(/\n$/, ""));
  if (rng.chance(0.2)) lines.push("disable-model-invocation: true");
  if (rng.chance(0.2)) lines.push("metadata:\n  owner: someone\n  tags: [a, b]");
  lines.push("---", "", `# ${folderName}`, "", "Steps to follow.");
  return rng.chance(0.08) ? "no front matter at all\n" : `${lines.join("\n")}\n`;
}

function promptFile(rng: Rng): string {
  const body = rng.chance(0.3) ? "" : `Do ${rng.pick(WORDS)} with $1 and \${@:2} (all: $@) ${"x".repeat(rng.int(80))}\n`;
  if (rng.chance(0.3)) return `\n\n${body || "first line only"}`;
  const lines = ["---"];
  if (rng.chance(0.7)) lines.push(`description:${yamlValue(rng, rng.pick(WORDS))}`.replace(/\n$/, ""));
  if (rng.chance(0.5)) lines.push(`argument-hint: "<${rng.pick(WORDS)}> [more]"`);
  lines.push("---", body);
  return lines.join("\n");
}

function fillSkills(rng: Rng, dir: string): void {
  for (let i = rng.int(4); i > 0; i--) {
    const name = rng.pick(WORDS);
    switch (rng.int(7)) {
      case 0:
        write(join(dir, `${name}.md`), skillFile(rng, name));
        break;
      case 1:
        write(join(dir, "group", name, "SKILL.md"), skillFile(rng, name));
        break;
      case 2:
        write(join(dir, name, "SKILL.md"), skillFile(rng, name));
        write(join(dir, name, "inner", "SKILL.md"), skillFile(rng, "inner"));
        break;
      case 3:
        write(join(dir, rng.pick([".hidden", "node_modules"]), name, "SKILL.md"), skillFile(rng, name));
        break;
      case 4:
        write(join(dir, ".gitignore"), `${rng.pick(["ignored/", "*.md", "/top.md", "!keep.md"])}\n`);
        write(join(dir, "ignored", name, "SKILL.md"), skillFile(rng, name));
        write(join(dir, "top.md"), skillFile(rng, "top"));
        break;
      case 5:
        write(join(dir, name, "notes.md"), "not a skill\n");
        break;
      default:
        write(join(dir, name, "SKILL.md"), skillFile(rng, name));
    }
  }
}

function fillPrompts(rng: Rng, dir: string): void {
  for (let i = rng.int(4); i > 0; i--) write(join(dir, rng.chance(0.1) ? "sub" : "", `${rng.pick(WORDS)}.md`), promptFile(rng));
  if (rng.chance(0.2)) write(join(dir, "readme.txt"), "not a template");
}

function contextFiles(rng: Rng, dir: string): void {
  const choice = rng.int(7);
  if (choice === 1 || choice === 3) write(join(dir, "AGENTS.md"), `agents of ${dir}\n`);
  if (choice === 2 || choice === 3) write(join(dir, "CLAUDE.md"), `claude of ${dir}\n`);
  if (choice === 4) write(join(dir, "CLAUDE.MD"), `upper claude of ${dir}\n`);
}

interface Layout {
  cwd: string;
  agentDir: string;
  home: string;
}

function makeLayout(rng: Rng, root: string): Layout {
  const home = join(root, "home");
  const agentDir = join(home, ".pi", "agent");
  const chain = [join(root, "work")];
  for (let depth = rng.int(4); depth > 0; depth--) chain.push(join(chain[chain.length - 1]!, rng.pick(["src", "pkg", "app"])));
  const cwd = chain[chain.length - 1]!;
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  if (rng.chance(0.7)) mkdirSync(join(rng.pick(chain), ".git"), { recursive: true });
  for (const dir of [agentDir, root, ...chain]) contextFiles(rng, dir);
  for (const dir of [agentDir, join(cwd, ".pi")]) {
    if (rng.chance(0.3)) write(join(dir, "SYSTEM.md"), `system of ${dir}`);
    if (rng.chance(0.3)) write(join(dir, "APPEND_SYSTEM.md"), `append of ${dir}`);
  }
  fillSkills(rng, join(agentDir, "skills"));
  if (rng.chance(0.6)) fillSkills(rng, join(home, ".agents", "skills"));
  fillSkills(rng, join(cwd, ".pi", "skills"));
  for (const dir of chain) if (rng.chance(0.4)) fillSkills(rng, join(dir, ".agents", "skills"));
  if (rng.chance(0.2)) {
    mkdirSync(join(cwd, ".pi", "skills"), { recursive: true });
    write(join(root, "linked", "SKILL.md"), skillFile(rng, "linked"));
    symlinkSync(join(root, "linked"), join(cwd, ".pi", "skills", "linked"));
  }
  fillPrompts(rng, join(agentDir, "prompts"));
  fillPrompts(rng, join(cwd, ".pi", "prompts"));
  const extra = join(root, "extra");
  if (rng.chance(0.5)) {
    fillSkills(rng, join(extra, "skills"));
    fillPrompts(rng, join(extra, "prompts"));
  }
  const settings = (): Record<string, unknown> => {
    const s: Record<string, unknown> = {};
    if (rng.chance(0.5)) s.skills = [join(extra, "skills"), ...(rng.chance(0.4) ? [`!${rng.pick(WORDS)}`] : []), ...(rng.chance(0.2) ? ["+" + join(extra, "skills", "alpha.md")] : [])];
    if (rng.chance(0.5)) s.prompts = [rng.chance(0.5) ? join(extra, "prompts") : "../../../extra/prompts", ...(rng.chance(0.3) ? [`!**/${rng.pick(WORDS)}.md`] : [])];
    return s;
  };
  if (rng.chance(0.6)) write(join(agentDir, "settings.json"), JSON.stringify(settings()));
  if (rng.chance(0.6)) write(join(cwd, ".pi", "settings.json"), JSON.stringify(settings()));
  return { cwd, agentDir, home };
}

function ours(r: LoadedResources) {
  return {
    contextFiles: r.contextFiles.map(({ path, content }) => ({ path, content })),
    systemPrompt: r.systemPrompt?.content,
    append: r.appendSystemPrompt ? [r.appendSystemPrompt.content] : [],
    skills: r.skills.map((s) => ({ name: s.name, description: s.description, filePath: s.path, baseDir: s.baseDir, disableModelInvocation: s.disableModelInvocation })),
    prompts: r.prompts.map((p) => ({ name: p.name, description: p.description, argumentHint: p.argumentHint, content: p.content, filePath: p.path })),
    skillProblems: r.diagnostics.filter((d) => d.kind === "skill").map((d) => d.path).sort(),
    promptCollisions: r.diagnostics.filter((d) => d.kind === "prompt" && d.winnerPath).map((d) => d.path).sort(),
  };
}

async function reference(pi: RefResources, layout: Layout) {
  return withHome(layout.home, async () => {
    const loader = new pi.DefaultResourceLoader({ cwd: layout.cwd, agentDir: layout.agentDir, settingsManager: pi.SettingsManager.create(layout.cwd, layout.agentDir) });
    await loader.reload();
    const { skills, diagnostics } = loader.getSkills();
    const prompts = loader.getPrompts();
    return {
      contextFiles: loader.getAgentsFiles().agentsFiles.map(({ path, content }) => ({ path, content })),
      systemPrompt: loader.getSystemPrompt(),
      append: loader.getAppendSystemPrompt(),
      skills: skills.map((s) => ({ name: s.name, description: s.description, filePath: s.filePath, baseDir: s.baseDir, disableModelInvocation: s.disableModelInvocation })),
      prompts: prompts.prompts.map((p) => ({ name: p.name, description: p.description, argumentHint: p.argumentHint, content: p.content, filePath: p.filePath })),
      skillProblems: diagnostics.map((d) => d.path ?? "").sort(),
      promptCollisions: prompts.diagnostics.filter((d) => d.type === "collision").map((d) => d.path ?? "").sort(),
    };
  });
}

describe("resource loader vs the reference (random layouts)", function () {
  this.timeout(120000);
  let pi: RefResources;
  const seen = { contextFiles: 0, systemFiles: 0, skills: 0, prompts: 0, skillProblems: 0, collisions: 0 };
  before(async () => {
    pi = await loadReferenceResources();
  });
  after(() => {
    // The layouts must exercise every part (a generator that produced empty folders would prove nothing).
    for (const [what, count] of Object.entries(seen)) assert.ok(count >= 5, `only ${count} ${what} over all layouts`);
  });

  for (let seed = 1; seed <= 60; seed++) {
    it(`layout ${seed}: the same context files, system prompt files, skills and templates, in the same order`, async () => {
      const tmp = makeTempDir("arbor-resources-");
      try {
        const layout = makeLayout(createRng(seed), tmp.dir);
        const mine = ours(loadResources({ cwd: layout.cwd, agentDir: layout.agentDir, home: layout.home, trusted: true }));
        const theirs = await reference(pi, layout);
        assert.deepEqual(mine, theirs);
        seen.contextFiles += mine.contextFiles.length;
        seen.systemFiles += (mine.systemPrompt ? 1 : 0) + mine.append.length;
        seen.skills += mine.skills.length;
        seen.prompts += mine.prompts.length;
        seen.skillProblems += mine.skillProblems.length;
        seen.collisions += mine.promptCollisions.length;
      } finally {
        tmp.cleanup();
      }
    });
  }
});
