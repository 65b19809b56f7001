import * as vscode from "vscode";
import { FILTER_MODES, type FilterMode } from "../core/tree/filters";

export const SECTION = "arbor";

/** The settings Arbor reads, with their defaults. */
export interface ArborSettings {
  /** An explicit sessions folder (all sessions flat, like PI_CODING_AGENT_SESSION_DIR); empty = Pi's per-workspace folders. */
  sessionsDirectory: string | undefined;
  /** Pi's agent folder override (else PI_CODING_AGENT_DIR or ~/.pi/agent). */
  agentDirectory: string | undefined;
  defaultFilter: FilterMode;
  /** Set by the user (undefined: not set, so Pi's branchSummary.skipPrompt decides, else ask). */
  askToSummarizeBranch: boolean | undefined;
}

function expand(path: string | undefined): string | undefined {
  const trimmed = path?.trim();
  if (!trimmed) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? trimmed.replace(/\$\{workspaceFolder\}/g, folder) : trimmed;
}

/** A setting's value where the user or the workspace set it; undefined where only the default says. */
function explicitBoolean(c: vscode.WorkspaceConfiguration, key: string): boolean | undefined {
  const i = c.inspect<boolean>(key);
  const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
  return typeof value === "boolean" ? value : undefined;
}

export function readSettings(): ArborSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const filter = c.get<string>("tree.defaultFilter", "default");
  return {
    sessionsDirectory: expand(c.get<string>("sessionsDirectory")),
    agentDirectory: expand(c.get<string>("agentDirectory")),
    defaultFilter: (FILTER_MODES as readonly string[]).includes(filter) ? (filter as FilterMode) : "default",
    askToSummarizeBranch: explicitBoolean(c, "tree.askToSummarizeBranch"),
  };
}

/** Fires when one of Arbor's settings changes. */
export function onDidChangeSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener();
  });
}
