/**
 * One Pi extension file in one session: what its factory registered (handlers, tools, commands,
 * flags), the `pi` object it was handed, and the contexts its handlers, tools and commands get.
 * Made anew for every session, as Pi does; when the session is replaced, the instance is ended and
 * every `pi` and `ctx` member of it throws the one stale-context message.
 */
import { resolve } from "node:path";
import type { AgentSession } from "../agent/agent-session";
import { AgentError } from "../agent/errors";
import type { AgentSessionRuntime } from "../runtime/agent-session-runtime";
import type { ExtensionEventType, SessionExtension } from "../runtime/extension-api";
import { StaleContextError, type SessionBinding } from "../runtime/extension-context";
import type { ExtensionHost } from "../runtime/extension-host";
import type { SessionManager } from "../session/session-manager";
import type { PiTool } from "./builtin-tools";
import type { DiscoveredExtension } from "./discovery";
import type { EventBus } from "./event-bus";
import { isInside, realOrNearest } from "../agent/tools/paths";
import { execCommand, type ExecOptions } from "./exec";
import { fromPiModel, modelRegistryView, toPiModel, type ModelAccess, type PiModelLike } from "./pi-models";
import { readonlySessionView } from "./pi-session-view";
import { createPiUi, type PiUiHost } from "./pi-ui";
import { runInToolScope, type ToolScope } from "./tool-scope";
import { UnsupportedCallError } from "./unsupported";

type Handler = (event: unknown, ctx: unknown) => unknown;

/** A command an extension registered. */
export interface PiCommand {
  description?: string;
  handler(args: string, ctx: unknown): unknown;
}

/** What an instance needs from the set of extensions it belongs to. */
export interface InstanceEnv {
  extension: DiscoveredExtension;
  binding: SessionBinding;
  runtime: AgentSessionRuntime;
  host: ExtensionHost;
  ui: PiUiHost;
  models?: ModelAccess;
  bus: EventBus;
  agentDir(): string;
  /** Tools or commands changed after the factory ran. */
  changed(): void;
  /** `ctx.shutdown()`: close the session once it is idle. */
  requestShutdown(): void;
  /** `ctx.reload()`: load the extension files again and rebuild the session. */
  reload(): Promise<void>;
  /** The instance of the same extension file bound to the current session (after a replacement). */
  currentInstanceOf(path: string): PiInstance | undefined;
}

export class PiInstance {
  readonly handlers = new Map<string, Handler[]>();
  readonly tools = new Map<string, PiTool>();
  readonly commands = new Map<string, PiCommand>();
  readonly flags = new Map<string, { type: string; default?: unknown; description?: string }>();
  /** Things the extension registered that Arbor keeps but does not use (renderers), for the Extensions list. */
  readonly notes: string[] = [];
  readonly api: Record<string, unknown>;
  private ended = false;
  private readonly ui: Record<string, unknown>;

  constructor(private readonly env: InstanceEnv) {
    this.ui = createPiUi(env.extension.name, { host: env.ui, pauseTimeouts: (name) => env.host.pauseTimeouts(name), report: (name, error) => env.host.report(name, "ui", error) }, () => this.assertActive());
    this.api = this.createApi();
  }

  get name(): string {
    return this.env.extension.name;
  }

  /** The file, where it was found. */
  get extension(): DiscoveredExtension {
    return this.env.extension;
  }

  get path(): string {
    return this.env.extension.path;
  }

  /** The session, while this instance is current; else the stale-context error. */
  session(): AgentSession {
    this.assertActive();
    return this.env.binding.assertLive();
  }

  private sm(): SessionManager {
    return this.session().sessionManager;
  }

  assertActive(): void {
    if (this.ended || this.env.binding.isStale) throw new StaleContextError();
  }

  /** The session ended for this instance: from now on it only throws. */
  end(): void {
    this.ended = true;
    this.handlers.clear();
  }

  /** What tools and commands a run of this extension's code see as their folder and shell rights. */
  scope(): ToolScope {
    const session = this.session();
    return { cwd: session.sessionManager.getCwd(), allowShell: session.isShellAllowed(), limits: { maxLines: 2000, maxBytes: 50 * 1024 } };
  }

  /** Registered in the runtime's dispatch (group "pi"): this extension's handlers for each event, in registration order. */
  sessionExtension(): SessionExtension {
    const handlers = new Proxy({} as SessionExtension["handlers"], {
      get: (_target, type) => {
        if (typeof type !== "string") return undefined;
        const list = this.handlers.get(type);
        if (!list || list.length === 0) return undefined;
        return list.map((handler) => (event: unknown) => runInToolScope(this.scope(), () => handler(this.piEvent(type as ExtensionEventType, event), this.context())));
      },
    });
    return { name: this.name, handlers };
  }

  /** Events whose payload differs between Arbor's API and Pi's (models are pi-ai Model objects for Pi). */
  private piEvent(type: ExtensionEventType, event: unknown): unknown {
    if (type !== "model_select") return event;
    const e = event as { model: Parameters<typeof toPiModel>[0]; previousModel?: Parameters<typeof toPiModel>[0] };
    return { ...e, model: toPiModel(e.model, this.env.models), previousModel: e.previousModel ? toPiModel(e.previousModel, this.env.models) : undefined };
  }

  // ---------------------------------------------------------------- contexts

  /** Pi's ExtensionContext for handlers and tools; every member checks the session is still current. */
  context(): Record<string, unknown> {
    const sessionModels = (): PiModelLike[] => {
      const model = this.session().getModel();
      return model ? [toPiModel(model, this.env.models)] : [];
    };
    const registry = modelRegistryView(this.env.models, sessionModels);
    const view = readonlySessionView(() => this.sm());
    /** A property read that checks the session is still current first. */
    const live = (read: () => unknown): PropertyDescriptor => ({ enumerable: true, get: () => (this.assertActive(), read()) });
    const getters: PropertyDescriptorMap = {
      ui: live(() => this.ui),
      hasUI: live(() => true),
      cwd: live(() => this.sm().getCwd()),
      sessionManager: live(() => view),
      modelRegistry: live(() => registry),
      model: live(() => {
        const model = this.session().getModel();
        return model ? toPiModel(model, this.env.models) : undefined;
      }),
      signal: live(() => this.session().getSignal()),
    };
    return Object.defineProperties({
      isIdle: () => this.session().isIdle(),
      abort: () => this.session().abort(),
      hasPendingMessages: () => this.session().hasPendingMessages(),
      shutdown: () => (this.assertActive(), this.env.requestShutdown()),
      getContextUsage: () => this.session().getContextUsage(),
      getSystemPrompt: () => this.session().getSystemPrompt(),
      compact: (options: { customInstructions?: string; onComplete?: (r: unknown) => void; onError?: (e: Error) => void } = {}) => {
        const session = this.session();
        void session.compact(options.customInstructions).then(
          (outcome) => {
            if (outcome.kind === "compacted") options.onComplete?.(outcome.result);
            else options.onError?.(new Error("The compaction was cancelled."));
          },
          (error: Error) => (options.onError ? options.onError(error) : this.env.host.report(this.name, "compact", error)),
        );
      },
    }, getters) as Record<string, unknown>;
  }

  /** Pi's ExtensionCommandContext: the context plus the session controls commands may use. */
  commandContext(): Record<string, unknown> {
    const ctx = this.context();
    const runtime = this.env.runtime;
    const replaced = (withSession?: (c: unknown) => unknown, setup?: (sm: unknown) => unknown) =>
      withSession || setup
        ? async () => {
            const next = this.env.currentInstanceOf(this.path);
            if (!next) throw new Error(`The extension "${this.name}" is not loaded in the new session.`);
            if (setup) await setup(next.sm());
            if (withSession) await withSession(next.replacedContext());
          }
        : undefined;
    return Object.defineProperties(ctx, Object.getOwnPropertyDescriptors({
      waitForIdle: () => this.session().waitForIdle(),
      newSession: (options: { parentSession?: string; withSession?: (c: unknown) => unknown; setup?: (sm: unknown) => unknown } = {}) =>
        (this.assertActive(), runtime.newSession({ parentSession: typeof options.parentSession === "string" ? options.parentSession : undefined, withSession: replaced(options.withSession, options.setup) })),
      switchSession: (file: string, options: { withSession?: (c: unknown) => unknown } = {}) => (this.assertActive(), runtime.switchSession(file, { withSession: replaced(options.withSession) })),
      fork: (entryId: string, options: { position?: "before" | "at"; withSession?: (c: unknown) => unknown } = {}) =>
        (this.assertActive(), runtime.fork(entryId, { position: options.position, withSession: replaced(options.withSession) }).then((r) => ({ cancelled: r.cancelled }))),
      navigateTree: (targetId: string, options: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string } = {}) =>
        this.session().navigateTree(targetId, options).then((r) => ({ cancelled: r.cancelled })),
      reload: () => (this.assertActive(), this.env.reload()),
    }));
  }

  /** The command context `withSession` gets after a replacement, with awaitable sendMessage / sendUserMessage. */
  replacedContext(): Record<string, unknown> {
    const ctx = this.commandContext();
    return Object.defineProperties(ctx, Object.getOwnPropertyDescriptors({
      sendMessage: async (message: Parameters<AgentSession["sendCustomMessage"]>[0], options?: Parameters<AgentSession["sendCustomMessage"]>[1]) => {
        await this.session().sendCustomMessage(message, options);
      },
      sendUserMessage: async (content: Parameters<AgentSession["sendUserMessage"]>[0], options?: Parameters<AgentSession["sendUserMessage"]>[1]) => {
        await this.session().sendUserMessage(content, options);
      },
    }));
  }

  /** Runs one of this extension's commands with a command context. */
  async runCommand(name: string, args: string): Promise<void> {
    const command = this.commands.get(name);
    if (!command) throw new Error(`The extension "${this.name}" has no command /${name}.`);
    await runInToolScope(this.scope(), () => command.handler(args, this.commandContext()));
  }

  // ---------------------------------------------------------------- the pi object

  private createApi(): Record<string, unknown> {
    const active = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A): R => {
      this.assertActive();
      return fn(...args);
    };
    /** Fire-and-forget calls (Pi's are void): a failure is reported with the extension's name. */
    const background = (what: string, work: () => Promise<unknown>): void => {
      work().catch((error: Error) => this.env.host.report(this.name, what, error));
    };
    const env = this.env;
    return {
      on: active((event: string, handler: Handler) => {
        if (typeof handler !== "function") throw new TypeError(`pi.on("${event}") needs a handler function.`);
        this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
      }),
      registerTool: active((tool: PiTool) => {
        if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") throw new TypeError("pi.registerTool needs a tool with a name and an execute function.");
        this.tools.set(tool.name, tool);
        env.changed();
      }),
      registerCommand: active((name: string, options: PiCommand) => {
        if (typeof options?.handler !== "function") throw new TypeError(`pi.registerCommand("${name}") needs a handler function.`);
        this.commands.set(name, options);
        env.changed();
      }),
      registerShortcut: active((shortcut: string) => {
        env.host.report(this.name, "ui", new UnsupportedCallError(this.name, `pi.registerShortcut("${shortcut}")`, "key shortcuts of Pi's terminal are not bound in VS Code (run the extension's commands with Arbor: Run Extension Command... or /name in the chat)"));
      }),
      registerFlag: active((name: string, options: { type: string; default?: unknown; description?: string }) => void this.flags.set(name, options ?? { type: "boolean" })),
      // Arbor has no command line of its own: a flag always has its default.
      getFlag: active((name: string) => this.flags.get(name)?.default),
      registerMessageRenderer: active((customType: string) => void this.notes.push(`message renderer for "${customType}" (the chat shows such messages as text)`)),
      registerProvider: active((name: string) => {
        env.host.report(this.name, "registerProvider", new UnsupportedCallError(this.name, `pi.registerProvider("${name}")`, "providers come from Pi's models.json and Arbor's model settings"));
      }),
      unregisterProvider: active(() => undefined),
      sendMessage: active((message: Parameters<AgentSession["sendCustomMessage"]>[0], options?: Parameters<AgentSession["sendCustomMessage"]>[1]) =>
        background("sendMessage", () => this.session().sendCustomMessage(message, options))),
      sendUserMessage: active((content: Parameters<AgentSession["sendUserMessage"]>[0], options?: Parameters<AgentSession["sendUserMessage"]>[1]) =>
        background("sendUserMessage", () => this.session().sendUserMessage(content, options))),
      appendEntry: active((customType: string, data?: unknown) => void this.session().appendCustomEntry(customType, data)),
      setSessionName: active((name: string) => void this.session().setSessionName(name)),
      getSessionName: active(() => this.sm().getSessionName()),
      setLabel: active((entryId: string, label: string | undefined) => void this.session().setLabel(entryId, label)),
      exec: active(async (command: string, args: string[] = [], options: ExecOptions = {}) => {
        const session = this.session();
        if (!session.isShellAllowed()) throw new AgentError("shell-disabled", `The extension "${this.name}" cannot run ${command}: programs do not run in an untrusted workspace. Trust the workspace to allow it.`);
        const cwd = session.sessionManager.getCwd();
        const folder = resolve(cwd, options.cwd ?? ".");
        // A program run in the session's folder reads that folder's config (a git hook, core.fsmonitor...):
        // outside the workspace it waits for the session's folder question, as the tools do. A folder
        // the extension names elsewhere is its own choice, as if it had spawned the program itself.
        if (isInside(realOrNearest(resolve(cwd)), realOrNearest(folder)) || isInside(resolve(cwd), folder)) {
          const refusal = await session.admitWorkingFolder(options.signal);
          if (refusal !== undefined) throw new AgentError("denied", `The extension "${this.name}" cannot run ${command} in ${folder}: ${refusal}`);
        }
        return execCommand(command, args, cwd, options);
      }),
      getActiveTools: active(() => this.session().getToolDefinitions().map((d) => d.name)),
      getAllTools: active(() =>
        this.session().getAllTools().map((tool) => ({
          name: tool.definition.name,
          description: tool.definition.description,
          parameters: tool.definition.parameters,
          sourceInfo: { path: tool.source && tool.source !== "builtin" ? tool.source : `<builtin:${tool.definition.name}>`, source: tool.source ?? "builtin", scope: "temporary", origin: "top-level" },
        })),
      ),
      setActiveTools: active((names: string[]) => this.session().setActiveTools(names)),
      getCommands: active(() => env.runtime && this.listCommands()),
      setModel: active(async (model: PiModelLike) => {
        const session = this.session();
        const models = env.models;
        // As in Pi: a model without credentials is not taken (false), a taken one is the new default.
        if (models?.isAvailable && !models.isAvailable(model.provider, model.id)) return false;
        try {
          session.setModel(models?.describe?.(model.provider, model.id) ?? fromPiModel(model));
          models?.selected?.(model.provider, model.id);
          return true;
        } catch (error) {
          if (error instanceof AgentError && error.code === "no-model") return false;
          throw error;
        }
      }),
      getThinkingLevel: active(() => this.session().getThinkingLevel()),
      setThinkingLevel: active((level: Parameters<AgentSession["setThinkingLevel"]>[0]) => void this.session().setThinkingLevel(level)),
      events: env.bus,
    };
  }

  /** Filled in by the set: every extension's commands (Pi's getCommands). */
  listCommands: () => unknown[] = () => [];
}
