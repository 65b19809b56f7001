import { editableText } from "../session/entry-text";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { AgentSession, type AgentSessionConfig } from "../agent/agent-session";
import type { AgentSessionHooks } from "../agent/hooks";
import { sessionDirForCwd, type SessionLocationOptions } from "../session/paths";
import { SessionManager } from "../session/session-manager";
import type { WriterLockOptions } from "../session/writer-lock";
import type { ExtensionContext, SessionEventMap, SessionShutdownReason, SessionStartReason } from "./extension-api";
import { SessionBinding } from "./extension-context";
import { ExtensionHost } from "./extension-host";
import { chooseImportDestination, copyForImport } from "./import-destination";
import { assertSessionCwdExists, RuntimeError } from "./runtime-errors";

export interface RuntimeOptions {
  /** The host's settings for each new agent session (providers, tools, policy). Called once per session. */
  configureSession?: (sessionManager: SessionManager) => AgentSessionConfig | Promise<AgentSessionConfig>;
  /** Shared across replacements; default: a fresh one. */
  extensions?: ExtensionHost;
  /** Called after every replacement so front ends re-subscribe to the new session (not at startup). */
  rebind?: (session: AgentSession) => void | Promise<void>;
  /** Where sessions go when the current one lives in memory. */
  location?: SessionLocationOptions;
  lock?: WriterLockOptions;
  /**
   * Failures that do not stop a replacement once the old session is shut down (e.g. the old file's
   * last writes failing as it is closed). Default: logged to the console.
   */
  onError?: (error: Error) => void;
}

/** The session a runtime starts with. */
export type RuntimeStart =
  | { sessionManager: SessionManager }
  | { open: string; cwdOverride?: string; fallbackCwd?: string }
  | { create: string }
  | { continueRecent: string };

export interface ReplaceOptions {
  /** Runs last, with a context bound to the new session: the place for follow-up work. */
  withSession?: (context: ExtensionContext) => void | Promise<void>;
}

/** `cancelled: true` means a before-handler cancelled and nothing changed. */
export interface ReplaceResult {
  cancelled: boolean;
}

export interface ForkResult extends ReplaceResult {
  /** For a fork before a user message: its text, to put back in the input box. */
  selectedText?: string;
}

/** How a replacement gets its next session manager (step 2). */
type TargetPlan = { kind: "ready"; sm: SessionManager } | { kind: "reopen"; file: string; cwdOverride?: string };

interface ReplacePlan {
  before?: () => Promise<boolean>;
  target: () => Promise<TargetPlan>;
  shutdown: SessionShutdownReason;
  start: SessionStartReason;
  withSession?: ReplaceOptions["withSession"];
}

/**
 * Owns the current AgentSession and replaces it (switch, new, fork, clone, import, reload) in one
 * fixed order: (1) the cancellable before-event; (2) open or create the target; (3) session_shutdown;
 * (4) dispose the old agent session; (5) invalidate every extension context bound to it; (6) build
 * the new session; (7) session_start; (8) the host's rebind callback; (9) `withSession` with a fresh
 * context. A cancel returns `{cancelled: true}` with nothing changed; replacements run one at a time.
 */
export class AgentSessionRuntime {
  readonly extensions: ExtensionHost;
  private binding!: SessionBinding;
  private chain: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(private readonly options: RuntimeOptions) {
    this.extensions = options.extensions ?? new ExtensionHost();
  }

  /** Opens or creates the first session and emits session_start ("startup"). */
  static async start(target: RuntimeStart, options: RuntimeOptions = {}): Promise<AgentSessionRuntime> {
    const runtime = new AgentSessionRuntime(options);
    const sm = await runtime.initialManager(target);
    try {
      await runtime.install(sm, "startup", undefined);
    } catch (error) {
      if (!("sessionManager" in target)) await sm.close().catch(() => undefined);
      throw error;
    }
    return runtime;
  }

  private async initialManager(target: RuntimeStart): Promise<SessionManager> {
    const lock = this.options.lock;
    if ("sessionManager" in target) return target.sessionManager;
    if ("create" in target) return SessionManager.create(target.create, { ...this.options.location, lock });
    if ("continueRecent" in target) return SessionManager.continueRecent(target.continueRecent, { ...this.options.location, whenLocked: "read-only", lock });
    const sm = await SessionManager.open(target.open, { cwdOverride: target.cwdOverride, whenLocked: "read-only", lock });
    return this.checkedCwd(sm, target.fallbackCwd ?? process.cwd());
  }

  /** The current agent session. */
  get session(): AgentSession {
    return this.binding.session;
  }

  get cwd(): string {
    return this.session.sessionManager.getCwd();
  }

  /** A context bound to the current session; it goes stale at the next replacement. */
  createContext(): ExtensionContext {
    this.assertLive();
    return this.binding.createContext();
  }

  /** Opens another session file (before-event: session_before_switch, reason "resume"). */
  switchSession(path: string, options: ReplaceOptions & { cwdOverride?: string } = {}): Promise<ReplaceResult> {
    const file = resolve(path);
    return this.replace({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "resume", targetSessionFile: file }),
      target: () => this.openPlan(file, options.cwdOverride),
      shutdown: "resume",
      start: "resume",
      withSession: options.withSession,
    });
  }

  /** Starts a new, empty session in the same cwd and folder (before-event: session_before_switch, reason "new"). */
  newSession(options: ReplaceOptions = {}): Promise<ReplaceResult> {
    return this.replace({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "new" }),
      target: async () => {
        const current = this.session.sessionManager;
        if (!current.isPersisted()) return { kind: "ready", sm: SessionManager.inMemory(current.getCwd()) };
        return { kind: "ready", sm: await SessionManager.create(current.getCwd(), { sessionDir: current.getSessionDir(), lock: this.options.lock }) };
      },
      shutdown: "new",
      start: "new",
      withSession: options.withSession,
    });
  }

  /**
   * A new session file holding the path up to an entry: "before" a user message (its text comes back
   * for editing) or "at" any entry (before-event: session_before_fork).
   */
  async fork(entryId: string, options: ReplaceOptions & { position?: "before" | "at" } = {}): Promise<ForkResult> {
    this.assertLive();
    const position = options.position ?? "before";
    const source = this.session.sessionManager;
    const entry = source.getEntry(entryId);
    if (!entry) throw new RuntimeError("invalid-fork-target", `There is no entry ${entryId} in this session.`);
    let leafId: string | null = entry.id;
    let selectedText: string | undefined;
    if (position === "before") {
      if (entry.type !== "message" || entry.message.role !== "user") {
        throw new RuntimeError("invalid-fork-target", "Forking before an entry needs a user message; fork at the entry instead.");
      }
      leafId = entry.parentId !== null && source.hasEntry(entry.parentId) ? entry.parentId : null;
      selectedText = editableText(entry.message.content);
    }
    const result = await this.replace({
      before: () => this.cancelledBy("session_before_fork", { type: "session_before_fork", entryId, position }),
      target: async () => ({ kind: "ready", sm: await SessionManager.branchFrom(source, leafId, { sessionDir: source.getSessionDir(), lock: this.options.lock }) }),
      shutdown: "fork",
      start: "fork",
      withSession: options.withSession,
    });
    return result.cancelled || selectedText === undefined ? result : { ...result, selectedText };
  }

  /** A new session holding the current path: a fork at the leaf. */
  clone(options: ReplaceOptions = {}): Promise<ForkResult> {
    this.assertLive();
    const leaf = this.session.sessionManager.getLeafId();
    if (leaf === null) return Promise.reject(new RuntimeError("nothing-to-fork", "The session is empty: there is nothing to clone yet."));
    return this.fork(leaf, { ...options, position: "at" });
  }

  /**
   * Copies a session file into the current sessions folder (never overwriting another session) and
   * opens it (before-event: session_before_switch, reason "resume").
   */
  async importFromJsonl(path: string, options: ReplaceOptions & { cwdOverride?: string } = {}): Promise<ReplaceResult> {
    this.assertLive();
    const source = resolve(path);
    if (!existsSync(source)) throw new RuntimeError("import-not-found", `The file to import does not exist: ${source}`);
    const current = this.session.sessionManager;
    const dir = current.isPersisted() ? current.getSessionDir() : sessionDirForCwd(current.getCwd(), this.options.location);
    const destination = await chooseImportDestination(source, dir);
    return this.replace({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "resume", targetSessionFile: destination }),
      target: async () => {
        await copyForImport(source, destination);
        return this.openPlan(destination, options.cwdOverride);
      },
      shutdown: "resume",
      start: "resume",
      withSession: options.withSession,
    });
  }

  /** Rebuilds the agent session over the same session, re-read from its file (session_start reason "reload"). */
  reload(options: ReplaceOptions = {}): Promise<ReplaceResult> {
    return this.replace({
      target: async () => {
        const sm = this.session.sessionManager;
        const file = sm.getSessionFile();
        if (!sm.isPersisted() || !file || !existsSync(file)) return { kind: "ready", sm };
        return { kind: "reopen", file, cwdOverride: sm.getCwd() };
      },
      shutdown: "reload",
      start: "reload",
      withSession: options.withSession,
    });
  }

  /** Ends the runtime: session_shutdown ("quit"), then the session is disposed, its contexts invalidated and its file closed. */
  dispose(): Promise<void> {
    return this.serialize(async () => {
      if (this.disposed) return;
      this.disposed = true;
      await this.emitWith("session_shutdown", { type: "session_shutdown", reason: "quit" });
      await this.session.close();
      this.binding.invalidate();
      await this.session.sessionManager.close();
    });
  }

  // ---------------------------------------------------------------- the replacement sequence

  private replace(plan: ReplacePlan): Promise<ReplaceResult> {
    return this.serialize(async () => {
      this.assertLive();
      if (plan.before && (await plan.before())) return { cancelled: true };
      const old = this.binding;
      const oldSm = old.session.sessionManager;
      const target = await plan.target();
      const nextFile = target.kind === "ready" ? target.sm.getSessionFile() : target.file;
      await this.emitWith("session_shutdown", { type: "session_shutdown", reason: plan.shutdown, targetSessionFile: nextFile });
      await old.session.close();
      old.invalidate();
      const previousFile = oldSm.getSessionFile();
      // Past the point of no return: a failure closing the old file is reported, not thrown.
      if (target.kind === "reopen" || target.sm !== oldSm) await oldSm.close().catch((error: Error) => this.reportError(error));
      const sm =
        target.kind === "ready"
          ? target.sm
          : await SessionManager.open(target.file, { cwdOverride: target.cwdOverride, whenLocked: "read-only", lock: this.options.lock });
      await this.install(sm, plan.start, previousFile);
      await this.options.rebind?.(this.session);
      await plan.withSession?.(this.binding.createContext());
      return { cancelled: false };
    });
  }

  /** Steps 6 and 7: build the agent session over `sm`, then announce it. */
  private async install(sm: SessionManager, reason: SessionStartReason, previousSessionFile: string | undefined): Promise<void> {
    const config = (await this.options.configureSession?.(sm)) ?? {};
    // The hooks need the binding, which needs the session: a holder closes the loop.
    const holder: { binding?: SessionBinding } = {};
    const session = new AgentSession({ ...config, sessionManager: sm, hooks: this.hooksFor(() => holder.binding!) });
    holder.binding = new SessionBinding(session);
    this.binding = holder.binding;
    const event = previousSessionFile === undefined ? { type: "session_start" as const, reason } : { type: "session_start" as const, reason, previousSessionFile };
    await this.emitWith("session_start", event);
  }

  /** Step 2 for an existing file: the file this runtime holds is reopened after teardown (its lock is ours). */
  private async openPlan(file: string, cwdOverride: string | undefined): Promise<TargetPlan> {
    if (file === this.session.sessionManager.getSessionFile()) return { kind: "reopen", file, cwdOverride };
    const sm = await SessionManager.open(file, { cwdOverride, whenLocked: "read-only", lock: this.options.lock });
    return { kind: "ready", sm: this.checkedCwd(sm, this.cwd) };
  }

  private checkedCwd(sm: SessionManager, fallbackCwd: string): SessionManager {
    try {
      assertSessionCwdExists(sm, fallbackCwd);
      return sm;
    } catch (error) {
      sm.dispose();
      throw error;
    }
  }

  private hooksFor(binding: () => SessionBinding): AgentSessionHooks {
    const context = () => binding().createContext();
    return {
      beforeTree: (event) => this.extensions.emit("session_before_tree", event, context()),
      afterTree: async (event) => void (await this.extensions.emit("session_tree", event, context())),
      beforeCompact: (event) => this.extensions.emit("session_before_compact", event, context()),
      afterCompact: async (event) => void (await this.extensions.emit("session_compact", event, context())),
    };
  }

  private async cancelledBy<K extends "session_before_switch" | "session_before_fork">(
    type: K,
    event: SessionEventMap[K],
  ): Promise<boolean> {
    const answer = await this.extensions.emit(type, event, this.binding.createContext());
    return answer?.cancel === true;
  }

  private async emitWith<K extends "session_shutdown" | "session_start">(type: K, event: SessionEventMap[K]): Promise<void> {
    await this.extensions.emit(type, event, this.binding.createContext());
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private reportError(error: Error): void {
    if (this.options.onError) this.options.onError(error);
    else console.error(error);
  }

  private assertLive(): void {
    if (this.disposed) throw new RuntimeError("disposed", "This session runtime was disposed.");
  }
}
