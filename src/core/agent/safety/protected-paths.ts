/**
 * Files whose change becomes code that runs without anyone reading it: git's hooks and config,
 * the editor's settings, tasks and launch configurations, Pi's and agents' extension folders, the
 * environment files that direnv and friends execute, package manifests (install scripts), and CI
 * workflows. A write to one of them always asks, whatever the auto-approve setting says, and a
 * shell command that names one is shown with it and never runs without asking.
 *
 * Patterns are globs over absolute paths with `/` separators: `*` and `?` stay within one name,
 * `**` crosses folders, `{a,b}` is either. A pattern that does not begin with `/` matches at any
 * depth (as if it began with `**\/`), and one that ends in `/**` also matches the folder itself.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, parse, resolve, sep } from "node:path";

/** The default list (the user's setting can add patterns or turn these off one by one). */
export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = [
  // Version control: hooks, config (core.fsmonitor, aliases, filters), and hook managers.
  ".git/**",
  ".husky/**",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  // Editors and agents: settings (any arbor.* key reloads the session), tasks, launch, extensions.
  ".vscode/**",
  ".devcontainer/**",
  ".pi/**",
  ".agents/**",
  // Environment files that shells and tools load or execute.
  ".env*",
  ".envrc",
  "{.,}mise.toml",
  // Package manifests and lockfiles (install scripts, registries, resolved sources).
  "{package.json,package-lock.json,npm-shrinkwrap.json,.npmrc,yarn.lock,.yarnrc,.yarnrc.yml,pnpm-lock.yaml,pnpm-workspace.yaml,bun.lock,bun.lockb}",
  "{deno.json,deno.jsonc,deno.lock}",
  "{Cargo.toml,Cargo.lock}",
  ".cargo/**",
  "{pyproject.toml,setup.py,setup.cfg,Pipfile,Pipfile.lock,poetry.lock,uv.lock,requirements*.txt}",
  "{go.mod,go.sum,go.work}",
  "{Gemfile,Gemfile.lock,*.gemspec}",
  "{composer.json,composer.lock}",
  "{pom.xml,build.gradle,build.gradle.kts,settings.gradle,settings.gradle.kts,gradle.properties}",
  "gradle/wrapper/**",
  // CI workflows.
  ".github/workflows/**",
  ".github/actions/**",
  ".gitlab-ci.yml",
  ".circleci/**",
  ".buildkite/**",
  "{.travis.yml,azure-pipelines.yml,bitbucket-pipelines.yml,Jenkinsfile}",
];

/**
 * The patterns in force: the defaults, then the user's own entries (`true` adds a pattern, `false`
 * takes a default out). Anything but a boolean is ignored.
 */
export function protectedPatterns(userEntries: Readonly<Record<string, unknown>> | undefined): string[] {
  const on = new Map<string, boolean>(DEFAULT_PROTECTED_PATTERNS.map((p) => [p, true]));
  for (const [pattern, value] of Object.entries(userEntries ?? {})) {
    if (typeof value === "boolean" && pattern.trim() !== "") on.set(pattern.trim(), value);
  }
  return [...on].filter(([, value]) => value).map(([pattern]) => pattern);
}

const SPECIAL = /[\\^$.+()|[\]]/;

/** One glob as a regular expression over a `/`-separated absolute path. */
export function globToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let glob = pattern.replace(/\\/g, "/");
  if (!glob.startsWith("/") && !/^[A-Za-z]:\//.test(glob) && !glob.startsWith("**")) glob = `**/${glob}`;
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slashAfter = glob[i + 2] === "/";
      const atEnd = i + 2 === glob.length;
      if (slashAfter) {
        out += "(?:.*/)?";
        i += 2;
      } else if (atEnd && out.endsWith("/")) {
        // `x/**` also names `x` itself.
        out = `${out.slice(0, -1)}(?:/.*)?`;
        i += 1;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else out += SPECIAL.test(c) ? `\\${c}` : c;
  }
  out += ")".repeat(braces);
  return new RegExp(`^${out}$`, caseInsensitive ? "i" : "");
}

/**
 * Whether names differ only in case on the file system at `path` (its nearest existing folder):
 * a name there, spelled with its case swapped, must reach the same file. Where no name to probe
 * has letters, the platform decides (macOS and Windows are case-insensitive by default).
 */
export function isCaseInsensitiveAt(path: string): boolean {
  let current = resolve(path);
  for (;;) {
    const name = basename(current);
    const swapped = swapCase(name);
    if (swapped !== name) {
      try {
        const original = lstatSync(current);
        try {
          const other = lstatSync(join(dirname(current), swapped));
          return other.ino === original.ino && other.dev === original.dev;
        } catch {
          return false;
        }
      } catch {
        // Does not exist (yet): probe its folder.
      }
    }
    const parent = dirname(current);
    if (parent === current) return process.platform === "darwin" || process.platform === "win32";
    current = parent;
  }
}

function swapCase(name: string): string {
  return [...name].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join("");
}

/** Links followed before giving up (a loop, or a long chain). */
const MAX_LINK_HOPS = 40;

/**
 * Where `path` (absolute) really leads: every symbolic link on the way followed, dangling ones too
 * (a write through a dangling link creates its target), up to the first name that does not exist.
 */
export function resolveLinks(path: string): string {
  const start = resolve(path);
  let root = parse(start).root;
  let done = root;
  let rest = start.slice(root.length).split(sep).filter((p) => p !== "");
  let hops = 0;
  while (rest.length > 0) {
    const next = join(done, rest.shift()!);
    let link: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      // Missing: nothing below it exists either.
      return join(next, ...rest);
    }
    if (link === undefined || hops++ >= MAX_LINK_HOPS) {
      done = next;
      continue;
    }
    const target = resolve(done, link);
    root = parse(target).root;
    done = root;
    rest = [...target.slice(root.length).split(sep).filter((p) => p !== ""), ...rest];
  }
  return done;
}

export interface ProtectedMatchOptions {
  /** Test seam: the file system's case rule, instead of probing it. */
  caseInsensitive?: boolean;
}

/**
 * The first pattern that protects `path` (absolute), or undefined. Both the path as written and
 * where it really leads (every link followed, see resolveLinks) are checked: a link named
 * `notes` that leads into `.git/hooks` is protected, and so is `.vscode/settings.json` when
 * `.vscode` is a link to somewhere else (VS Code reads it through the link).
 */
export function protectedPatternOf(path: string, patterns: readonly string[], options: ProtectedMatchOptions = {}): string | undefined {
  if (patterns.length === 0) return undefined;
  const written = resolve(path);
  const real = resolveLinks(written);
  const insensitive = options.caseInsensitive ?? (isCaseInsensitiveAt(written) || isCaseInsensitiveAt(real));
  const candidates = [...new Set([written, real])].map((p) => p.replace(/\\/g, "/"));
  return patterns.find((pattern) => {
    const re = globToRegExp(pattern, insensitive);
    return candidates.some((candidate) => re.test(candidate));
  });
}

/** At most this many protected paths are named for one command. */
const MAX_NAMED = 20;
/** Words of a command looked at (a megabyte of words must not stall the dialog). */
const MAX_WORDS = 2000;

/**
 * The protected paths a shell command names, best effort: every word of it (split at blanks, quotes,
 * `=` and the shell's operators) that resolves, from `cwd`, to a protected path. A command can still
 * reach such a file without naming it (`cd .git && …`): commands ask anyway unless auto-approved,
 * and this only takes the ones that do name one out of auto-approval and shows what they name.
 */
export function protectedPathsInCommand(command: string, cwd: string, patterns: readonly string[], options: ProtectedMatchOptions = {}): string[] {
  if (patterns.length === 0) return [];
  const found: string[] = [];
  const words = [...new Set(command.split(/[\s"'`;&|<>()=,{}$]+/).filter((w) => w !== "" && !w.startsWith("-")))].slice(0, MAX_WORDS);
  for (const word of words) {
    const expanded = word === "~" ? homedir() : word.startsWith("~/") ? join(homedir(), word.slice(2)) : word;
    const path = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
    if (protectedPatternOf(path, patterns, options) === undefined) continue;
    const shown = resolveLinks(path);
    if (!found.includes(shown)) found.push(shown);
    if (found.length >= MAX_NAMED) break;
  }
  return found;
}
