import * as vscode from "vscode";
import { SessionError } from "../core/session/errors";
import { SessionManager, type CheckoutResult, type SessionChange } from "../core/session/session-manager";
import type { SessionLocationOptions } from "../core/session/paths";
import { DisposableStore } from "../core/util/disposable";

/** Where the extension looks for sessions, from settings and the workspace. */
export interface SessionLocation extends SessionLocationOptions {
  cwd: string;
  indexDir: string;
}

/**
 * Owns the current session of this window. Every surface binds to it through its events, so a
 * replacement (resume, new, fork, clone) rebinds them all and nothing keeps the old session.
 */
export class SessionHost implements vscode.Disposable {
  private readonly sessionChanged = new vscode.EventEmitter<SessionManager | undefined>();
  /** The current session was replaced (or closed). */
  readonly onDidChangeSession = this.sessionChanged.event;
  private readonly changed = new vscode.EventEmitter<SessionChange>();
  /** Something changed in the current session. */
  readonly onDidChange = this.changed.event;

  private manager: SessionManager | undefined;
  private readonly binding = new DisposableStore();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly location: () => SessionLocation,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get current(): SessionManager | undefined {
    return this.manager;
  }

  /** Runs replacements one at a time, in order. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Makes `next` the current session: the old one is closed first, then every surface rebinds. */
  private async replace(next: SessionManager | undefined): Promise<void> {
    const old = this.manager;
    this.binding.clear();
    this.manager = undefined;
    if (old && old !== next) await old.close().catch((e: Error) => this.log.error(`closing ${old.getSessionFile()}: ${e.message}`));
    this.manager = next;
    if (next) {
      this.binding.add(next.onDidChange((c) => this.onChange(c)));
      this.binding.add(next.startLiveTail());
      const ro = next.getReadOnlyReason();
      this.log.info(`session ${next.getSessionFile() ?? "(new)"} opened${ro ? ` read-only: ${ro}` : ""}`);
    }
    this.sessionChanged.fire(next);
  }

  private onChange(change: SessionChange): void {
    if (change.kind === "error") this.log.error(change.error.message);
    if (change.kind === "read-only") this.log.warn(change.reason);
    this.changed.fire(change);
  }

  /** Opens a session file; if another Arbor window holds it, it opens as a live read-only view. */
  open(path: string): Promise<SessionManager> {
    return this.serialize(async () => {
      if (this.manager?.getSessionFile() === path) return this.manager;
      const loc = this.location();
      const next = await SessionManager.open(path, { ...loc, whenLocked: "read-only" });
      await this.replace(next);
      return next;
    });
  }

  /** Starts a new session for the workspace (written once it holds a reply, as Pi does). */
  create(): Promise<SessionManager> {
    return this.serialize(async () => {
      const loc = this.location();
      const next = await SessionManager.create(loc.cwd, loc);
      await this.replace(next);
      return next;
    });
  }

  /** The workspace's newest session, or a new one. */
  continueRecent(): Promise<SessionManager> {
    return this.serialize(async () => {
      const loc = this.location();
      const next = await SessionManager.continueRecent(loc.cwd, { ...loc, whenLocked: "read-only" });
      await this.replace(next);
      return next;
    });
  }

  /**
   * Forks the current session into a new file. `before` a user message ends the new path at its
   * parent and returns the message's text for editing; `at` keeps the entry.
   */
  fork(entryId: string, position: "before" | "at"): Promise<{ file: string | undefined; editText?: string }> {
    return this.serialize(async () => {
      const current = this.require();
      const summary = current.getSummary(entryId);
      if (!summary) throw new SessionError("unknown-entry", `No entry with id ${entryId} in this session`);
      let leaf: string | null = entryId;
      let editText: string | undefined;
      if (position === "before" && (summary.role === "user" || summary.type === "custom_message")) {
        const entry = current.getEntry(entryId)!;
        const content = entry.type === "message" && entry.message.role === "user" ? entry.message.content : entry.type === "custom_message" ? entry.content : "";
        editText = typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
        leaf = summary.parentId;
      }
      const next = await SessionManager.branchFrom(current, leaf);
      await this.replace(next);
      this.log.info(`forked ${current.getSessionFile() ?? "(unsaved)"} at ${leaf ?? "(before the root)"} into ${next.getSessionFile() ?? "(memory)"}`);
      return editText === undefined ? { file: next.getSessionFile() } : { file: next.getSessionFile(), editText };
    });
  }

  /** Forks the current session at its leaf. */
  clone(): Promise<{ file: string | undefined }> {
    const leaf = this.require().getLeafId();
    if (leaf === null) return this.create().then((sm) => ({ file: sm.getSessionFile() }));
    return this.fork(leaf, "at");
  }

  /** Checks out an entry (Pi's semantics; persisted so a reload resumes there). */
  checkout(entryId: string): CheckoutResult {
    return this.require().checkout(entryId);
  }

  /** Closes the current session, if any. */
  close(): Promise<void> {
    return this.serialize(() => this.replace(undefined));
  }

  private require(): SessionManager {
    if (!this.manager) throw new SessionError("not-found", "No session is open: resume or start one from the Arbor view");
    return this.manager;
  }

  dispose(): void {
    this.binding.dispose();
    this.manager?.dispose();
    this.manager = undefined;
    this.sessionChanged.dispose();
    this.changed.dispose();
  }
}
