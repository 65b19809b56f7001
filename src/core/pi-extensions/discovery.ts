/**
 * Where Pi extension files are found, as Pi finds them: the session folder's `.pi/extensions/` (only
 * in a trusted workspace: it is code the workspace ships; a session folder outside the workspace is
 * asked about before they load, see PiExtensionSet), the agent directory's `extensions/`, then
 * paths from a setting. In a folder, a `*.ts` / `*.js` file is an extension, and so is a
 * subfolder with a package.json whose `pi.extensions` lists entry files, or with an index.ts /
 * index.js. No deeper search. A file reached twice is loaded once, where it was first found.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/** Where an extension came from (Pi's scopes, plus Arbor's setting). */
export type ExtensionScope = "project" | "user" | "setting";

export interface DiscoveredExtension {
  /** The entry file. */
  path: string;
  scope: ExtensionScope;
  /** A short name for messages: the file name, or the folder name for an index file. */
  name: string;
}

export interface DiscoveryOptions {
  /** Pi's agent directory (its `extensions/` holds the user's extensions). */
  agentDir: string;
  /** The session's working folder (its `.pi/extensions/` holds project extensions). */
  cwd: string;
  /** Project extensions load only in a trusted workspace. */
  trusted: boolean;
  /**
   * Extra files or folders (from Arbor's setting); `~` is home, and relative paths are taken from
   * `pathsBase` (default: the home folder), never from the session's folder: a relative entry must
   * not turn whatever folder a session names into a source of code.
   */
  paths?: readonly string[];
  pathsBase?: string;
}

const isExtensionFile = (name: string): boolean => (name.endsWith(".ts") || name.endsWith(".js")) && !name.endsWith(".d.ts");

function expand(path: string, base: string): string {
  const p = path.trim();
  const home = p === "~" ? homedir() : p.startsWith("~/") ? join(homedir(), p.slice(2)) : p;
  return isAbsolute(home) ? home : resolve(base, home);
}

/** The entry files a folder declares (package.json `pi.extensions`) or its index file. */
function entriesOfFolder(dir: string): string[] | undefined {
  const manifest = join(dir, "package.json");
  if (existsSync(manifest)) {
    try {
      const pi = (JSON.parse(readFileSync(manifest, "utf8")) as { pi?: { extensions?: unknown } }).pi;
      const declared = Array.isArray(pi?.extensions) ? pi.extensions.filter((e): e is string => typeof e === "string") : [];
      const found = declared.map((e) => resolve(dir, e)).filter((p) => existsSync(p));
      if (found.length > 0) return found;
    } catch {
      // A package.json that does not parse declares nothing; the index file may still be there.
    }
  }
  for (const index of ["index.ts", "index.js"]) if (existsSync(join(dir, index))) return [join(dir, index)];
  return undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The extensions in one folder: its extension files and its subfolders' entries. */
function extensionsInFolder(dir: string): string[] {
  if (!isDirectory(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    if (isDirectory(path)) return entriesOfFolder(path) ?? [];
    return isExtensionFile(name) ? [path] : [];
  });
}

/** The name shown for an entry file. */
export function extensionName(path: string): string {
  const file = basename(path);
  if (/^index\.[cm]?[jt]s$/.test(file)) return basename(dirname(path));
  return file.replace(/\.[cm]?[jt]s$/, "");
}

/** Every extension to load, in Pi's order: project, user, then the setting's paths. */
export function discoverExtensions(options: DiscoveryOptions): DiscoveredExtension[] {
  const found: DiscoveredExtension[] = [];
  const seen = new Set<string>();
  const add = (paths: string[], scope: ExtensionScope): void => {
    for (const path of paths) {
      const key = resolve(path);
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ path: key, scope, name: extensionName(key) });
    }
  };
  if (options.trusted) add(extensionsInFolder(join(options.cwd, ".pi", "extensions")), "project");
  add(extensionsInFolder(join(options.agentDir, "extensions")), "user");
  for (const configured of options.paths ?? []) {
    if (!configured.trim()) continue;
    const path = expand(configured, options.pathsBase ?? homedir());
    if (isDirectory(path)) add(entriesOfFolder(path) ?? extensionsInFolder(path), "setting");
    else add([path], "setting");
  }
  return found;
}
