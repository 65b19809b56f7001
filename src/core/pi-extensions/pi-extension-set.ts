/**
 * The Pi extension files of a window. Discovered and loaded for every session (Pi re-creates its
 * extensions per session, and so does Arbor: each session gets fresh instances whose `pi` and
 * contexts go stale at the next replacement), registered in the runtime's dispatch ahead of the
 * extensions that use Arbor's exported API, their tools offered to the model, their commands run
 * from the chat (`/name args`) or the command palette. What each file is, where it came from and
 * what went wrong is kept for the "Arbor: Extensions" list.
 */
import { dirname } from "node:path";
import type { AgentSessionRuntime, SessionScopedExtensions } from "../runtime/agent-session-runtime";
import type { SessionBinding } from "../runtime/extension-context";
import type { ExtensionHost } from "../runtime/extension-host";
import { Emitter } from "../util/emitter";
import { toDisposable, type Disposable } from "../util/disposable";
import type { DiscoveredExtension } from "./discovery";
import { createEventBus } from "./event-bus";
import { loadExtensionFactory } from "./module-loader";
import { PiInstance } from "./pi-instance";
import type { ModelAccess } from "./pi-models";
import { adaptPiTool, type ArgumentValidator } from "./pi-tools";
import { RuntimeError } from "../runtime/runtime-errors";
import type { PiUiHost } from "./pi-ui";
import { loadSharedModules, virtualModulesFor } from "./shared-modules";
import { runInToolScope } from "./tool-scope";

export interface PiExtensionSetOptions {
  /** The window's dispatch (shared with the exported API). */
  extensions: ExtensionHost;
  /** Which files to load for the session about to start (its folder, trust and settings decide). */
  discover(cwd: string): DiscoveredExtension[];
  ui: PiUiHost;
  models?: () => ModelAccess | undefined;
  agentDir(): string;
  /** jiti's transpile cache; false for none. */
  cacheDir: string | false;
  /** `ctx.shutdown()`: close the session once it is idle. */
  requestShutdown(): void;
  /** A session's extensions ended (the front end drops what they showed, such as status items). */
  sessionEnded?(): void;
}

/** One error an extension caused, for the Extensions list. */
export interface ExtensionProblem {
  event: string;
  message: string;
  at: number;
}

/** What the Extensions list shows about one file. */
export interface ExtensionStatus {
  extension: DiscoveredExtension;
  state: "loaded" | "failed";
  /** Why it did not load. */
  loadError?: string;
  commands: string[];
  tools: string[];
  events: string[];
  notes: string[];
  problems: ExtensionProblem[];
}

/** A command the chat offers under `/` and "Arbor: Run Extension Command..." lists. */
export interface ExtensionCommandInfo {
  /** The name to type (Pi's rule: the same name from two extensions becomes `name:1`, `name:2`). */
  name: string;
  description?: string;
  extension: string;
}

/** How many problems per extension the list keeps. */
const MAX_PROBLEMS = 20;

export class PiExtensionSet implements SessionScopedExtensions, Disposable {
  private instances: PiInstance[] = [];
  private runtime: AgentSessionRuntime | undefined;
  private readonly statuses = new Map<string, ExtensionStatus>();
  private readonly changes = new Emitter<void>();
  /** Commands, tools or the status of an extension changed. */
  readonly onDidChange = this.changes.event;
  private readonly subscription: Disposable;

  constructor(private readonly options: PiExtensionSetOptions) {
    this.subscription = options.extensions.onDidReportError((report) => {
      const status = [...this.statuses.values()].find((s) => s.extension.name === report.extension);
      if (!status) return;
      status.problems = [...status.problems, { event: report.event, message: report.error.message, at: Date.now() }].slice(-MAX_PROBLEMS);
      this.changes.fire();
    });
  }

  /** Loads the files for a new session; their factories run with a fresh `pi` each. */
  async instantiate(binding: SessionBinding, runtime: AgentSessionRuntime): Promise<Disposable> {
    this.runtime = runtime;
    this.statuses.clear();
    const discovered = await this.admitted(binding, this.options.discover(binding.session.sessionManager.getCwd()));
    if (discovered.length === 0) {
      this.instances = [];
      this.changes.fire();
      return toDisposable(() => undefined);
    }
    const shared = await loadSharedModules();
    if (typeof shared.piAi.validateToolArguments === "function") this.validator = shared.piAi.validateToolArguments as ArgumentValidator;
    const bus = createEventBus((error) => this.options.extensions.report("events", "pi.events", error));
    const made: PiInstance[] = [];
    for (const extension of discovered) {
      const instance: PiInstance = new PiInstance({
        extension,
        binding,
        runtime,
        host: this.options.extensions,
        ui: this.options.ui,
        models: this.options.models?.(),
        bus,
        agentDir: this.options.agentDir,
        changed: () => this.refresh(),
        requestShutdown: this.options.requestShutdown,
        // As Pi's /reload: while a reply, compaction or command runs, a warning, and nothing else.
        reload: async () => {
          try {
            await runtime.reload();
          } catch (error) {
            if (!(error instanceof RuntimeError && error.code === "busy")) throw error;
            this.options.ui.notify(extension.name, `ctx.reload() did nothing: ${error.message}`, "warning");
          }
        },
        currentInstanceOf: (path) => this.instances.find((i) => i.path === path),
      });
      // As Pi's getCommands(): each command names the file it comes from (commands.ts shows that path).
      instance.listCommands = () =>
        this.commands().map((c) => {
          const file = this.instances.find((i) => i.name === c.extension)?.path ?? c.extension;
          return { name: c.name, description: c.description, source: "extension", sourceInfo: { path: file, source: "local", scope: "temporary", origin: "top-level", baseDir: dirname(file) } };
        });
      try {
        const factory = await loadExtensionFactory(extension.path, { virtualModules: virtualModulesFor(extension.name, shared, this.options.agentDir), cacheDir: this.options.cacheDir });
        await this.withTimeout(extension.name, () => runInToolScope(instance.scope(), () => factory(instance.api)));
        made.push(instance);
        this.statuses.set(extension.path, this.statusOf(instance, undefined));
      } catch (error) {
        instance.end();
        const message = error instanceof Error ? error.message : String(error);
        this.statuses.set(extension.path, { extension, state: "failed", loadError: message, commands: [], tools: [], events: [], notes: [], problems: [] });
        this.options.extensions.report(extension.name, "load", new Error(`The extension "${extension.name}" (${extension.path}) could not be loaded: ${message}`));
      }
    }
    this.instances = made;
    const registrations = made.map((instance) => this.options.extensions.register(instance.sessionExtension(), "pi"));
    this.applyTools();
    this.changes.fire();
    return toDisposable(() => {
      for (const registration of registrations) registration.dispose();
      for (const instance of made) instance.end();
      if (this.instances === made) this.instances = [];
      this.options.sessionEnded?.();
      this.changes.fire();
    });
  }

  /**
   * Project extensions come from the session's folder. When that folder lies outside the open
   * workspace, the window's trust says nothing about it (a session opened from another workspace,
   * or restored at start-up, names any folder): the session's folder question is asked first, with
   * the files named, before any of them is read as code. Without a yes they stay unloaded, listed
   * as such, and the user is told. The answer is the session's: its tools do not ask again.
   */
  private async admitted(binding: SessionBinding, discovered: DiscoveredExtension[]): Promise<DiscoveredExtension[]> {
    const project = discovered.filter((e) => e.scope === "project");
    if (project.length === 0) return discovered;
    const refusal = await binding.session.admitWorkingFolder(undefined, project.map((e) => e.path));
    if (refusal === undefined) return discovered;
    const cwd = binding.session.sessionManager.getCwd();
    const why = `Not loaded: this session's folder (${cwd}) is outside the open workspace, and running things there was not allowed. Open the session again to be asked again.`;
    for (const extension of project) {
      this.statuses.set(extension.path, { extension, state: "failed", loadError: why, commands: [], tools: [], events: [], notes: [], problems: [] });
    }
    this.options.ui.notify(
      "Arbor",
      `The Pi extensions of ${cwd} (${project.map((e) => e.name).join(", ")}) were not loaded: the session's folder is outside the open workspace, and running things there was not allowed.`,
      "warning",
    );
    return discovered.filter((e) => e.scope !== "project");
  }

  /** A factory that never finishes must not hold the session up forever. */
  private withTimeout(name: string, work: () => unknown): Promise<unknown> {
    const ms = this.options.extensions.handlerTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = ms > 0 ? setTimeout(() => reject(new Error(`its factory did not finish within ${ms / 1000} s`)), ms) : undefined;
      Promise.resolve()
        .then(work)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    }).catch((error: Error) => {
      throw new Error(`${error.message} (extension "${name}")`);
    });
  }

  private statusOf(instance: PiInstance, loadError: string | undefined): ExtensionStatus {
    const previous = this.statuses.get(instance.path);
    return {
      extension: instance.extension,
      state: loadError ? "failed" : "loaded",
      loadError,
      commands: [...instance.commands.keys()],
      tools: [...instance.tools.keys()],
      events: [...instance.handlers.keys()],
      notes: [...instance.notes],
      problems: previous?.problems ?? [],
    };
  }

  /** Tools or commands were registered after loading (in session_start, from a command...). */
  private refresh(): void {
    for (const instance of this.instances) {
      const status = this.statuses.get(instance.path);
      if (status) this.statuses.set(instance.path, this.statusOf(instance, undefined));
    }
    this.applyTools();
    this.changes.fire();
  }

  /** Every extension's tools to the session: the first registration of a name wins, as in Pi. */
  private applyTools(): void {
    const first = this.instances[0];
    if (!first) return;
    let agentSession;
    try {
      agentSession = first.session();
    } catch {
      return; // the session ended meanwhile
    }
    const seen = new Set<string>();
    const tools = this.instances.flatMap((instance) =>
      [...instance.tools.values()].flatMap((tool) => {
        if (seen.has(tool.name)) return [];
        seen.add(tool.name);
        return [adaptPiTool(tool, { extension: instance.name, context: () => instance.context(), validate: this.validator })];
      }),
    );
    agentSession.setExtensionTools(tools);
  }

  private validator: ArgumentValidator | undefined;

  /** The commands of the current session's extensions, with Pi's names for duplicates. */
  commands(): ExtensionCommandInfo[] {
    const all = this.instances.flatMap((instance) => [...instance.commands.entries()].map(([name, command]) => ({ name, description: command.description, extension: instance.name })));
    const counts = new Map<string, number>();
    for (const c of all) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
    const seen = new Map<string, number>();
    return all.map((c) => {
      if (counts.get(c.name)! === 1) return c;
      const n = (seen.get(c.name) ?? 0) + 1;
      seen.set(c.name, n);
      return { ...c, name: `${c.name}:${n}` };
    });
  }

  /**
   * Runs `/name args`: resolves to false when no extension has that command (the caller says so),
   * true once the command ran. A command that throws is reported with the extension's name and rejects.
   */
  async runCommand(name: string, args: string): Promise<boolean> {
    const listed = this.commands().find((c) => c.name === name);
    if (!listed) return false;
    const instance = this.instances.find((i) => i.name === listed.extension);
    if (!instance) return false;
    const own = name.replace(/:\d+$/, "");
    try {
      await instance.runCommand(instance.commands.has(name) ? name : own, args);
    } catch (error) {
      this.options.extensions.report(instance.name, `command:${own}`, error);
      throw error;
    }
    return true;
  }

  /** What the Extensions list shows, in load order. */
  list(): ExtensionStatus[] {
    return [...this.statuses.values()];
  }

  /** Whether a session's extensions are loaded (a session is open). */
  get loaded(): boolean {
    return this.runtime !== undefined && !this.runtime.isDisposed();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changes.dispose();
  }
}
