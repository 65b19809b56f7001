/**
 * The one loader that knows every place Pi reads resources from: context files, SYSTEM.md and
 * APPEND_SYSTEM.md, skills, prompt templates, extensions and packages, and Pi's settings. It returns
 * plain data with the problems found beside it; the caller re-runs it when files may have changed
 * (Arbor does so before each prompt, so an edited AGENTS.md counts from the next prompt on).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { loadContextFiles, loadPromptFile } from "./context-files";
import { installedPackages, locateResources, type LocationInput } from "./locations";
import { mergeSettings, readSettingsFile, viewSettings, type JsonObject, type PiSettingsView } from "./pi-settings";
import { loadPromptTemplates } from "./prompt-templates";
import { nodeResourceFs, type ResourceFs } from "./resource-fs";
import { loadSkills } from "./skills";
import { projectLoads } from "./trust";
import type { ContextFile, PromptFile, PromptTemplate, ResourceDiagnostic, ResourceSource, Skill } from "./types";

export interface ResourceLoadOptions {
  /** The session's working folder. */
  cwd: string;
  /** Pi's agent directory (resolveAgentDir). */
  agentDir: string;
  /** Whether the workspace is trusted; an untrusted one loads only what trust.ts allows. */
  trusted: boolean;
  /** The home folder (`~`, `~/.agents/skills`); default: the user's. */
  home?: string;
  /** The global npm folder, where `pi install npm:…` puts user packages (`npm root -g`). */
  npmGlobalRoot?: string;
  fs?: ResourceFs;
}

/** A Pi package that is installed, with what it ships. */
export interface LoadedPackage {
  source: string;
  scope: ResourceSource["scope"];
  root: string;
}

export interface LoadedResources {
  cwd: string;
  agentDir: string;
  contextFiles: ContextFile[];
  /** SYSTEM.md: replaces the base prompt. */
  systemPrompt?: PromptFile;
  /** APPEND_SYSTEM.md: added after the base prompt. */
  appendSystemPrompt?: PromptFile;
  skills: Skill[];
  prompts: PromptTemplate[];
  /** Extension entry files from Pi's settings and packages (folders Arbor's extension discovery already walks are included too). */
  extensions: { path: string; source: ResourceSource }[];
  packages: LoadedPackage[];
  settings: { user: JsonObject; project: JsonObject; merged: JsonObject; view: PiSettingsView };
  diagnostics: ResourceDiagnostic[];
}

export function loadResources(options: ResourceLoadOptions): LoadedResources {
  const fs = options.fs ?? nodeResourceFs;
  const home = options.home ?? homedir();
  const diagnostics: ResourceDiagnostic[] = [];
  const projectDir = join(options.cwd, ".pi");
  const user = readSettingsFile(fs, join(options.agentDir, "settings.json"), diagnostics);
  const project = projectLoads("settings", options.trusted) ? readSettingsFile(fs, join(projectDir, "settings.json"), diagnostics) : {};
  const merged = mergeSettings(user, project);

  const input = (type: "skills" | "prompts" | "extensions"): LocationInput => ({
    cwd: options.cwd,
    agentDir: options.agentDir,
    home,
    npmGlobalRoot: options.npmGlobalRoot,
    user,
    project,
    projectFolders: projectLoads(type, options.trusted),
    projectPackages: projectLoads("packages", options.trusted),
  });
  const packageDiagnostics: ResourceDiagnostic[] = [];
  const packages = installedPackages(fs, input("skills"), packageDiagnostics).map(({ source, scope, root }) => ({ source, scope, root }));
  diagnostics.push(...packageDiagnostics);
  // Each locate call reports missing packages again; they were reported once above.
  const quiet: ResourceDiagnostic[] = [];
  const skills = loadSkills(fs, locateResources(fs, "skills", input("skills"), quiet), diagnostics);
  const prompts = loadPromptTemplates(fs, locateResources(fs, "prompts", input("prompts"), quiet), diagnostics);
  const extensions = locateResources(fs, "extensions", input("extensions"), quiet);

  const promptDirs = { projectDir: projectLoads("systemPromptFiles", options.trusted) ? projectDir : undefined, agentDir: options.agentDir };
  return {
    cwd: options.cwd,
    agentDir: options.agentDir,
    contextFiles: loadContextFiles(fs, { cwd: options.cwd, agentDir: options.agentDir, withProject: projectLoads("contextFiles", options.trusted) }, diagnostics),
    systemPrompt: loadPromptFile(fs, "SYSTEM.md", promptDirs, diagnostics),
    appendSystemPrompt: loadPromptFile(fs, "APPEND_SYSTEM.md", promptDirs, diagnostics),
    skills,
    prompts,
    extensions,
    packages,
    settings: { user, project, merged, view: viewSettings(merged) },
    diagnostics,
  };
}

/** Nothing loaded: a session whose host gives it no resources. */
export function emptyResources(cwd: string, agentDir: string): LoadedResources {
  return { cwd, agentDir, contextFiles: [], skills: [], prompts: [], extensions: [], packages: [], settings: { user: {}, project: {}, merged: {}, view: viewSettings({}) }, diagnostics: [] };
}

/**
 * The folders the read tool may read without asking, though they are outside the session's folder:
 * each loaded skill's folder (a skill's instructions name files beside it).
 */
export function skillReadRoots(resources: Pick<LoadedResources, "skills">): string[] {
  return [...new Set(resources.skills.map((skill) => skill.baseDir))];
}
