/**
 * The system prompt's resource sections, `/template` and `/skill:` expansion and front matter,
 * against the reference on the same inputs.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSystemPrompt, type PromptSkill } from "../../src/core/agent/system-prompt";
import type { ToolDefinition } from "../../src/core/agent/providers/provider";
import { expandPromptTemplate, expandSkillCommand, fillTemplate, nodeResourceFs, splitArguments, type PromptTemplate, type Skill } from "../../src/core/resources";
import { parseFrontmatter } from "../../src/core/resources/frontmatter";
import { createRng, type Rng } from "../support/random-session";
import { loadReferenceResources, type RefResources } from "../support/reference-resources";
import { makeTempDir } from "../support/temp-dir";

const tool = (name: string): ToolDefinition => ({ name, description: `the ${name} tool`, parameters: { type: "object", properties: {} } }) as unknown as ToolDefinition;
const TEXT = ["plain", "a & b", "<tag>", `"quoted"`, "it's", "## heading", "line\nbreak"];

function randomSkills(rng: Rng): PromptSkill[] {
  return Array.from({ length: rng.int(4) }, (_, i) => ({ name: `skill-${i}`, description: rng.pick(TEXT), path: `/skills/s${i}/SKILL.md`, disableModelInvocation: rng.chance(0.25) }));
}

/** The ordered markers of the sections a prompt has. */
function sectionOrder(prompt: string, marks: string[]): number[] {
  return marks.map((m) => prompt.indexOf(m)).filter((i) => i >= 0);
}

describe("system prompt sections vs the reference's buildSystemPrompt", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  for (let seed = 1; seed <= 40; seed++) {
    it(`inputs ${seed}: the same context files in order, the same skill list, the same order of sections`, () => {
      const rng = createRng(seed);
      const contextFiles = Array.from({ length: rng.int(4) }, (_, i) => ({ path: `/work/level${i}/AGENTS.md`, content: `rules ${i}: ${rng.pick(TEXT)}` }));
      const skills = randomSkills(rng);
      const tools = rng.chance(0.8) ? ["read", "bash"] : ["bash"];
      const customPrompt = rng.chance(0.3) ? "Custom base prompt." : undefined;
      const appendSystemPrompt = rng.chance(0.4) ? "Appended instructions." : undefined;
      const mine = buildSystemPrompt({ cwd: "/work", tools: tools.map(tool), contextFiles, skills, customPrompt, appendSystemPrompt });
      const theirs = pi.buildSystemPrompt({
        cwd: "/work",
        selectedTools: tools,
        toolSnippets: Object.fromEntries(tools.map((t) => [t, `the ${t} tool`])),
        contextFiles,
        skills: skills.map((s) => ({ name: s.name, description: s.description, filePath: s.path, baseDir: "/skills", disableModelInvocation: !!s.disableModelInvocation })),
        customPrompt,
        appendSystemPrompt,
      });
      for (const prompt of [mine, theirs]) {
        const positions = contextFiles.map((f) => prompt.indexOf(`## ${f.path}\n\n${f.content}`));
        assert.ok(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!)), "each context file under its path, outermost first");
        if (customPrompt) assert.ok(prompt.startsWith(customPrompt), "SYSTEM.md replaces the base prompt");
      }
      const block = (prompt: string): string | undefined => /<available_skills>[\s\S]*<\/available_skills>/.exec(prompt)?.[0];
      assert.equal(block(mine), block(theirs));
      const marks = (p: string): string[] => [appendSystemPrompt ?? "\0", contextFiles[0] ? `## ${contextFiles[0].path}` : "\0", "<available_skills>", p === mine ? "Working directory:" : "Current working directory:"];
      const order = (p: string): number[] => sectionOrder(p, marks(p));
      assert.deepEqual([...order(mine)].sort((a, b) => a - b), order(mine));
      assert.equal(order(mine).length, order(theirs).length);
      assert.deepEqual([...order(theirs)].sort((a, b) => a - b), order(theirs));
    });
  }
});

describe("prompt templates vs the reference", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  const ARG_WORDS = ["one", "two", '"two words"', "'single quoted'", "x=1", "--flag", "a\"b\"c", "ünï"];
  const PIECES = ["$1", "$2", "$3", "$10", "$@", "$ARGUMENTS", "${@:1}", "${@:2}", "${@:0}", "${@:2:1}", "${@:3:2}", " text ", "\n", "$", "${x}", "$$1"];

  for (let seed = 1; seed <= 200; seed++) {
    it(`expansion ${seed}: the same arguments and the same text`, () => {
      const rng = createRng(seed * 7919);
      const body = Array.from({ length: rng.between(1, 8) }, () => rng.pick(PIECES)).join("");
      const argText = Array.from({ length: rng.int(6) }, () => rng.pick(ARG_WORDS)).join(rng.pick([" ", "  ", "\t"]));
      assert.deepEqual(splitArguments(argText), pi.parseCommandArgs(argText));
      const template: PromptTemplate = { name: "review", description: "", content: body, path: "/p/review.md", source: { scope: "user", origin: "auto" } };
      const typed = `/review${argText ? ` ${argText}` : ""}`;
      assert.equal(expandPromptTemplate(typed, [template]), pi.expandPromptTemplate(typed, [{ name: "review", description: "", content: body, filePath: "/p/review.md" }]));
    });
  }

  it("leaves text that names no template alone (undefined), as the reference returns it unchanged", () => {
    assert.equal(expandPromptTemplate("/other a b", []), undefined);
    assert.equal(pi.expandPromptTemplate("/other a b", []), "/other a b");
  });

  it("does not replace placeholders inside an argument (the reference's later passes would: a deliberate difference)", () => {
    assert.equal(fillTemplate("[$1] [$2]", ["$@", "x"]), "[$@] [x]");
    assert.equal(pi.substituteArgs("[$1] [$2]", ["$@", "x"]), "[$@ x] [x]");
  });
});

describe("front matter vs the reference's YAML reading", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  const VALUES = ["plain words", '"double: quoted"', "'single ''quoted'''", "|\n  literal one\n  literal two\n", ">\n  folded one\n  folded two\n\n  after blank\n", "|-\n  kept\n", ">-\n  a\n  b\n", "plain\n  continued line", "true", "false", "42", "[a, b, c]", "\n  - x\n  - y", "\n  nested: value\n  other: 2", "null", "", "# comment only"];
  for (let seed = 1; seed <= 120; seed++) {
    it(`block ${seed}: the same values and body`, () => {
      const rng = createRng(seed * 104729);
      const keys = ["name", "description", "argument-hint", "disable-model-invocation", "metadata"];
      const lines = keys.filter(() => rng.chance(0.6)).map((k) => `${k}: ${rng.pick(VALUES)}`.replace(/: \n/, ":\n"));
      const text = `---\n${lines.join("\n")}\n---\n${rng.pick(["", "\n\nBody text.\n", "Body\r\nwith CRLF\r\n"])}`;
      const mine = parseFrontmatter(text);
      assert.equal(mine.error, undefined, mine.error);
      const theirs = pi.parseFrontmatter(text);
      assert.deepEqual(mine.frontmatter, theirs.frontmatter ?? {});
      assert.equal(mine.body, theirs.body);
    });
  }

  it("reports a block it cannot read instead of throwing", () => {
    assert.match(parseFrontmatter("---\ndescription: a: b\n---\nbody").error ?? "", /quote it/);
    assert.match(parseFrontmatter("---\n  bad indent\n---\n").error ?? "", /indentation/);
  });
});

describe("/skill:name", () => {
  let pi: RefResources;
  before(async () => {
    pi = await loadReferenceResources();
  });

  it("sends the skill's body in the block Pi recognises as a skill invocation, then the arguments", () => {
    const tmp = makeTempDir("arbor-skill-");
    try {
      const dir = join(tmp.dir, "review");
      mkdirSync(dir);
      writeFileSync(join(dir, "SKILL.md"), "---\nname: review\ndescription: Reviews code\n---\n\n# Review\n\nRead ./checklist.md first.\n");
      const skill: Skill = { name: "review", description: "Reviews code", path: join(dir, "SKILL.md"), baseDir: dir, disableModelInvocation: false, source: { scope: "user", origin: "auto" } };
      const text = expandSkillCommand("/skill:review  the parser please ", [skill], nodeResourceFs)!;
      const parsed = pi.parseSkillBlock(text);
      assert.ok(parsed, text);
      assert.equal(parsed.name, "review");
      assert.equal(parsed.location, skill.path);
      assert.match(parsed.content, /# Review\n\nRead \.\/checklist\.md first\./);
      assert.ok(parsed.content.includes(dir), "says where relative paths start");
      assert.equal(parsed.userMessage, "the parser please");
      assert.equal(pi.parseSkillBlock(expandSkillCommand("/skill:review", [skill], nodeResourceFs)!)?.userMessage, undefined);
      assert.equal(expandSkillCommand("/skill:other x", [skill], nodeResourceFs), undefined);
    } finally {
      tmp.cleanup();
    }
  });
});
