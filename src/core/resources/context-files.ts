/**
 * Context files, as Pi finds them: one instruction file per folder (AGENTS.md, else CLAUDE.md), from
 * the agent directory first, then from every folder above the working folder down to the working
 * folder itself (outermost first), each file once. SYSTEM.md and APPEND_SYSTEM.md: the project's
 * `.pi/` one when there is one, else the agent directory's.
 */
import { dirname, join, resolve } from "node:path";
import type { ResourceFs } from "./resource-fs";
import type { ContextFile, PromptFile, ResourceDiagnostic, ResourceScope } from "./types";

/** The names a folder's instruction file may have, in the order they are preferred. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

function readFirst(fs: ResourceFs, dir: string, names: readonly string[], diagnostics: ResourceDiagnostic[], kind: "context" | "system"): { path: string; content: string } | undefined {
  for (const name of names) {
    const path = join(dir, name);
    if (fs.kind(path) !== "file") continue;
    try {
      return { path, content: fs.readText(path) };
    } catch (error) {
      diagnostics.push({ kind, level: "warning", message: `Could not read it: ${error instanceof Error ? error.message : String(error)}`, path });
    }
  }
  return undefined;
}

/** The folder and every folder above it, innermost first. */
export function foldersUp(start: string): string[] {
  const folders: string[] = [];
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    folders.push(dir);
    if (dirname(dir) === dir) return folders;
  }
}

/** `withProject: false` reads the agent directory's file only (see trust.ts). */
export function loadContextFiles(fs: ResourceFs, options: { cwd: string; agentDir: string; withProject?: boolean }, diagnostics: ResourceDiagnostic[]): ContextFile[] {
  const files: ContextFile[] = [];
  const seen = new Set<string>();
  const add = (found: { path: string; content: string } | undefined, scope: ResourceScope): void => {
    if (!found || seen.has(found.path)) return;
    seen.add(found.path);
    files.push({ ...found, scope });
  };
  add(readFirst(fs, options.agentDir, CONTEXT_FILE_NAMES, diagnostics, "context"), "user");
  if (options.withProject === false) return files;
  for (const dir of foldersUp(options.cwd).reverse()) add(readFirst(fs, dir, CONTEXT_FILE_NAMES, diagnostics, "context"), "project");
  return files;
}

/**
 * SYSTEM.md (replaces the base prompt) or APPEND_SYSTEM.md (added after it): the project's wins over
 * the user's, and only one of them is used. `projectDir` is the project's `.pi/` folder, when it loads.
 */
export function loadPromptFile(fs: ResourceFs, name: "SYSTEM.md" | "APPEND_SYSTEM.md", dirs: { projectDir?: string; agentDir: string }, diagnostics: ResourceDiagnostic[]): PromptFile | undefined {
  if (dirs.projectDir) {
    const project = readFirst(fs, dirs.projectDir, [name], diagnostics, "system");
    if (project) return { ...project, scope: "project" };
  }
  const user = readFirst(fs, dirs.agentDir, [name], diagnostics, "system");
  return user && { ...user, scope: "user" };
}
