import type { AgentSession } from "../agent/agent-session";
import type { ExtensionContext, ExtensionMessage, NavigateOptions, SendMessageOptions, WithSessionOptions } from "./extension-api";
import type { ImageContent, TextContent } from "../session/types";

/**
 * The one message every call on a stale extension context throws. Defined once, here; tests and
 * docs refer to this constant.
 */
export const STALE_CONTEXT_MESSAGE =
  "This Arbor extension context is stale: the session it was bound to was replaced (switched, new, forked or reloaded). " +
  "Do follow-up work in the withSession callback and use the fresh context it receives, not one captured before the replacement.";

/** Thrown by every member of a context whose session was replaced. */
export class StaleContextError extends Error {
  constructor() {
    super(STALE_CONTEXT_MESSAGE);
    this.name = "StaleContextError";
  }
}

/** The replacements a context can start; the runtime provides them. */
export interface RuntimeControls {
  newSession(options?: WithSessionOptions & { parentSession?: string }): Promise<{ cancelled: boolean }>;
  switchSession(sessionFile: string, options?: WithSessionOptions): Promise<{ cancelled: boolean }>;
  fork(entryId: string, options?: WithSessionOptions & { position?: "before" | "at" }): Promise<{ cancelled: boolean }>;
}

/**
 * Ties extension contexts to one agent session. The runtime invalidates the binding when it
 * replaces the session; from then on every context made from it throws {@link StaleContextError},
 * so an old context can write neither to the new session nor to the old one.
 */
export class SessionBinding {
  private stale = false;

  constructor(
    readonly session: AgentSession,
    private readonly controls: RuntimeControls,
  ) {}

  get isStale(): boolean {
    return this.stale;
  }

  invalidate(): void {
    this.stale = true;
  }

  /** Throws the stale error once the session was replaced. */
  assertLive(): AgentSession {
    if (this.stale) throw new StaleContextError();
    return this.session;
  }

  /** A context for extension code; cheap, so one is made per event. */
  createContext(): ExtensionContext {
    const live = (): AgentSession => this.assertLive();
    const sm = () => live().sessionManager;
    const controls = this.controls;
    return Object.freeze({
      get sessionId() {
        return sm().getSessionId();
      },
      get sessionFile() {
        return sm().getSessionFile();
      },
      get cwd() {
        return sm().getCwd();
      },
      get readOnly() {
        return live().isReadOnly();
      },
      appendEntry: (customType: string, data?: unknown) => live().appendCustomEntry(customType, data),
      sendMessage: (message: ExtensionMessage, options?: SendMessageOptions) => live().sendCustomMessage(message, options),
      // Stale checks throw at the call, not in a rejected promise, like every other member.
      sendUserMessage: (content: string | (TextContent | ImageContent)[], options?: { deliverAs?: "steer" | "followUp" }) =>
        live().sendUserMessage(content, options).then(() => undefined),
      isIdle: () => live().isIdle(),
      waitForIdle: () => live().waitForIdle(),
      newSession: (options?: WithSessionOptions & { parentSession?: string }) => (live(), controls.newSession(options)),
      switchSession: (file: string, options?: WithSessionOptions) => (live(), controls.switchSession(file, options)),
      fork: (entryId: string, options?: WithSessionOptions & { position?: "before" | "at" }) => (live(), controls.fork(entryId, options)),
      navigateTree: (targetId: string, options?: NavigateOptions) => live().navigateTree(targetId, options).then((r) => ({ cancelled: r.cancelled })),
      setLabel: (entryId: string, label: string | undefined) => live().setLabel(entryId, label),
      setSessionName: (name: string) => live().setSessionName(name),
      getSessionName: () => sm().getSessionName(),
      getLeafId: () => sm().getLeafId(),
      getEntry: (id: string) => copy(sm().getEntry(id)),
      getBranch: (fromId?: string) => copy(sm().getBranch(fromId)),
      getTree: () => copy(sm().getTree()),
      getLabel: (entryId: string) => sm().getLabel(entryId),
    });
  }
}

/** Extensions get copies, so they cannot change entries behind the session's back. */
function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
