import type { AgentSession } from "../agent/agent-session";
import type { ExtensionContext, ExtensionMessage } from "./extension-api";

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

/**
 * Ties extension contexts to one agent session. The runtime invalidates the binding when it
 * replaces the session; from then on every context made from it throws {@link StaleContextError},
 * so an old context can write neither to the new session nor to the old one.
 */
export class SessionBinding {
  private stale = false;

  constructor(readonly session: AgentSession) {}

  get isStale(): boolean {
    return this.stale;
  }

  invalidate(): void {
    this.stale = true;
  }

  /** A context for extension code; cheap, so one is made per event. */
  createContext(): ExtensionContext {
    const live = (): AgentSession => {
      if (this.stale) throw new StaleContextError();
      return this.session;
    };
    const sm = () => live().sessionManager;
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
      sendMessage: (message: ExtensionMessage) => live().sendCustomMessage(message),
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
