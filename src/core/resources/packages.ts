/**
 * Pi packages (`pi install`, the `packages` setting): where Pi keeps each kind of source, and which
 * resources a package ships (its package.json `pi` manifest, else its `extensions/`, `skills/`,
 * `prompts/` and `themes/` folders), narrowed by the filters a settings entry gives. Arbor never
 * installs: a package Pi has not installed yet is reported, and loads once `pi` installs it.
 */
import { join, relative, resolve, sep } from "node:path";
import { collectFromPaths, collectResourceFiles, piManifest, RESOURCE_TYPES, type ResourceType } from "./collect";
import { applyPatterns, globToRegExp, isOverridePattern } from "./path-patterns";
import type { PackageEntry } from "./pi-settings";
import type { ResourceFs } from "./resource-fs";
import type { ResourceScope } from "./types";

export type PackageSource = { type: "npm"; name: string } | { type: "git"; host: string; path: string } | { type: "local"; path: string };

const NON_LOCAL_PREFIXES = ["npm:", "git:", "github:", "http:", "https:", "ssh:"];

/** What a source string names, as Pi reads it. */
export function parsePackageSource(source: string): PackageSource {
  const trimmed = source.trim();
  if (trimmed.startsWith("npm:")) {
    const spec = trimmed.slice(4).trim();
    const match = /^(@?[^@]+(?:\/[^@]+)?)(?:@(.+))?$/.exec(spec);
    return { type: "npm", name: match?.[1] ?? spec };
  }
  if (!NON_LOCAL_PREFIXES.some((prefix) => trimmed.startsWith(prefix))) return { type: "local", path: trimmed };
  const git = parseGitSource(trimmed);
  return git ?? { type: "local", path: trimmed };
}

/** `git:host/user/repo@ref`, `git:git@host:user/repo`, and https/ssh/git URLs: the host and the repository path. */
function parseGitSource(source: string): PackageSource | undefined {
  const prefixed = source.startsWith("git:");
  let rest = prefixed ? source.slice(4).trim() : source;
  if (!prefixed && !/^(https?|ssh|git):\/\//i.test(rest)) return undefined;
  rest = rest.replace(/^(https?|ssh|git):\/\//i, "").replace(/#.*$/, "");
  rest = rest.replace(/^[^@/]+@/, "");
  const scp = /^([^/:]+):(?!\d+\/)(.+)$/.exec(rest);
  const [host, path] = scp ? [scp[1]!, scp[2]!] : [rest.slice(0, rest.indexOf("/")), rest.slice(rest.indexOf("/") + 1)];
  if (!host || !path || rest.indexOf("/") === -1 && !scp) return undefined;
  const cleanHost = host.replace(/:\d+$/, "");
  const parts = path.replace(/@[^/]*$/, "").replace(/\.git$/, "").split("/").filter(Boolean);
  if (parts.length < 2) return undefined;
  return { type: "git", host: cleanHost, path: parts.join("/") };
}

export interface PackageDirs {
  cwd: string;
  agentDir: string;
  /** The global npm root (`npm root -g`); without it, user npm packages cannot be found. */
  npmGlobalRoot?: string;
  home: string;
}

/** The folder a settings entry's relative paths resolve against: the project's `.pi/`, or the agent directory. */
export const baseDirOf = (scope: ResourceScope, dirs: PackageDirs): string => (scope === "project" ? join(dirs.cwd, ".pi") : dirs.agentDir);

export function expandPath(input: string, baseDir: string, home: string): string {
  const p = input.trim();
  if (p === "~") return home;
  if (p.startsWith("~/")) return join(home, p.slice(2));
  if (p.startsWith("~")) return join(home, p.slice(1));
  return resolve(baseDir, p);
}

/** Where Pi installed a package; undefined for a user npm package when the npm root is unknown. */
export function installedPath(source: PackageSource, scope: ResourceScope, dirs: PackageDirs): string | undefined {
  switch (source.type) {
    case "npm":
      if (scope === "project") return join(dirs.cwd, ".pi", "npm", "node_modules", source.name);
      return dirs.npmGlobalRoot ? join(dirs.npmGlobalRoot, source.name) : undefined;
    case "git":
      return scope === "project" ? join(dirs.cwd, ".pi", "git", source.host, source.path) : join(dirs.agentDir, "git", source.host, source.path);
    case "local":
      return expandPath(source.path, baseDirOf(scope, dirs), dirs.home);
  }
}

/** Two entries name the same package (the project's then wins). */
export function packageIdentity(source: string, scope: ResourceScope, dirs: PackageDirs): string {
  const parsed = parsePackageSource(source);
  if (parsed.type === "npm") return `npm:${parsed.name}`;
  if (parsed.type === "git") return `git:${parsed.host}/${parsed.path}`;
  return `local:${expandPath(parsed.path, baseDirOf(scope, dirs), dirs.home)}`;
}

/** A package's resource files of every type, each enabled or not. */
export type PackageResources = Record<ResourceType, { path: string; enabled: boolean }[]>;

const toPosix = (p: string): string => p.split(sep).join("/");

/** Manifest entries: paths and globs relative to the package root, then its `!`/`+`/`-` patterns. */
function manifestFiles(fs: ResourceFs, root: string, entries: readonly string[], type: ResourceType): string[] {
  const sources = entries.filter((e) => !isOverridePattern(e)).flatMap((entry) => (entry.includes("*") || entry.includes("?") ? globIn(fs, root, entry) : [resolve(root, entry)]));
  const files = collectFromPaths(fs, sources, type);
  const patterns = entries.filter(isOverridePattern);
  if (patterns.length === 0) return files;
  const enabled = applyPatterns(files, patterns, root);
  return files.filter((f) => enabled.has(f));
}

/** Files and folders below `root` whose relative path matches the glob (hidden entries and node_modules skipped). */
function globIn(fs: ResourceFs, root: string, glob: string): string[] {
  const re = globToRegExp(toPosix(glob).replace(/^\.\//, ""));
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of fs.list(dir)) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const path = join(dir, name);
      if (re.test(toPosix(relative(root, path)))) found.push(path);
      if (fs.kind(path) === "dir") walk(path);
    }
  };
  walk(root);
  return found;
}

/** What a package directory ships, narrowed by a settings entry's filters. */
export function packageResources(fs: ResourceFs, root: string, filter: Exclude<PackageEntry, string> | undefined): PackageResources {
  const manifest = piManifest(fs, root);
  const declared = (type: ResourceType): string[] | undefined => {
    const entries = manifest?.[type];
    return Array.isArray(entries) ? entries.filter((e): e is string => typeof e === "string") : undefined;
  };
  const conventional = (type: ResourceType): string[] => (fs.kind(join(root, type)) === "dir" ? collectResourceFiles(fs, join(root, type), type) : []);
  const result = {} as PackageResources;
  for (const type of RESOURCE_TYPES) {
    const entries = declared(type);
    const patterns = filter?.[type];
    // Pi's cases: a filtered type takes the manifest's list only when it names something; an
    // unfiltered type of a package with a manifest takes only what the manifest lists.
    const useManifest = entries !== undefined && (patterns === undefined || entries.length > 0);
    const all = useManifest ? manifestFiles(fs, root, entries, type) : manifest && !filter ? [] : conventional(type);
    if (patterns === undefined) result[type] = all.map((path) => ({ path, enabled: true }));
    else {
      const enabled = patterns.length === 0 ? new Set<string>() : applyPatterns(all, patterns, root);
      result[type] = all.map((path) => ({ path, enabled: enabled.has(path) }));
    }
  }
  return result;
}
