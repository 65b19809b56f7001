/**
 * The safety rules between the model's tool calls (and `!cmd`) and the machine: what is offered
 * and refused under the host's restrictions (Restricted Mode), whether the session's folder is
 * usable and allowed, and the user's approval of commands and of writes outside the workspace.
 */
import type { SessionHeader, ToolCall } from "../../session/types";
import type { AgentSessionEvent } from "../events";
import { SHELL_DISABLED_MESSAGE, WRITES_DISABLED_MESSAGE } from "../errors";
import type { AgentTool } from "../tools/tool";
import {
  approvalRequestFor,
  deniedMessage,
  isAutoApproved,
  SessionApprovals,
  type ApprovalAnswer,
  type ApprovalRequest,
} from "./approvals";
import type { ToolPolicy } from "./tool-policy";
import { workingFolderState, type WorkingFolderState } from "./working-folder";

/** What the agent may do in this session, and why not, for the chat to show. */
export interface ToolRestrictions {
  /** Shell commands (`!cmd`, the bash tool) can run. */
  shell: boolean;
  /** Files can be changed (write, edit, and any tool not marked read-only). */
  writes: boolean;
  /** Tools can run at all (false when the session has no usable working folder). */
  reads: boolean;
  /** Why something is off, in one or two sentences for the user. */
  reason?: string;
  /** The session's folder when it lies outside the open workspace: tools ask once before running there. */
  foreignFolder?: string;
}

/** What admitting a tool call decided: a refusal, or where its reading tools may look. */
export type Admission = { refusal: Refusal; readableRoots?: undefined } | { refusal?: undefined; readableRoots: readonly string[] };

/** Why a call does not run: the text its result carries. */
export interface Refusal {
  text: string;
  /** Stopped by the user while waiting for an answer. */
  cancelled?: boolean;
}

export interface ToolGuardOptions {
  session: { getHeader(): SessionHeader; getCwd(): string };
  policy: () => ToolPolicy;
  /** Folders the session itself lets its reading tools reach without asking (the loaded skills' folders). */
  readableRoots?: () => readonly string[];
  allowShell: boolean;
  allowWrites: boolean;
  /** The host's words for why shell or writes are off (e.g. Restricted Mode). */
  restrictionReason?: string;
  emit: (event: AgentSessionEvent) => void;
}

/** Said when the host allows neither commands nor writes and gave no reason of its own. */
export const READ_ONLY_REASON =
  "This workspace is not trusted (Restricted Mode): the agent can read files but cannot run commands or change files. Trust the workspace to lift this.";

export class ToolGuard {
  private readonly grants = new SessionApprovals();
  /** The user allowed tools in a folder outside the workspace, for this session. */
  private folderAllowed = false;
  /** The user refused that folder during the current prompt: later calls of the prompt are refused without asking. */
  private folderDenied = false;
  private folderQuestion: Promise<Refusal | undefined> | undefined;

  constructor(private readonly options: ToolGuardOptions) {}

  private get policy(): ToolPolicy {
    return this.options.policy();
  }

  folder(): WorkingFolderState {
    const s = this.options.session;
    return workingFolderState((s.getHeader() as { cwd?: unknown }).cwd, s.getCwd(), this.policy.workspaceFolders);
  }

  restrictions(): ToolRestrictions {
    const folder = this.folder();
    if (folder.kind === "invalid") return { shell: false, writes: false, reads: false, reason: folder.message };
    const { allowShell: shell, allowWrites: writes } = this.options;
    const result: ToolRestrictions = { shell, writes, reads: true };
    if (!shell || !writes) {
      result.reason = this.options.restrictionReason ?? (!shell && !writes ? READ_ONLY_REASON : !shell ? SHELL_DISABLED_MESSAGE : WRITES_DISABLED_MESSAGE);
    }
    if (folder.kind === "foreign" && !this.folderAllowed) result.foreignFolder = folder.cwd;
    return result;
  }

  /** Whether the model is offered the tool at all. */
  offers(tool: AgentTool): boolean {
    return this.refusalOf(tool) === undefined;
  }

  /** Why the tool cannot run here whatever the user says, or undefined. */
  refusalOf(tool: AgentTool): string | undefined {
    const folder = this.folder();
    if (folder.kind === "invalid") return folder.message;
    if (tool.runsShell && !this.options.allowShell) return SHELL_DISABLED_MESSAGE;
    if (!this.options.allowWrites && !tool.readOnly) {
      return tool.writesFile ? WRITES_DISABLED_MESSAGE : `The tool "${tool.definition.name}" is not marked read-only, and file changes are disabled here. ${WRITES_DISABLED_MESSAGE}`;
    }
    return undefined;
  }

  /** A new prompt starts: a folder refused during the last one is asked about again. */
  beginRun(): void {
    this.folderDenied = false;
  }

  /**
   * Before a tool call runs: the session's folder must be allowed, and the call approved when it
   * needs it. A refusal stops it; otherwise `readableRoots` are the folders its reading tools may
   * reach besides the session's folder (the workspace, the host's roots, and an outside path just allowed).
   */
  async admitCall(tool: AgentTool, call: ToolCall, signal: AbortSignal): Promise<Admission> {
    const folder = await this.admitFolder(signal);
    if (folder) return { refusal: folder };
    const policy = this.policy;
    const cwd = this.options.session.getCwd();
    const roots = [...(policy.workspaceFolders ?? []), ...(policy.readableRoots?.() ?? []), ...(this.options.readableRoots?.() ?? [])];
    const request = approvalRequestFor(tool, call, cwd, policy.workspaceFolders, policy.protectedPaths, roots);
    const refusal = request ? await this.decide(request, signal) : undefined;
    if (refusal) return { refusal };
    return { readableRoots: request?.kind === "outside-read" ? [...roots, request.path] : roots };
  }

  /**
   * Before anything runs in the session's folder (a tool call, `!cmd`, the folder's own extensions,
   * `pi.exec`): refuses a session without a usable folder, and asks once about a folder outside the
   * workspace. `extensions`: the folder's project extension files, named in the question.
   */
  admitFolder(signal: AbortSignal, extensions?: readonly string[]): Promise<Refusal | undefined> {
    const folder = this.folder();
    if (folder.kind === "invalid") return Promise.resolve({ text: folder.message });
    if (folder.kind === "ok" || this.folderAllowed) return Promise.resolve(undefined);
    const request: ApprovalRequest = { kind: "working-folder", cwd: folder.cwd, workspaceFolders: folder.workspaceFolders, ...(extensions?.length ? { extensions } : {}) };
    if (this.folderDenied) return Promise.resolve({ text: deniedMessage(request, true) });
    // One question at a time: a tool call and a `!cmd` asking together share the answer.
    this.folderQuestion ??= this.decide(request, signal).finally(() => (this.folderQuestion = undefined));
    return this.folderQuestion;
  }

  private async decide(request: ApprovalRequest, signal: AbortSignal): Promise<Refusal | undefined> {
    const policy = this.policy;
    const emit = this.options.emit;
    if (isAutoApproved(policy.autoApprove, request)) {
      emit({ type: "approval_resolved", request, answer: "once", by: "auto-approve" });
      return undefined;
    }
    if (this.grants.covers(request, policy.autoApprove)) {
      emit({ type: "approval_resolved", request, answer: "session", by: "session-grant" });
      return undefined;
    }
    if (!policy.approve) {
      emit({ type: "approval_resolved", request, answer: "deny", by: "unavailable" });
      return { text: deniedMessage(request, false) };
    }
    emit({ type: "approval_requested", request });
    const answer = await askUntilAborted(() => policy.approve!(request, signal), signal);
    if (answer === "aborted") return { text: "", cancelled: true };
    emit({ type: "approval_resolved", request, answer, by: "user" });
    if (answer === "deny") {
      if (request.kind === "working-folder") this.folderDenied = true;
      return { text: deniedMessage(request, true) };
    }
    if (request.kind === "working-folder") {
      if (answer === "session") this.folderAllowed = true;
    } else if (answer === "session") {
      this.grants.remember(request);
    }
    return undefined;
  }
}

/** The host's answer, or "aborted" as soon as the run is stopped; a host that fails counts as a denial. */
async function askUntilAborted(ask: () => ApprovalAnswer | Promise<ApprovalAnswer>, signal: AbortSignal): Promise<ApprovalAnswer | "aborted"> {
  if (signal.aborted) return "aborted";
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const answer = await Promise.race([Promise.resolve().then(ask).catch((): ApprovalAnswer => "deny"), aborted]);
    return answer === "once" || answer === "session" || answer === "aborted" ? answer : "deny";
  } finally {
    signal.removeEventListener("abort", onAbort!);
  }
}
