import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { AgentSession, type AgentSessionConfig } from "../agent/agent-session";
import { sessionDirForCwd, type SessionLocationOptions } from "../session/paths";
import { SessionManager } from "../session/session-manager";
import type { WriterLockOptions } from "../session/writer-lock";
import type { Disposable } from "../util/disposable";
import { createAgentHooks } from "./agent-hooks";
import type { ExtensionContext, ExtensionEventMap, SessionShutdownReason, SessionStartReason } from "./extension-api";
import { SessionBinding, type RuntimeControls } from "./extension-context";
import { ExtensionHost } from "./extension-host";
import { forkPoint } from "./fork-into-folder";
import { awaitedHandler, NESTED_REPLACEMENT_MESSAGE } from "./handler-scope";
import { chooseImportDestination, copyForImport } from "./import-destination";
import { assertSessionCwdExists, RuntimeError } from "./runtime-errors";

/**
 * Extensions made anew for every session (Pi's extension files run their factory per session, as
 * in Pi). `instantiate` runs once the agent session is built, before the front ends are rebound
 * and before session_start; the runtime disposes what it returns right after invalidating that
 * session's contexts, so an instance never outlives its session.
 */
export interface SessionScopedExtensions {
  instantiate(binding: SessionBinding, runtime: AgentSessionRuntime): Promise<Disposable>;
}

export interface RuntimeOptions {
  /** The host's settings for each new agent session (providers, tools, policy). Called once per session. */
  configureSession?: (sessionManager: SessionManager) => AgentSessionConfig | Promise<AgentSessionConfig>;
  /** Shared across replacements; default: a fresh one. */
  extensions?: ExtensionHost;
  /** Per-session extension instances (Pi extension files). */
  sessionExtensions?: SessionScopedExtensions;
  /**
   * Called whenever a session became current (at startup too), before session_start, so that
   * front ends show the new session by the time extensions hear of it (Pi rebinds the same way).
   */
  rebind?: (session: AgentSession, runtime: AgentSessionRuntime) => void | Promise<void>;
  /**
   * The runtime ended because a replacement failed past the point of no return (the old session
   * was already shut down and the new one could not be built): there is no session any more.
   */
  onEnded?: (error: Error) => void;
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
  | { create: string; sessionDir?: string }
  | { continueRecent: string };

export interface ReplaceOptions {
  /** Runs once the replacement is complete, with a context bound to the new session: the place for follow-up work. */
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

/** Where a new session goes when it is not the current session's folder. */
export interface NewSessionTarget {
  cwd: string;
  sessionDir: string;
}

/** How a replacement gets its next session manager (step 2). */
type TargetPlan = { kind: "ready"; sm: SessionManager } | { kind: "reopen"; file: string; cwdOverride?: string };

interface ReplacePlan {
  before?: () => Promise<boolean>;
  target: () => Promise<TargetPlan>;
  shutdown: SessionShutdownReason;
  start: SessionStartReason;
}

/**
 * Owns the current AgentSession and replaces it (switch, new, fork, clone, import, reload) in one
 * fixed order: (1) the cancellable before-event; (2) open or create the target; (3) session_shutdown;
 * (4) dispose the old agent session; (5) invalidate every extension context bound to it (and end
 * its per-session extension instances); (6) build the new session (and its extension instances);
 * (7) the host's rebind callback; (8) session_start; then, once the replacement is complete,
 * (9) `withSession` with a fresh context. A cancel returns `{cancelled: true}` with nothing changed;
 * replacements run one at a time. If step 6 fails, the runtime ends: the old session stays closed
 * and stale, the target is released, `onEnded` is called and the call rejects.
 */
export class AgentSessionRuntime {
  readonly extensions: ExtensionHost;
  private binding!: SessionBinding;
  private instances: Disposable | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(private readonly options: RuntimeOptions) {
    this.extensions = options.extensions ?? new ExtensionHost();
  }

  /** Opens or creates the first session, rebinds, and emits session_start ("startup"). */
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
    if ("create" in target) return SessionManager.create(target.create, { ...this.options.location, sessionDir: target.sessionDir ?? this.options.location?.sessionDir, lock });
    if ("continueRecent" in target) return SessionManager.continueRecent(target.continueRecent, { ...this.options.location, whenLocked: "read-only", lock });
    const sm = await SessionManager.open(target.open, { cwdOverride: target.cwdOverride, whenLocked: "read-only", lock });
    return this.checkedCwd(sm, target.fallbackCwd ?? process.cwd());
  }

  /** The current agent session (after the runtime ended: the last one, disposed). */
  get session(): AgentSession {
    return this.binding.session;
  }

  get cwd(): string {
    return this.session.sessionManager.getCwd();
  }

  isDisposed(): boolean {
    return this.disposed;
  }

  /** A context bound to the current session; it goes stale at the next replacement. */
  createContext(): ExtensionContext {
    this.assertLive();
    return this.binding.createContext();
  }

  /** Opens another session file (before-event: session_before_switch, reason "resume"). */
  switchSession(path: string, options: ReplaceOptions & { cwdOverride?: string } = {}): Promise<ReplaceResult> {
    const file = resolve(path);
    return this.replace(options, () => ({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "resume", targetSessionFile: file }),
      target: () => this.openPlan(file, options.cwdOverride),
      shutdown: "resume",
      start: "resume",
    }));
  }

  /**
   * Starts a new, empty session (before-event: session_before_switch, reason "new"): in the current
   * session's folder, or in `target` (another workspace folder or sessions directory).
   */
  newSession(options: ReplaceOptions & { target?: NewSessionTarget; parentSession?: string } = {}): Promise<ReplaceResult> {
    // `parentSession` links the new file to the one it came from (its header), as Pi's hand-off does.
    const parentSession = options.parentSession || undefined;
    return this.replace(options, () => ({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "new" }),
      target: async () => {
        const current = this.session.sessionManager;
        if (options.target) return { kind: "ready", sm: await SessionManager.create(options.target.cwd, { sessionDir: options.target.sessionDir, lock: this.options.lock, parentSession }) };
        if (!current.isPersisted()) return { kind: "ready", sm: SessionManager.inMemory(current.getCwd()) };
        return { kind: "ready", sm: await SessionManager.create(current.getCwd(), { sessionDir: current.getSessionDir(), lock: this.options.lock, parentSession }) };
      },
      shutdown: "new",
      start: "new",
    }));
  }

  /**
   * A new session file holding the path up to an entry: "before" a user message (its text comes back
   * for editing) or "at" any entry (before-event: session_before_fork).
   */
  async fork(entryId: string, options: ReplaceOptions & { position?: "before" | "at" } = {}): Promise<ForkResult> {
    this.assertCanReplace();
    const position = options.position ?? "before";
    const source = this.session.sessionManager;
    const { leafId, selectedText } = forkPoint(source, entryId, position);
    const result = await this.replace(options, () => ({
      before: () => this.cancelledBy("session_before_fork", { type: "session_before_fork", entryId, position }),
      target: async () => ({ kind: "ready", sm: await SessionManager.branchFrom(source, leafId, { sessionDir: source.getSessionDir(), lock: this.options.lock }) }),
      shutdown: "fork",
      start: "fork",
    }));
    return result.cancelled || selectedText === undefined ? result : { ...result, selectedText };
  }

  /** A new session holding the current path: a fork at the leaf. */
  clone(options: ReplaceOptions = {}): Promise<ForkResult> {
    try {
      this.assertCanReplace();
    } catch (error) {
      return Promise.reject(error);
    }
    const leaf = this.session.sessionManager.getLeafId();
    if (leaf === null) return Promise.reject(new RuntimeError("nothing-to-fork", "The session is empty: there is nothing to clone yet."));
    return this.fork(leaf, { ...options, position: "at" });
  }

  /**
   * A new session file holding every entry of the current session, written or not, on every
   * branch, with the leaf where it is (before-event: session_before_fork at the leaf). The way on
   * for a session whose file was replaced or deleted while open: nothing the user wrote is lost.
   */
  saveAsNew(options: ReplaceOptions = {}): Promise<ForkResult> {
    try {
      this.assertCanReplace();
    } catch (error) {
      return Promise.reject(error);
    }
    const source = this.session.sessionManager;
    const leaf = source.getLeafId();
    if (leaf === null) return Promise.reject(new RuntimeError("nothing-to-fork", "The session is empty: there is nothing to save yet."));
    return this.replace(options, () => ({
      before: () => this.cancelledBy("session_before_fork", { type: "session_before_fork", entryId: leaf, position: "at" }),
      target: async () => ({ kind: "ready", sm: await SessionManager.branchFrom(source, leaf, { sessionDir: source.getSessionDir(), lock: this.options.lock, whole: true }) }),
      shutdown: "fork",
      start: "fork",
    }));
  }

  /**
   * Copies a session file into the current sessions folder (never overwriting another session) and
   * opens it (before-event: session_before_switch, reason "resume").
   */
  async importFromJsonl(path: string, options: ReplaceOptions & { cwdOverride?: string } = {}): Promise<ReplaceResult> {
    this.assertCanReplace();
    const source = resolve(path);
    if (!existsSync(source)) throw new RuntimeError("import-not-found", `The file to import does not exist: ${source}`);
    const current = this.session.sessionManager;
    const dir = current.isPersisted() ? current.getSessionDir() : sessionDirForCwd(current.getCwd(), this.options.location);
    const destination = await chooseImportDestination(source, dir);
    return this.replace(options, () => ({
      before: () => this.cancelledBy("session_before_switch", { type: "session_before_switch", reason: "resume", targetSessionFile: destination }),
      target: async () => {
        await copyForImport(source, destination);
        return this.openPlan(destination, options.cwdOverride);
      },
      shutdown: "resume",
      start: "resume",
    }));
  }

  /**
   * Rebuilds the agent session over the same session, re-read from its file (session_start reason
   * "reload"). Refused while a reply, compaction, summary or shell command runs, as Pi refuses it:
   * a reload never silently stops one (wait with `session.waitForIdle()` first).
   */
  reload(options: ReplaceOptions = {}): Promise<ReplaceResult> {
    return this.replace(options, () => {
      const session = this.session;
      if (!session.isIdle() || session.isBashRunning()) {
        throw new RuntimeError("busy", "The session cannot be reloaded while a reply, compaction or shell command runs; wait for it to finish or stop it.");
      }
      return {
        target: async () => {
          const sm = this.session.sessionManager;
          const file = sm.getSessionFile();
          if (!sm.isPersisted() || !file || !existsSync(file)) return { kind: "ready", sm };
          return { kind: "reopen", file, cwdOverride: sm.getCwd() };
        },
        shutdown: "reload",
        start: "reload",
      };
    });
  }

  /** Ends the runtime: session_shutdown ("quit"), then the session is disposed, its contexts invalidated and its file closed. */
  dispose(): Promise<void> {
    return this.serialize(async () => {
      if (this.disposed) return;
      this.disposed = true;
      await this.emitWith("session_shutdown", { type: "session_shutdown", reason: "quit" });
      await this.session.close();
      this.endBinding();
      await this.session.sessionManager.close();
    });
  }

  // ---------------------------------------------------------------- the replacement sequence

  /** Replacements that may run now: refused inside a handler Arbor is waiting for (it would deadlock). */
  private assertCanReplace(): void {
    this.assertLive();
    const inside = awaitedHandler();
    if (inside) throw new RuntimeError("nested-replacement", `${NESTED_REPLACEMENT_MESSAGE} (extension "${inside.extension}", in ${inside.event}).`);
  }

  private async replace(options: ReplaceOptions, makePlan: () => ReplacePlan): Promise<ReplaceResult> {
    this.assertCanReplace();
    const result = await this.serialize(async () => {
      this.assertLive();
      const plan = makePlan();
      if (plan.before && (await plan.before())) return { cancelled: true };
      await this.swap(plan);
      return { cancelled: false };
    });
    // Outside the one-at-a-time section, so follow-up work may start another replacement.
    if (!result.cancelled && options.withSession && !this.disposed) await options.withSession(this.binding.createContext());
    return result;
  }

  /** Steps 2 to 8. */
  private async swap(plan: ReplacePlan): Promise<void> {
    const old = this.binding;
    const oldSm = old.session.sessionManager;
    const target = await plan.target();
    // As in Pi, a reload is no replacement: its events name no target and no previous file.
    const reload = plan.start === "reload";
    const nextFile = target.kind === "ready" ? target.sm.getSessionFile() : target.file;
    await this.emitWith("session_shutdown", reload ? { type: "session_shutdown", reason: plan.shutdown } : { type: "session_shutdown", reason: plan.shutdown, targetSessionFile: nextFile });
    await old.session.close();
    this.endBinding();
    const previousFile = reload ? undefined : oldSm.getSessionFile();
    // Past the point of no return: a failure closing the old file is reported, not thrown.
    if (target.kind === "reopen" || target.sm !== oldSm) await oldSm.close().catch((error: Error) => this.reportError(error));
    let sm: SessionManager | undefined = target.kind === "ready" ? target.sm : undefined;
    try {
      sm ??= await SessionManager.open((target as { file: string }).file, { cwdOverride: (target as { cwdOverride?: string }).cwdOverride, whenLocked: "read-only", lock: this.options.lock });
      await this.install(sm, plan.start, previousFile);
    } catch (error) {
      await this.fail(error, sm);
    }
  }

  /** A replacement failed after the old session was shut down: end the runtime in a defined state. */
  private async fail(error: unknown, target: SessionManager | undefined): Promise<never> {
    this.disposed = true;
    await target?.close().catch((e: Error) => this.reportError(e));
    const cause = error instanceof Error ? error : new Error(String(error));
    const failure = new RuntimeError("replacement-failed", `The new session could not be started: ${cause.message} The previous session was closed; open a session again.`);
    (failure as { cause?: unknown }).cause = cause;
    this.options.onEnded?.(failure);
    throw failure;
  }

  /** Steps 6 to 8: build the agent session over `sm` (and its extension instances), rebind, announce it. */
  private async install(sm: SessionManager, reason: SessionStartReason, previousSessionFile: string | undefined): Promise<void> {
    const config = (await this.options.configureSession?.(sm)) ?? {};
    // The hooks need the binding, which needs the session: a holder closes the loop.
    const holder: { binding?: SessionBinding } = {};
    const hooks = createAgentHooks(this.extensions, () => holder.binding!.createContext());
    const session = new AgentSession({ ...config, sessionManager: sm, hooks });
    const binding = new SessionBinding(session, this.controls());
    holder.binding = binding;
    try {
      this.instances = await this.options.sessionExtensions?.instantiate(binding, this);
    } catch (error) {
      session.dispose();
      binding.invalidate();
      throw error;
    }
    this.binding = binding;
    // The session is built and current: a front end that fails to show it must not undo that.
    await Promise.resolve(this.options.rebind?.(session, this)).catch((error: Error) => this.reportError(error));
    const event = previousSessionFile === undefined ? { type: "session_start" as const, reason } : { type: "session_start" as const, reason, previousSessionFile };
    await this.emitWith("session_start", event);
  }

  /** Step 5: the old contexts go stale and the old session's extension instances end. */
  private endBinding(): void {
    this.binding.invalidate();
    const instances = this.instances;
    this.instances = undefined;
    try {
      instances?.dispose();
    } catch (error) {
      this.reportError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private controls(): RuntimeControls {
    return {
      newSession: (options) => this.newSession(options),
      switchSession: (file, options) => this.switchSession(file, options),
      fork: (entryId, options) => this.fork(entryId, options),
    };
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

  private async cancelledBy<K extends "session_before_switch" | "session_before_fork">(type: K, event: ExtensionEventMap[K]): Promise<boolean> {
    const answer = await this.extensions.emit(type, event, this.binding.createContext());
    return answer?.cancel === true;
  }

  private async emitWith<K extends "session_shutdown" | "session_start">(type: K, event: ExtensionEventMap[K]): Promise<void> {
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
