import * as vscode from "vscode";
import type { AgentSession, AgentSessionConfig } from "../core/agent/agent-session";
import { SessionError } from "../core/session/errors";
import type { SessionLocationOptions } from "../core/session/paths";
import { findMostRecentSession } from "../core/session/session-discovery";
import type { SessionChange, SessionManager } from "../core/session/session-manager";
import type { NavigateTreeOptions, NavigateTreeResult } from "../core/agent/tree-navigation";
import { sessionDirForCwd } from "../core/session/paths";
import { knownSessionFolders, type KnownSessionFolders } from "../core/session/session-file-check";
import { AgentSessionRuntime, type RuntimeStart, type SessionScopedExtensions } from "../core/runtime/agent-session-runtime";
import { ExtensionHost } from "../core/runtime/extension-host";
import { awaitedHandler, NESTED_REPLACEMENT_MESSAGE } from "../core/runtime/handler-scope";
import { RuntimeError } from "../core/runtime/runtime-errors";
import { DisposableStore } from "../core/util/disposable";
import { holdIndexWrites } from "../core/session/session-index";

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
  private shutdownPromise: Promise<void> | undefined;
  /** Per-session extension instances (Pi extension files); set by whoever loads them. */
  sessionExtensions: SessionScopedExtensions | undefined;

  constructor(
    private readonly location: () => SessionLocation,
    private readonly configure: (sm: SessionManager) => AgentSessionConfig | Promise<AgentSessionConfig>,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The sessions folders of the current location (commands that take a path act only inside them). */
  knownSessionFolders(): KnownSessionFolders {
    return knownSessionFolders(this.location());
  }

  get current(): SessionManager | undefined {
    return this.runtime?.session.sessionManager;
  }

  get session(): AgentSession | undefined {
    return this.runtime?.session;
  }

  get currentRuntime(): AgentSessionRuntime | undefined {
    return this.runtime;
  }

  /**
   * Runs replacements one at a time, in order. Refused at once when called from an extension
   * handler the current replacement waits for (queued behind it, it would wait forever).
   */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const inside = awaitedHandler();
    if (inside) return Promise.reject(new RuntimeError("nested-replacement", `${NESTED_REPLACEMENT_MESSAGE} (extension "${inside.extension}", in ${inside.event}).`));
    if (this.shutdownPromise) return Promise.reject(new SessionError("not-found", "Arbor is shutting down."));
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
    // The runtime calls rebind before session_start (at startup too), so handlers see the new session in the UI.
    await AgentSessionRuntime.start(target, {
      configureSession: (sm) => this.configure(sm),
      extensions: this.extensions,
      sessionExtensions: this.sessionExtensions,
      location: loc,
      rebind: (_session, runtime) => {
        this.runtime = runtime;
        this.bind();
      },
      onEnded: (error) => {
        // A replacement failed after the old session was shut down: show "no session", truthfully.
        this.log.error(error.message);
        this.runtime = undefined;
        this.bind();
      },
      onError: (error: Error) => this.log.error(error.message),
    });
  }

  /**
   * Opens a session file; if another Arbor window holds it, it opens as a live read-only view. A
   * session whose stored working folder is gone fails with MissingSessionCwdError (the caller may
   * retry with `cwdOverride`).
   */
  open(path: string, cwdOverride?: string): Promise<boolean> {
    const opened = this.serialize(async () => {
      if (this.current?.getSessionFile() === path && cwdOverride === undefined) return true;
      if (!this.runtime) {
        await this.start({ open: path, cwdOverride, fallbackCwd: this.location().cwd });
        return true;
      }
      return !(await this.runtime.switchSession(path, { cwdOverride })).cancelled;
    });
    // The reopen index of a session just read is saved after the session is set up and its tree
    // drawn (the tree holds index saves while it draws, see TreeViewProvider.showCurrent).
    holdIndexWrites(opened);
    return opened;
  }

  /**
   * Starts a new session for the workspace (written once it holds a reply, as Pi does). Also in
   * another workspace folder or sessions directory than the current session's, it is a switch
   * (session_before_switch "new", which may cancel; session_start carries previousSessionFile).
   */
  create(): Promise<boolean> {
    return this.serialize(async () => {
      const loc = this.location();
      const target = { cwd: loc.cwd, sessionDir: sessionDirForCwd(loc.cwd, loc) };
      if (!this.runtime) {
        await this.start({ create: loc.cwd, sessionDir: target.sessionDir });
        return true;
      }
      return !(await this.runtime.newSession({ target })).cancelled;
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

  /** Saves every entry of the current session, written or not, into a new session file, which becomes current. */
  saveAsNew(): Promise<ForkOutcome> {
    return this.serialize(async () => {
      const result = await this.requireRuntime().saveAsNew();
      return { cancelled: result.cancelled, file: this.current?.getSessionFile() };
    });
  }

  /**
   * Checks out an entry: tree navigation without a summary, as Pi's /tree does it
   * (session_before_tree may cancel or change it, session_tree follows; refused while a reply
   * runs). Persisted, so a reload resumes there.
   */
  checkout(entryId: string, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
    const session = this.session;
    if (!session) return Promise.reject(new SessionError("not-found", "No session is open: resume or start one from the Arbor view"));
    return session.navigateTree(entryId, options);
  }

  /**
   * Rebuilds the agent session (new settings, workspace trust), once nothing runs: a reply,
   * compaction or shell command is never stopped for it.
   */
  reloadWhenIdle(): Promise<void> {
    return this.serialize(async () => {
      for (;;) {
        const runtime = this.runtime;
        if (!runtime) return;
        await runtime.session.waitForIdle();
        try {
          await runtime.reload();
          return;
        } catch (error) {
          if (!(error instanceof RuntimeError && error.code === "busy")) throw error;
          // A shell command (or a new reply) was still running: wait for it and try again.
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    });
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

  /**
   * Ends the window's session for good (the window closes or reloads): session_shutdown ("quit")
   * reaches every handler, then the session file is flushed and closed. `deactivate` returns this
   * promise, so VS Code waits for it. Idempotent.
   */
  shutdown(): Promise<void> {
    if (!this.shutdownPromise) {
      // After whatever replacement is under way; later ones are refused.
      const work = async (): Promise<void> => {
        await this.disposeRuntime();
        this.extensions.dispose();
      };
      this.shutdownPromise = this.queue.then(work, work).catch((e: Error) => this.log.error(`shutting down: ${e.message}`));
    }
    return this.shutdownPromise;
  }

  /** VS Code disposes subscriptions after `deactivate`: the shutdown it awaited has run by then (or runs now). */
  dispose(): void {
    void this.shutdown().finally(() => {
      this.binding.dispose();
      this.sessionChanged.dispose();
      this.changed.dispose();
    });
  }
}
