import * as vscode from "vscode";
import type { AgentSessionConfig } from "../core/agent/agent-session";
import { AUTO_APPROVE_VALUES, type AutoApprove } from "../core/agent/safety/approvals";
import { protectedPatterns } from "../core/agent/safety/protected-paths";
import type { ToolPolicy } from "../core/agent/tool-runner";
import type { SessionManager } from "../core/session/session-manager";
import { inactiveBuiltinTools } from "./builtin-tools-config";
import { SECTION } from "./settings";
import type { ToolApprovals } from "./tool-approvals";

/** What the chat says in an untrusted workspace. */
export const RESTRICTED_MODE_REASON =
  "Restricted Mode: this workspace is not trusted, so the agent only reads files here. Shell commands (!cmd, the bash tool), writes and edits are off until you trust the workspace.";

/** Default of `arbor.tools.commandTimeout`, in seconds. */
const DEFAULT_COMMAND_TIMEOUT_S = 600;

/**
 * The auto-approve setting from the user's own settings only. The manifest gives it application
 * scope, so VS Code never takes it from a workspace; reading the user value alone keeps a
 * repository's `.vscode/settings.json` from turning approvals off even if that scope were lost.
 */
function readAutoApprove(): AutoApprove {
  const value = vscode.workspace.getConfiguration(SECTION).inspect<string>("tools.autoApprove")?.globalValue;
  return (AUTO_APPROVE_VALUES as readonly string[]).includes(value ?? "") ? (value as AutoApprove) : "never";
}

/**
 * The protected paths: the defaults with the user's own entries (a pattern set to true is added,
 * a default set to false is taken out). As with auto-approve, only the user's settings count: a
 * repository cannot unprotect its own `.vscode/` or hooks.
 */
export function readProtectedPaths(): string[] {
  const value = vscode.workspace.getConfiguration(SECTION).inspect<unknown>("tools.protectedPaths")?.globalValue;
  const entries = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  return protectedPatterns(entries);
}

function readCommandTimeoutMs(): number {
  const seconds = vscode.workspace.getConfiguration(SECTION).get<number>("tools.commandTimeout", DEFAULT_COMMAND_TIMEOUT_S);
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/** The open workspace's local folders (tools never reach into other file systems). */
function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

/**
 * Adds the tool-safety part to what every agent session of this window gets: the approval dialogs,
 * the auto-approve setting, the workspace folders, the command timeout and the active built-in tools
 * (`arbor.tools.active`) (read on every call, so
 * changing them needs no rebuild), and Restricted Mode in an untrusted workspace (no shell, no
 * writes; granting trust rebuilds the session).
 */
export function withToolSafety(
  configure: (sm: SessionManager) => AgentSessionConfig | Promise<AgentSessionConfig>,
  approvals: ToolApprovals,
): (sm: SessionManager) => Promise<AgentSessionConfig> {
  return async (sm) => {
    const config = await configure(sm);
    const trusted = vscode.workspace.isTrusted;
    const base = config.toolPolicy ?? {};
    const toolPolicy: ToolPolicy = {
      get disabledTools() {
        return [...(base.disabledTools ?? []), ...inactiveBuiltinTools()];
      },
      confirmTools: base.confirmTools,
      confirm: base.confirm,
      readableRoots: base.readableRoots,
      approve: (request, signal) => approvals.ask(request, signal),
      get autoApprove() {
        return readAutoApprove();
      },
      get protectedPaths() {
        return readProtectedPaths();
      },
      get workspaceFolders() {
        return workspaceFolders();
      },
      get commandTimeoutMs() {
        return readCommandTimeoutMs();
      },
    };
    return {
      ...config,
      toolPolicy,
      allowShell: trusted && config.allowShell !== false,
      allowWrites: trusted && config.allowWrites !== false,
      restrictionReason: trusted ? config.restrictionReason : RESTRICTED_MODE_REASON,
    };
  };
}
