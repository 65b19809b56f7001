/**
 * The reference's resource loaders (`DefaultResourceLoader`, `SettingsManager`, `buildSystemPrompt`,
 * prompt-template expansion), typed by hand for what the resource tests compare.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { referencePackageDir } from "./reference";

export interface RefSkill {
  name: string;
  description: string;
  filePath: string;
  baseDir: string;
  disableModelInvocation: boolean;
}
export interface RefPrompt {
  name: string;
  description: string;
  argumentHint?: string;
  content: string;
  filePath: string;
}
export interface RefDiagnostic {
  type: string;
  message: string;
  path?: string;
}
export interface RefResourceLoader {
  reload(): Promise<void>;
  getSkills(): { skills: RefSkill[]; diagnostics: RefDiagnostic[] };
  getPrompts(): { prompts: RefPrompt[]; diagnostics: RefDiagnostic[] };
  getAgentsFiles(): { agentsFiles: { path: string; content: string }[] };
  getSystemPrompt(): string | undefined;
  getAppendSystemPrompt(): string[];
  getExtensions(): { extensions: { path: string }[]; errors: { path: string; error: string }[] };
}
export interface RefSettingsManager {
  getGlobalSettings(): Record<string, unknown>;
  getProjectSettings(): Record<string, unknown>;
  /** Private in the reference; read for the merged object. */
  settings: Record<string, unknown>;
  getBranchSummarySettings(): { reserveTokens: number; skipPrompt: boolean };
  getShellCommandPrefix(): string | undefined;
}
export interface RefBuildOptions {
  cwd: string;
  customPrompt?: string;
  appendSystemPrompt?: string;
  selectedTools?: string[];
  toolSnippets?: Record<string, string>;
  contextFiles?: { path: string; content: string }[];
  skills?: RefSkill[];
}
export interface RefResources {
  DefaultResourceLoader: new (options: { cwd: string; agentDir: string; settingsManager?: RefSettingsManager }) => RefResourceLoader;
  SettingsManager: { create(cwd: string, agentDir: string): RefSettingsManager };
  buildSystemPrompt(options: RefBuildOptions): string;
  expandPromptTemplate(text: string, templates: RefPrompt[]): string;
  substituteArgs(content: string, args: string[]): string;
  parseCommandArgs(text: string): string[];
  parseSkillBlock(text: string): { name: string; location: string; content: string; userMessage: string | undefined } | null;
  parseFrontmatter(text: string): { frontmatter: Record<string, unknown>; body: string };
}

let cached: Promise<RefResources> | undefined;

export function loadReferenceResources(): Promise<RefResources> {
  cached ??= (async () => {
    const dir = referencePackageDir();
    const load = (relative: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(dir, "dist", relative)).href) as Promise<Record<string, unknown>>;
    const [root, systemPrompt, templates] = await Promise.all([load("index.js"), load("core/system-prompt.js"), load("core/prompt-templates.js")]);
    return { ...root, ...systemPrompt, ...templates } as unknown as RefResources;
  })();
  return cached;
}

/** Runs `body` with HOME set to `home` (the reference reads `~/.agents/skills` from it). */
export async function withHome<T>(home: string, body: () => Promise<T>): Promise<T> {
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  }
}
