/**
 * The runtime's side of the agent session's hooks: every hook becomes an event dispatched to the
 * registered extensions. Observed events (message_update, turn_end, ...) go through one queue per
 * session, in order, without holding the agent up; an event that can answer (tool_call, context,
 * message_end, the before-events, ...) first waits for that queue to drain, so every extension
 * sees every event in the order it happened (Pi does the same).
 */
import type { AgentNotification } from "../agent/hook-events";
import type { AgentSessionHooks } from "../agent/hooks";
import type { AgentMessage } from "../session/types";
import type { ExtensionContext, ExtensionEventMap, ExtensionEventResultMap, ExtensionEventType } from "./extension-api";
import type { ExtensionHost } from "./extension-host";

export interface RuntimeAgentHooks extends AgentSessionHooks {
  /** Resolves once every queued observed event has been delivered. */
  drain(): Promise<void>;
}

/** `context` gives the context bound to this session; after a replacement it throws, and queued events are dropped. */
export function createAgentHooks(extensions: ExtensionHost, context: () => ExtensionContext): RuntimeAgentHooks {
  let tail: Promise<unknown> = Promise.resolve();

  const request = async <K extends ExtensionEventType>(type: K, event: ExtensionEventMap[K]): Promise<ExtensionEventResultMap[K] | undefined> => {
    await tail;
    if (!extensions.hasHandlers(type)) return undefined;
    return extensions.emit(type, event, context());
  };

  return {
    drain: () => tail.then(() => undefined),
    notify(event: AgentNotification) {
      if (!extensions.hasHandlers(event.type)) return;
      let ctx: ExtensionContext;
      try {
        ctx = context();
      } catch {
        return; // the session was replaced: its events are over
      }
      tail = tail.then(() => extensions.emit(event.type, event as never, ctx)).catch(() => undefined);
    },
    beforeTree: (event) => request("session_before_tree", event),
    afterTree: async (event) => void (await request("session_tree", event)),
    beforeCompact: (event) => request("session_before_compact", event),
    afterCompact: async (event) => void (await request("session_compact", event)),
    input: (event) => request("input", event),
    beforeAgentStart: (event) => request("before_agent_start", event),
    context: async (messages: AgentMessage[]) => (await request("context", { type: "context", messages }))?.messages,
    beforeProviderRequest: async (payload) => {
      const answer = (await request("before_provider_request", { type: "before_provider_request", payload })) as { payload: unknown } | undefined;
      return answer?.payload;
    },
    toolCall: (event) => request("tool_call", event),
    toolResult: (event) => request("tool_result", event),
    messageEnd: async (message) => (await request("message_end", { type: "message_end", message }))?.message,
    userBash: (event) => request("user_bash", event),
  };
}
