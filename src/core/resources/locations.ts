/**
 * Every place a resource of one type comes from, in Pi's precedence: the project's settings
 * entries, the project's folders, the user's settings entries, the user's folders, then packages.
 * When two resources share a name the first in this order wins; a file reached twice counts once.
 */
import { join, resolve } from "node:path";
import { collectExtensionFiles, collectFromPaths, collectPromptFiles, collectSkillFiles, type ResourceType } from "./collect";
import { foldersUp } from "./context-files";
import { applyPatterns, enabledByOverrides, isPattern } from "./path-patterns";
import { baseDirOf, expandPath, installedPath, packageIdentity, packageResources, parsePackageSource, type PackageDirs } from "./packages";
import { packageEntries, stringList, type JsonObject, type PackageEntry } from "./pi-settings";
import type { ResourceFs } from "./resource-fs";
import type { ResourceDiagnostic, ResourceScope, ResourceSource } from "./types";

export interface LocatedResource {
  path: string;
  source: ResourceSource;
}

export interface LocationInput extends PackageDirs {
  user: JsonObject;
  /** The project's settings ({} when they do not load). */
  project: JsonObject;
  /** Whether the project's folders of this type load (see trust.ts). */
  projectFolders: boolean;
  /** Whether the project's packages load. */
  projectPackages: boolean;
}

interface Found {
  source: ResourceSource;
  enabled: boolean;
}

const rank = (s: ResourceSource): number => (s.origin === "package" ? 4 : (s.scope === "project" ? 0 : 2) + (s.origin === "settings" ? 0 : 1));

/** The folder a git repository starts at, at or above `dir`. */
function repositoryRoot(fs: ResourceFs, dir: string): string | undefined {
  return foldersUp(dir).find((folder) => fs.kind(join(folder, ".git")) !== undefined);
}

/** `.agents/skills` in the working folder and each folder above it, up to the repository's root (or the file system's). */
export function agentsSkillFolders(fs: ResourceFs, cwd: string): string[] {
  const root = repositoryRoot(fs, cwd);
  const folders: string[] = [];
  for (const dir of foldersUp(cwd)) {
    folders.push(join(dir, ".agents", "skills"));
    if (dir === root) break;
  }
  return folders;
}

/** The packages of both settings files, the project's first; one entry per package, the project's when both name it. */
function configuredPackages(input: LocationInput): { entry: PackageEntry; scope: ResourceScope }[] {
  const all = [
    ...(input.projectPackages ? packageEntries(input.project.packages).map((entry) => ({ entry, scope: "project" as const })) : []),
    ...packageEntries(input.user.packages).map((entry) => ({ entry, scope: "user" as const })),
  ];
  const byIdentity = new Map<string, { entry: PackageEntry; scope: ResourceScope }>();
  for (const item of all) {
    const id = packageIdentity(typeof item.entry === "string" ? item.entry : item.entry.source, item.scope, input);
    const existing = byIdentity.get(id);
    if (!existing || (item.scope === "project" && existing.scope === "user")) byIdentity.set(id, item);
  }
  return [...byIdentity.values()];
}

/** The installed packages, each with its root folder (a package Pi has not installed yet is reported). */
export function installedPackages(fs: ResourceFs, input: LocationInput, diagnostics: ResourceDiagnostic[]): { entry: PackageEntry; scope: ResourceScope; source: string; root: string }[] {
  return configuredPackages(input).flatMap(({ entry, scope }) => {
    const source = typeof entry === "string" ? entry : entry.source;
    const root = installedPath(parsePackageSource(source), scope, input);
    if (!root || fs.kind(root) === undefined) {
      const where = root ? ` (looked in ${root})` : " (the global npm folder is unknown)";
      diagnostics.push({ kind: "package", level: "warning", message: `The Pi package ${source} is not installed${where}: run pi once, or \`pi install ${source}\`.`, path: root ?? source });
      return [];
    }
    return [{ entry, scope, source, root }];
  });
}

/** The resources of one type, in precedence order, enabled ones only. */
export function locateResources(fs: ResourceFs, type: Exclude<ResourceType, "themes">, input: LocationInput, diagnostics: ResourceDiagnostic[]): LocatedResource[] {
  const found = new Map<string, Found>();
  const add = (path: string, source: ResourceSource, enabled: boolean): void => {
    if (!found.has(path)) found.set(path, { source, enabled });
  };

  for (const pkg of installedPackages(fs, input, diagnostics)) {
    const source: ResourceSource = { scope: pkg.scope, origin: "package", packageSource: pkg.source };
    if (fs.kind(pkg.root) === "file") {
      if (type === "extensions") add(pkg.root, source, true);
      continue;
    }
    for (const item of packageResources(fs, pkg.root, typeof pkg.entry === "string" ? undefined : pkg.entry)[type]) add(item.path, source, item.enabled);
  }

  const settingsEntries = (scope: ResourceScope): string[] => stringList((scope === "project" ? input.project : input.user)[type]);
  for (const scope of ["project", "user"] as const) {
    const entries = settingsEntries(scope);
    if (entries.length === 0) continue;
    const baseDir = baseDirOf(scope, input);
    const plain = entries.filter((e) => !isPattern(e)).map((e) => expandPath(e, baseDir, input.home));
    const files = collectFromPaths(fs, plain, type);
    const enabled = applyPatterns(files, entries.filter(isPattern), baseDir);
    for (const file of files) add(file, { scope, origin: "settings" }, enabled.has(file));
  }

  const userAgentsSkills = join(input.home, ".agents", "skills");
  const auto = (scope: ResourceScope): string[] => {
    const dir = baseDirOf(scope, input);
    if (type === "extensions") return collectExtensionFiles(fs, join(dir, "extensions"));
    if (type === "prompts") return collectPromptFiles(fs, join(dir, "prompts"));
    if (scope === "user") return [...collectSkillFiles(fs, join(dir, "skills"), "pi"), ...collectSkillFiles(fs, userAgentsSkills, "agents")];
    const shared = agentsSkillFolders(fs, input.cwd).filter((folder) => resolve(folder) !== resolve(userAgentsSkills));
    return [...collectSkillFiles(fs, join(dir, "skills"), "pi"), ...shared.flatMap((folder) => collectSkillFiles(fs, folder, "agents"))];
  };
  for (const scope of ["project", "user"] as const) {
    if (scope === "project" && !input.projectFolders) continue;
    const overrides = settingsEntries(scope);
    for (const path of auto(scope)) add(path, { scope, origin: "auto" }, enabledByOverrides(path, overrides, baseDirOf(scope, input)));
  }

  const ordered = [...found.entries()].map(([path, f]) => ({ path, ...f })).sort((a, b) => rank(a.source) - rank(b.source));
  const seen = new Set<string>();
  return ordered
    .filter((item) => {
      const real = fs.realPath(item.path);
      if (seen.has(real)) return false;
      seen.add(real);
      return true;
    })
    .filter((item) => item.enabled)
    .map(({ path, source }) => ({ path, source }));
}
