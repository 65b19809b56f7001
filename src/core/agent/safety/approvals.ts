/**
 * What the user approves before the agent acts, as pure rules: which tool calls need an approval,
 * which the user's auto-approve setting covers, and what "Allow for this session" remembers.
 * The host asks (in VS Code, a modal dialog); the core never learns how.
 */
import { resolve } from "node:path";
import type { ToolCall } from "../../session/types";
import { isInside, realOrNearest } from "../tools/paths";
import { insideAnyRoot, resolveToolPath } from "../tools/readable-paths";
import type { AgentTool } from "../tools/tool";
import { DEFAULT_PROTECTED_PATTERNS, protectedPathsInCommand, protectedPatternOf, resolveLinks } from "./protected-paths";

/** Something the agent is about to do that the user decides on. */
export type ApprovalRequest =
  /**
   * A shell command from the model (the bash tool). `protectedPaths`: the protected files it names
   * (real paths), when it names any; such a command always asks (see protected-paths).
   */
  | { kind: "command"; toolName: string; toolCallId: string; command: string; cwd: string; protectedPaths?: readonly string[] }
  /** A read (read, grep, find, ls) of a path outside the session's folder, the workspace's folders and the host's readable roots. */
  | { kind: "outside-read"; toolName: string; toolCallId: string; requested: string; path: string; cwd: string; workspaceFolders: readonly string[] }
  /** A write or edit whose target lies outside every workspace folder. */
  | { kind: "outside-write"; toolName: string; toolCallId: string; requested: string; path: string; cwd: string; workspaceFolders: readonly string[] }
  /**
   * A write or edit of a protected file (its real path, and the pattern that protects it), inside
   * the workspace or not: always asked, whatever the auto-approve setting says.
   */
  | { kind: "protected-write"; toolName: string; toolCallId: string; requested: string; path: string; pattern: string; outside: boolean; cwd: string; workspaceFolders: readonly string[] }
  /**
   * The session's working folder is not in the open workspace: may its tools run there at all? Asked
   * once. `extensions`: the project extension files found in its `.pi/extensions/`, which load
   * only after a yes.
   */
  | { kind: "working-folder"; cwd: string; workspaceFolders: readonly string[]; extensions?: readonly string[] };

/** The user's answer: this time only, for the rest of this session, or no. */
export type ApprovalAnswer = "once" | "session" | "deny";

/**
 * The auto-approve setting: "never" asks every time; "commands" runs bash commands (and reads outside
 * the workspace, which a command could make anyway) without asking; "always" also writes outside the
 * workspace without asking. A session folder outside the workspace is asked about whatever the setting
 * says: it decides where everything else happens. So are writes of protected files and commands that
 * name one.
 */
export type AutoApprove = "never" | "commands" | "always";

export const AUTO_APPROVE_VALUES: readonly AutoApprove[] = ["never", "commands", "always"];

/** The text of a command the user approves: what the shell will run, exactly. */
function commandText(args: Record<string, unknown>): string {
  return typeof args.command === "string" ? args.command : JSON.stringify(args);
}

/** Whether `path` (absolute) lies in one of the folders, links resolved on both sides. */
export function isInsideFolders(path: string, folders: readonly string[]): boolean {
  const target = realOrNearest(path);
  return folders.some((folder) => {
    const root = resolve(folder);
    return isInside(realOrNearest(root), target) || isInside(root, resolve(path));
  });
}

/**
 * The approval a tool call needs before it runs, or undefined when it needs none: shell tools
 * always ask (and name the protected files a command names); file-writing tools ask when the file
 * they write is protected (`protectedPatterns`, default DEFAULT_PROTECTED_PATTERNS) or lies outside
 * the workspace folders (by default the session's folder is the workspace); reading tools ask when
 * what they read lies outside the session's folder, the workspace folders and `readableRoots`; other
 * tools never ask.
 */
export function approvalRequestFor(
  tool: AgentTool,
  call: ToolCall,
  cwd: string,
  workspaceFolders: readonly string[] | undefined,
  protectedPatterns: readonly string[] = DEFAULT_PROTECTED_PATTERNS,
  readableRoots: readonly string[] = [],
): ApprovalRequest | undefined {
  const args = call.arguments ?? {};
  if (tool.runsShell) {
    const command = commandText(args);
    const request: ApprovalRequest = { kind: "command", toolName: call.name, toolCallId: call.id, command, cwd };
    const named = protectedPathsInCommand(command, cwd, protectedPatterns);
    return named.length > 0 ? { ...request, protectedPaths: named } : request;
  }
  const read = tool.readsPath?.(args);
  if (read !== undefined && read.trim() !== "") {
    const folders = workspaceFolders ?? [cwd];
    // Judged by where the path really leads, as the tool judges what it opened: a link inside that leads out asks.
    const real = realOrNearest(resolveToolPath(cwd, read));
    if (insideAnyRoot(real, [cwd, ...folders, ...readableRoots])) return undefined;
    return { kind: "outside-read", toolName: call.name, toolCallId: call.id, requested: read, path: real, cwd, workspaceFolders: folders };
  }
  const requested = tool.writesFile?.(args);
  if (requested === undefined || requested.trim() === "") return undefined;
  const folders = workspaceFolders ?? [cwd];
  const path = resolve(cwd, requested);
  const outside = !isInsideFolders(path, folders);
  const pattern = protectedPatternOf(path, protectedPatterns);
  if (pattern !== undefined) {
    return { kind: "protected-write", toolName: call.name, toolCallId: call.id, requested, path: resolveLinks(path), pattern, outside, cwd, workspaceFolders: folders };
  }
  if (!outside) return undefined;
  return { kind: "outside-write", toolName: call.name, toolCallId: call.id, requested, path: realOrNearest(path), cwd, workspaceFolders: folders };
}

/** Whether the auto-approve setting lets this request through without asking. */
export function isAutoApproved(setting: AutoApprove | undefined, request: ApprovalRequest): boolean {
  switch (request.kind) {
    case "command":
      return (setting === "commands" || setting === "always") && (request.protectedPaths ?? []).length === 0;
    case "outside-read":
      return setting === "commands" || setting === "always";
    case "outside-write":
      return setting === "always";
    case "protected-write":
    case "working-folder":
      return false;
  }
}

/**
 * What "Allow for this session" covers: every later command, every later read outside the workspace,
 * or every later write outside the workspace, for the rest of the session. A protected file is granted
 * by itself: its grant covers later writes of that file only (never other protected files, never by the
 * kind), and a command that names protected files runs without asking only once each of them was
 * granted and commands are let through (by a session grant or the auto-approve setting). The grants
 * live with one agent session, so a session replacement or reload drops them.
 */
export class SessionApprovals {
  private readonly kinds = new Set<ApprovalRequest["kind"]>();
  private readonly paths = new Set<string>();

  /** `setting`: the auto-approve setting, which lets a command that names only granted paths through. */
  covers(request: ApprovalRequest, setting?: AutoApprove): boolean {
    switch (request.kind) {
      case "command": {
        const named = request.protectedPaths ?? [];
        if (named.length === 0) return this.kinds.has("command");
        const commands = this.kinds.has("command") || setting === "commands" || setting === "always";
        return commands && named.every((path) => this.paths.has(path));
      }
      case "protected-write":
        return this.paths.has(request.path);
      default:
        return this.kinds.has(request.kind);
    }
  }

  remember(request: ApprovalRequest): void {
    if (request.kind === "protected-write") {
      this.paths.add(request.path);
      return;
    }
    this.kinds.add(request.kind);
    if (request.kind === "command") for (const path of request.protectedPaths ?? []) this.paths.add(path);
  }

  clear(): void {
    this.kinds.clear();
    this.paths.clear();
  }
}

/** The result text the model reads when the user said no (or could not be asked). */
export function deniedMessage(request: ApprovalRequest, asked: boolean): string {
  const who = asked ? "The user denied" : "No one could be asked to approve";
  switch (request.kind) {
    case "command":
      return `${who} this command, so it did not run. Do not try to reach the same result another way; ask the user how to proceed.`;
    case "outside-read":
      return `${who} this ${request.toolName} of ${request.path}, which is outside the session's folder and the workspace, so nothing was read. Ask the user for what you need from it, or work inside the workspace.`;
    case "outside-write":
      return `${who} this ${request.toolName} of ${request.path}, which is outside the workspace, so nothing was written.`;
    case "protected-write":
      return `${who} this ${request.toolName} of ${request.path}, a protected file (${request.pattern}), so nothing was written.`;
    case "working-folder":
      return `${who} running tools in this session's folder (${request.cwd}), which is not part of the open workspace, so nothing was run.`;
  }
}
