/**
 * Skills ([Agent Skills](https://agentskills.io/specification), as Pi reads them): a SKILL.md (or a
 * root .md file of a skills folder) whose front matter names and describes it. Problems with the
 * name or the description are warnings and the skill still loads; only a missing description
 * keeps it out, since the model could not know when to use it.
 */
import { basename, dirname } from "node:path";
import { parseFrontmatter, stripFrontmatter } from "./frontmatter";
import type { LocatedResource } from "./locations";
import type { ResourceFs } from "./resource-fs";
import type { ResourceDiagnostic, Skill } from "./types";

const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

function nameProblems(name: string, folder: string): string[] {
  const problems: string[] = [];
  if (name !== folder) problems.push(`The name "${name}" is not the name of its folder ("${folder}").`);
  if (name.length > MAX_NAME) problems.push(`The name is longer than ${MAX_NAME} characters (${name.length}).`);
  if (!/^[a-z0-9-]+$/.test(name)) problems.push("The name may only hold lowercase letters, digits and hyphens.");
  if (name.startsWith("-") || name.endsWith("-")) problems.push("The name may not start or end with a hyphen.");
  if (name.includes("--")) problems.push("The name may not hold two hyphens in a row.");
  return problems;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined);

/** One skill file; undefined (with the reasons in `diagnostics`) when it cannot be used. */
export function readSkill(fs: ResourceFs, located: LocatedResource, diagnostics: ResourceDiagnostic[]): Skill | undefined {
  const { path } = located;
  const warn = (message: string): void => void diagnostics.push({ kind: "skill", level: "warning", message, path });
  let content: string;
  try {
    content = fs.readText(path);
  } catch (error) {
    warn(`Could not read it: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  const parsed = parseFrontmatter(content);
  if (parsed.error) {
    warn(`Its front matter is not valid YAML: ${parsed.error}`);
    return undefined;
  }
  const baseDir = dirname(path);
  const folder = basename(baseDir);
  const description = text(parsed.frontmatter.description);
  if (!description || description.trim() === "") warn("It has no description: the skill is not loaded (add `description:` to its front matter).");
  else if (description.length > MAX_DESCRIPTION) warn(`The description is longer than ${MAX_DESCRIPTION} characters (${description.length}).`);
  const name = text(parsed.frontmatter.name) || folder;
  for (const problem of nameProblems(name, folder)) warn(problem);
  if (!description || description.trim() === "") return undefined;
  return { name, description, path, baseDir, disableModelInvocation: parsed.frontmatter["disable-model-invocation"] === true, source: located.source };
}

/** The skills of the located files: the first of a name wins, the others are reported. */
export function loadSkills(fs: ResourceFs, located: readonly LocatedResource[], diagnostics: ResourceDiagnostic[]): Skill[] {
  const byName = new Map<string, Skill>();
  const files = new Set<string>();
  const collisions: ResourceDiagnostic[] = [];
  for (const item of located) {
    const skill = readSkill(fs, item, diagnostics);
    if (!skill) continue;
    const real = fs.realPath(skill.path);
    if (files.has(real)) continue;
    const winner = byName.get(skill.name);
    if (winner) {
      collisions.push({ kind: "skill", level: "warning", message: `Another skill is also named "${skill.name}"; this one is not used.`, path: skill.path, winnerPath: winner.path });
      continue;
    }
    byName.set(skill.name, skill);
    files.add(real);
  }
  diagnostics.push(...collisions);
  return [...byName.values()];
}

/**
 * What `/skill:name args` sends: the skill's instructions in a `<skill>` block (the form Pi writes,
 * so Pi shows such a message as a skill invocation too), then the arguments. Undefined when the text
 * is not a skill command or names no loaded skill; throws when the skill's file cannot be read.
 */
export function expandSkillCommand(text: string, skills: readonly Skill[], fs: ResourceFs): string | undefined {
  if (!text.startsWith("/skill:")) return undefined;
  const space = text.indexOf(" ");
  const name = space === -1 ? text.slice(7) : text.slice(7, space);
  const args = space === -1 ? "" : text.slice(space + 1).trim();
  const skill = skills.find((s) => s.name === name);
  if (!skill) return undefined;
  const body = stripFrontmatter(fs.readText(skill.path)).trim();
  const block = `<skill name="${skill.name}" location="${skill.path}">\nRelative paths in this skill start at ${skill.baseDir}.\n\n${body}\n</skill>`;
  return args ? `${block}\n\n${args}` : block;
}
