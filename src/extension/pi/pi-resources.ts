/**
 * Pi's resources in the window: the core loader run with the window's agent directory and trust,
 * for each session before each prompt (AgentSessionConfig.resources) and for the chat while no
 * session is open; "Arbor: Skills" lists the skills with where they come from and their problems.
 * Problems are logged once each.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import * as vscode from "vscode";
import { loadResources, type LoadedResources, type ResourceDiagnostic, type ResourceSource } from "../../core/resources";
import type { SlashCommand } from "../../protocol/chat-messages";
import { showPick } from "../quick-pick-probe";
import { registerCommandSet } from "../register-commands";
import { shortPath } from "../chat/chat-resources";

export const RESOURCE_COMMAND_IDS = ["arbor.showSkills"] as const;

export interface PiResourcesDeps {
  agentDir(): string;
  log: vscode.LogOutputChannel;
  /** The open session's resources, when a session is open. */
  sessionResources(): LoadedResources | undefined;
}

/** Where a resource comes from, in a few words. */
export function describeSource(source: ResourceSource): string {
  if (source.origin === "package") return `package ${source.packageSource ?? ""}${source.scope === "project" ? " (project)" : ""}`.trim();
  const scope = source.scope === "project" ? "project" : "user";
  return source.origin === "settings" ? `${scope} settings.json` : scope;
}

export class PiResources implements vscode.Disposable {
  private readonly logged = new Set<string>();
  private npmRoot: string | undefined;
  private npmAsked = false;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly deps: PiResourcesDeps) {
    this.disposables = registerCommandSet(RESOURCE_COMMAND_IDS, { "arbor.showSkills": () => this.showSkills() }, deps.log);
  }

  /** Where `pi install npm:…` puts user packages: asked once (without a shell) when settings name an npm package. */
  private askNpmRoot(resources: LoadedResources): void {
    if (this.npmAsked || !JSON.stringify(resources.settings.user.packages ?? []).includes('"npm:')) return;
    this.npmAsked = true;
    execFile("npm", ["root", "-g"], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      if (!error && stdout.trim()) this.npmRoot = stdout.trim();
      else this.deps.log.warn(`Pi's npm packages cannot be found: \`npm root -g\` failed (${error?.message ?? "no output"}).`);
    });
  }

  /** The resources of a working folder, read now. */
  load(cwd: string): LoadedResources {
    const resources = loadResources({ cwd, agentDir: this.deps.agentDir(), trusted: vscode.workspace.isTrusted, npmGlobalRoot: this.npmRoot });
    this.askNpmRoot(resources);
    this.logProblems(resources.diagnostics);
    return resources;
  }

  /** The open session's resources, else the workspace folder's (what a new session would get). */
  current(): LoadedResources | undefined {
    const session = this.deps.sessionResources();
    if (session) return session;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return folder ? this.load(folder) : undefined;
  }

  /** The chat's `/` entries for prompt templates and skills. */
  slashCommands(): SlashCommand[] {
    const r = this.current();
    if (!r) return [];
    const templates = r.prompts.map((p) => ({ name: p.name, description: p.description, ...(p.argumentHint ? { args: p.argumentHint } : {}), source: "prompt template" }));
    const skills = r.settings.view.enableSkillCommands ? r.skills.map((s) => ({ name: `skill:${s.name}`, description: s.description, args: "[instructions]", source: "skill" })) : [];
    return [...templates, ...skills];
  }

  /** Whether `/name` is a template or a skill command of these resources. */
  isResourceCommand(name: string): boolean {
    const r = this.current();
    if (!r) return false;
    if (name.startsWith("skill:")) return r.skills.some((s) => `skill:${s.name}` === name);
    return r.prompts.some((p) => p.name === name);
  }

  private logProblems(diagnostics: readonly ResourceDiagnostic[]): void {
    for (const d of diagnostics) {
      const line = `Pi ${d.kind} ${d.path}: ${d.message}${d.winnerPath ? ` (used: ${d.winnerPath})` : ""}`;
      if (this.logged.has(line)) continue;
      this.logged.add(line);
      if (d.level === "error") this.deps.log.error(line);
      else this.deps.log.warn(line);
    }
  }

  private async showSkills(): Promise<void> {
    const r = this.current();
    const cwd = r?.cwd ?? "";
    type Item = vscode.QuickPickItem & { path?: string };
    const items: Item[] = [];
    for (const skill of r?.skills ?? []) {
      const problems = r!.diagnostics.filter((d) => d.kind === "skill" && d.path === skill.path).map((d) => d.message);
      items.push({
        label: `${problems.length > 0 ? "$(warning)" : "$(book)"} ${skill.name}`,
        description: `${describeSource(skill.source)}${skill.disableModelInvocation ? " · only by /skill:" + skill.name : ""}`,
        detail: [skill.description, shortPath(skill.path, cwd), ...problems].join(" — "),
        path: skill.path,
      });
    }
    const loaded = new Set(r?.skills.map((s) => s.path));
    for (const d of r?.diagnostics ?? []) {
      if (d.kind !== "skill" || loaded.has(d.path)) continue;
      items.push({ label: `$(error) ${shortPath(d.path, cwd)}`, description: "not loaded", detail: d.message, path: d.path });
    }
    if (items.length === 0) items.push({ label: "$(info) No skills found", detail: `Put skills in ${join(this.deps.agentDir(), "skills")}, ~/.agents/skills/, the project's .pi/skills/ or .agents/skills/, or list them in Pi's settings.json ("skills").`, alwaysShow: true });
    const picked = await showPick(items, { title: "Arbor: Skills", placeHolder: "Pick a skill to open its file", matchOnDescription: true, matchOnDetail: true });
    if (picked?.path) await vscode.window.showTextDocument(vscode.Uri.file(picked.path), { preview: true });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
