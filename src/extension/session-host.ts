import * as vscode from "vscode";
import type { AgentSession, AgentSessionConfig } from "../core/agent/agent-session";
import { SessionError } from "../core/session/errors";
import type { SessionLocationOptions } from "../core/session/paths";
import { findMostRecentSession } from "../core/session/session-discovery";
import type { CheckoutResult, SessionChange, SessionManager } from "../core/session/session-manager";
import { sessionDirForCwd } from "../core/session/paths";
import { AgentSessionRuntime, type RuntimeStart } from "../core/runtime/agent-session-runtime";
import { ExtensionHost } from "../core/runtime/extension-host";
import { DisposableStore } from "../core/util/disposable";

/** Where the extension looks for sessions, from settings and the workspace. */
export interface SessionLocation extends SessionLocationOptions {
  cwd: string;
  indexDir: string;
}

/** The outcome of a fork or clone: the new file, and text taken back for editing. */
export interface ForkOutcome {
  cancelled: boolean;
  file: string | undefined;
  editText?: string;
}

/**
 * Owns this window's AgentSessionRuntime (created with the first session) and tells every surface
 * when its session is replaced, so they rebind and nothing keeps the old one. Replacements go
 * through the runtime, in its fixed order, so extension contexts of the old session go stale.
 */
export class SessionHost implements vscode.Disposable {
  private readonly sessionChanged = new vscode.EventEmitter<SessionManager | undefined>();
  /** The current session was replaced (or closed). */
  readonly onDidChangeSession = this.sessionChanged.event;
  private readonly changed = new vscode.EventEmitter<SessionChange>();
  /** Something changed in the current session. */
  readonly onDidChange = this.changed.event;
  /** Session extensions registered through the exported API; shared by every runtime of this window. */
  readonly extensions = new ExtensionHost();

  private runtime: AgentSessionRuntime | undefined;
  private readonly binding = new DisposableStore();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly location: () => SessionLocation,
    private readonly configure: (sm: SessionManager) => AgentSessionConfig | Promise<AgentSessionConfig>,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get current(): SessionManager | undefined {
    return this.runtime?.session.sessionManager;
  }

  get session(): AgentSession | undefined {
    return this.runtime?.session;
  }

  get currentRuntime(): AgentSessionRuntime | undefined {
    return this.runtime;
  }

  /** Runs replacements one at a time, in order. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Subscribes to the runtime's current session and tells the surfaces. */
  private bind(): void {
    this.binding.clear();
    const sm = this.current;
    if (sm) {
      this.binding.add(sm.onDidChange((c) => this.onChange(c)));
      this.binding.add(sm.startLiveTail());
      const ro = sm.getReadOnlyReason();
      this.log.info(`session ${sm.getSessionFile() ?? "(not saved yet)"} open${ro ? `, read-only: ${ro}` : ""}`);
    }
    this.sessionChanged.fire(sm);
  }

  private onChange(change: SessionChange): void {
    if (change.kind === "error") this.log.error(change.error.message);
    if (change.kind === "read-only") this.log.warn(change.reason);
    this.changed.fire(change);
  }

  private async start(target: RuntimeStart): Promise<void> {
    const loc = this.location();
    this.runtime = await AgentSessionRuntime.start(target, {
      configureSession: (sm) => this.configure(sm),
      extensions: this.extensions,
      location: loc,
      rebind: () => this.bind(),
      onError: (error: Error) => this.log.error(error.message),
    });
    this.bind();
  }

  /**
   * Opens a session file; if another Arbor window holds it, it opens as a live read-only view. A
   * session whose stored working folder is gone fails with MissingSessionCwdError (the caller may
   * retry with `cwdOverride`).
   */
  open(path: string, cwdOverride?: string): Promise<boolean> {
    return this.serialize(async () => {
      if (this.current?.getSessionFile() === path && cwdOverride === undefined) return true;
      if (!this.runtime) {
        await this.start({ open: path, cwdOverride, fallbackCwd: this.location().cwd });
        return true;
      }
      return !(await this.runtime.switchSession(path, { cwdOverride })).cancelled;
    });
  }

  /** Starts a new session for the workspace (written once it holds a reply, as Pi does). */
  create(): Promise<boolean> {
    return this.serialize(async () => {
      const loc = this.location();
      const current = this.current;
      const sameFolder = current?.isPersisted() && current.getCwd() === loc.cwd && current.getSessionDir() === sessionDirForCwd(loc.cwd, loc);
      if (this.runtime && sameFolder) return !(await this.runtime.newSession()).cancelled;
      // A new session in another workspace than the current one: end this runtime, start afresh.
      await this.disposeRuntime();
      await this.start({ create: loc.cwd });
      return true;
    });
  }

  /** The workspace's newest session, or a new one. */
  async continueRecent(): Promise<boolean> {
    const loc = this.location();
    const recent = await findMostRecentSession(sessionDirForCwd(loc.cwd, loc));
    return recent ? this.open(recent) : this.create();
  }

  /**
   * Forks the current session into a new file: `before` a user message ends the new path at its
   * parent and returns the message's text for editing; `at` keeps the entry.
   */
  fork(entryId: string, position: "before" | "at"): Promise<ForkOutcome> {
    return this.serialize(async () => {
      const runtime = this.requireRuntime();
      const result = await runtime.fork(entryId, { position });
      return { cancelled: result.cancelled, file: this.current?.getSessionFile(), editText: result.selectedText };
    });
  }

  /** Forks the current session at its leaf. */
  clone(): Promise<ForkOutcome> {
    return this.serialize(async () => {
      const result = await this.requireRuntime().clone();
      return { cancelled: result.cancelled, file: this.current?.getSessionFile() };
    });
  }

  /** Checks out an entry (Pi's semantics; persisted so a reload resumes there). */
  checkout(entryId: string): CheckoutResult {
    const sm = this.current;
    if (!sm) throw new SessionError("not-found", "No session is open: resume or start one from the Arbor view");
    return sm.checkout(entryId);
  }

  /** Closes the current session, if any. */
  close(): Promise<void> {
    return this.serialize(async () => {
      await this.disposeRuntime();
      this.bind();
    });
  }

  private async disposeRuntime(): Promise<void> {
    const runtime = this.runtime;
    this.runtime = undefined;
    this.binding.clear();
    if (runtime) await runtime.dispose().catch((e: Error) => this.log.error(`closing the session: ${e.message}`));
  }

  private requireRuntime(): AgentSessionRuntime {
    if (!this.runtime) throw new SessionError("not-found", "No session is open: resume or start one from the Arbor view");
    return this.runtime;
  }

  dispose(): void {
    this.binding.dispose();
    void this.runtime?.dispose().catch(() => undefined);
    this.runtime = undefined;
    this.extensions.dispose();
    this.sessionChanged.dispose();
    this.changed.dispose();
  }
}
