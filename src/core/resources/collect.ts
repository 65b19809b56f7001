/**
 * Walking resource folders, with Pi's rules: hidden entries and node_modules are skipped, ignore
 * files are honoured, symbolic links are followed. A folder with a SKILL.md is one skill (nothing
 * below it is searched); in a skills folder of Pi's kind the top level's .md files are skills too.
 */
import { join, relative, resolve, sep } from "node:path";
import { IgnoreRules } from "./path-patterns";
import type { ResourceFs } from "./resource-fs";

export type ResourceType = "extensions" | "skills" | "prompts" | "themes";
export const RESOURCE_TYPES: readonly ResourceType[] = ["extensions", "skills", "prompts", "themes"];

const toPosix = (p: string): string => p.split(sep).join("/");

/**
 * The skill files under `dir`. "pi" folders (Pi's own `skills/`) also take the top level's .md
 * files; "agents" folders (`.agents/skills`, the shared standard) take SKILL.md folders only.
 */
export function collectSkillFiles(fs: ResourceFs, dir: string, mode: "pi" | "agents", rules?: IgnoreRules, root = dir): string[] {
  if (fs.kind(dir) !== "dir") return [];
  const ignore = rules ?? new IgnoreRules(root);
  ignore.addFolder(fs, dir);
  const names = fs.list(dir);
  if (names.includes("SKILL.md")) {
    const path = join(dir, "SKILL.md");
    if (fs.kind(path) === "file" && !ignore.ignores(toPosix(relative(root, path)), false)) return [path];
  }
  const found: string[] = [];
  for (const name of names) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    const kind = fs.kind(path);
    const rel = toPosix(relative(root, path));
    if (kind === "file" && mode === "pi" && dir === root && name.endsWith(".md") && !ignore.ignores(rel, false)) found.push(path);
    else if (kind === "dir" && !ignore.ignores(rel, true)) found.push(...collectSkillFiles(fs, path, mode, ignore, root));
  }
  return found;
}

/** The .md files directly in a prompts folder. */
export function collectPromptFiles(fs: ResourceFs, dir: string): string[] {
  if (fs.kind(dir) !== "dir") return [];
  const ignore = new IgnoreRules(dir);
  ignore.addFolder(fs, dir);
  return fs
    .list(dir)
    .filter((name) => !name.startsWith(".") && name !== "node_modules" && name.endsWith(".md"))
    .map((name) => join(dir, name))
    .filter((path) => fs.kind(path) === "file" && !ignore.ignores(toPosix(relative(dir, path)), false));
}

/** Every file under `dir` whose name matches, at any depth. */
export function collectFilesDeep(fs: ResourceFs, dir: string, pattern: RegExp, rules?: IgnoreRules, root = dir): string[] {
  if (fs.kind(dir) !== "dir") return [];
  const ignore = rules ?? new IgnoreRules(root);
  ignore.addFolder(fs, dir);
  const found: string[] = [];
  for (const name of fs.list(dir)) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    const kind = fs.kind(path);
    const rel = toPosix(relative(root, path));
    if (kind === "dir" && !ignore.ignores(rel, true)) found.push(...collectFilesDeep(fs, path, pattern, ignore, root));
    else if (kind === "file" && pattern.test(name) && !ignore.ignores(rel, false)) found.push(path);
  }
  return found;
}

function readManifest(fs: ResourceFs, dir: string): Record<string, unknown> | undefined {
  const path = join(dir, "package.json");
  if (fs.kind(path) !== "file") return undefined;
  try {
    const pi = (JSON.parse(fs.readText(path)) as { pi?: unknown }).pi;
    return typeof pi === "object" && pi !== null ? (pi as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The `pi` section of a folder's package.json, when it has one. */
export const piManifest = readManifest;

/** A folder's declared extension entries (package.json `pi.extensions`) or its index file. */
function extensionEntriesOf(fs: ResourceFs, dir: string): string[] | undefined {
  const declared = readManifest(fs, dir)?.extensions;
  if (Array.isArray(declared) && declared.length > 0) {
    const found = declared.filter((e): e is string => typeof e === "string").map((e) => resolve(dir, e)).filter((p) => fs.kind(p) !== undefined);
    if (found.length > 0) return found;
  }
  for (const index of ["index.ts", "index.js"]) if (fs.kind(join(dir, index)) !== undefined) return [join(dir, index)];
  return undefined;
}

/** The extensions of an extensions folder: its own entries, else its .ts/.js files and its subfolders' entries. */
export function collectExtensionFiles(fs: ResourceFs, dir: string): string[] {
  if (fs.kind(dir) !== "dir") return [];
  const own = extensionEntriesOf(fs, dir);
  if (own) return own;
  const ignore = new IgnoreRules(dir);
  ignore.addFolder(fs, dir);
  const found: string[] = [];
  for (const name of fs.list(dir)) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    const kind = fs.kind(path);
    if (ignore.ignores(name, kind === "dir")) continue;
    if (kind === "file" && (name.endsWith(".ts") || name.endsWith(".js"))) found.push(path);
    else if (kind === "dir") found.push(...(extensionEntriesOf(fs, path) ?? []));
  }
  return found;
}

const FILE_PATTERNS: Record<ResourceType, RegExp> = { extensions: /\.(ts|js)$/, skills: /\.md$/, prompts: /\.md$/, themes: /\.json$/ };

/** The resources of one type in a folder given in settings or by a package. */
export function collectResourceFiles(fs: ResourceFs, dir: string, type: ResourceType): string[] {
  if (type === "skills") return collectSkillFiles(fs, dir, "pi");
  if (type === "extensions") return collectExtensionFiles(fs, dir);
  return collectFilesDeep(fs, dir, FILE_PATTERNS[type]);
}

/** Files stay, folders are walked. */
export function collectFromPaths(fs: ResourceFs, paths: readonly string[], type: ResourceType): string[] {
  return paths.flatMap((path) => {
    const kind = fs.kind(path);
    return kind === "file" ? [path] : kind === "dir" ? collectResourceFiles(fs, path, type) : [];
  });
}
