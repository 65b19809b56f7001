/**
 * The two pattern languages resource discovery uses: globs in settings (`*`, `**`, `?`, `[...]`, and
 * Pi's `!exclude`, `+force-include`, `-force-exclude` prefixes), and the ignore files (.gitignore,
 * .ignore, .fdignore) of the folders it walks.
 */
import { basename, dirname, relative, sep } from "node:path";
import type { ResourceFs } from "./resource-fs";
import { join } from "node:path";

const toPosix = (p: string): string => p.split(sep).join("/");

/** A glob as a regular expression over a whole posix path. `*` and `?` do not cross "/" nor match a leading dot. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    const atSegmentStart = i === 0 || glob[i - 1] === "/";
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        if (atSegmentStart && (slashAfter || i + 2 === glob.length)) {
          out += slashAfter ? "(?:(?!\\.)[^/]*/)*" : "(?:(?!\\.)[^/]*(?:/|$))*";
          i += slashAfter ? 2 : 1;
          continue;
        }
        i++;
      }
      out += atSegmentStart ? "(?!\\.)[^/]*" : "[^/]*";
    } else if (c === "?") out += atSegmentStart ? "(?!\\.)[^/]" : "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        const body = glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = close;
      }
    } else out += /[.+^${}()|\\]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${out}$`);
}

const globCache = new Map<string, RegExp>();
function matchesGlob(path: string, glob: string): boolean {
  let re = globCache.get(glob);
  if (!re) globCache.set(glob, (re = globToRegExp(glob)));
  return re.test(path);
}

/** The names a pattern is tried against: relative to `baseDir`, the file name, the absolute path; for a SKILL.md also its folder's. */
function candidates(filePath: string, baseDir: string): string[] {
  const names = [toPosix(relative(baseDir, filePath)), basename(filePath), toPosix(filePath)];
  if (basename(filePath) === "SKILL.md") {
    const dir = dirname(filePath);
    names.push(toPosix(relative(baseDir, dir)), basename(dir), toPosix(dir));
  }
  return names;
}

function matchesAny(filePath: string, patterns: readonly string[], baseDir: string): boolean {
  const names = candidates(filePath, baseDir);
  return patterns.some((pattern) => names.some((name) => matchesGlob(name, toPosix(pattern))));
}

/** `+path` and `-path` name paths exactly (relative to `baseDir` or absolute; a SKILL.md by its folder too). */
function matchesExactly(filePath: string, patterns: readonly string[], baseDir: string): boolean {
  const names = candidates(filePath, baseDir).filter((_, index) => index !== 1 && index !== 4);
  return patterns.some((pattern) => names.includes(toPosix(pattern.startsWith("./") || pattern.startsWith(".\\") ? pattern.slice(2) : pattern)));
}

export const isOverridePattern = (entry: string): boolean => entry.startsWith("!") || entry.startsWith("+") || entry.startsWith("-");
export const isPattern = (entry: string): boolean => isOverridePattern(entry) || entry.includes("*") || entry.includes("?");

/**
 * Which of `paths` the patterns enable: plain globs include (all when there are none), `!` excludes,
 * `+` adds back, `-` removes last.
 */
export function applyPatterns(paths: readonly string[], patterns: readonly string[], baseDir: string): Set<string> {
  const of = (prefix: string): string[] => patterns.filter((p) => p.startsWith(prefix)).map((p) => p.slice(1));
  const includes = patterns.filter((p) => !isOverridePattern(p));
  const [excludes, forced, removed] = [of("!"), of("+"), of("-")];
  let result = includes.length === 0 ? [...paths] : paths.filter((p) => matchesAny(p, includes, baseDir));
  if (excludes.length > 0) result = result.filter((p) => !matchesAny(p, excludes, baseDir));
  for (const p of paths) if (forced.length > 0 && !result.includes(p) && matchesExactly(p, forced, baseDir)) result.push(p);
  if (removed.length > 0) result = result.filter((p) => !matchesExactly(p, removed, baseDir));
  return new Set(result);
}

/** Whether a found resource stays enabled under the override entries (`!`, `+`, `-`) of a settings list. */
export function enabledByOverrides(filePath: string, entries: readonly string[], baseDir: string): boolean {
  const of = (prefix: string): string[] => entries.filter((p) => p.startsWith(prefix)).map((p) => p.slice(1));
  let enabled = !matchesAny(filePath, of("!"), baseDir);
  if (matchesExactly(filePath, of("+"), baseDir)) enabled = true;
  if (matchesExactly(filePath, of("-"), baseDir)) enabled = false;
  return enabled;
}

const IGNORE_FILES = [".gitignore", ".ignore", ".fdignore"];

interface IgnoreRule {
  re: RegExp;
  negated: boolean;
  dirOnly: boolean;
}

/**
 * The ignore files met while walking down from a root, as git reads them: a pattern without a slash
 * matches at any depth below its file's folder, one with a slash is anchored there, a trailing slash
 * matches folders only, `!` re-includes, the last matching rule decides.
 */
export class IgnoreRules {
  private readonly rules: IgnoreRule[] = [];

  constructor(private readonly root: string) {}

  /** Adds the rules of `dir`'s ignore files. */
  addFolder(fs: ResourceFs, dir: string): void {
    const prefix = toPosix(relative(this.root, dir));
    for (const name of IGNORE_FILES) {
      const file = join(dir, name);
      if (fs.kind(file) !== "file") continue;
      let text: string;
      try {
        text = fs.readText(file);
      } catch {
        continue;
      }
      for (const raw of text.split(/\r?\n/)) this.addRule(raw, prefix);
    }
  }

  private addRule(raw: string, prefix: string): void {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line.trim() === "" || (line.startsWith("#") && !line.startsWith("\\#"))) return;
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const body = anchored ? line : `**/${line}`;
    const glob = prefix ? `${prefix}/${body}` : body;
    this.rules.push({ re: new RegExp(`${globToRegExp(glob).source.slice(0, -1)}(?:/.*)?$`), negated, dirOnly });
  }

  /** Whether a path below the root (posix, relative) is ignored; `isDir` for folders. */
  ignores(relPath: string, isDir: boolean): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir && !rule.re.test(relPath.split("/").slice(0, -1).join("/"))) continue;
      if (rule.re.test(relPath)) ignored = !rule.negated;
    }
    return ignored;
  }
}
