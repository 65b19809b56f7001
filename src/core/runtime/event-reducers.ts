/**
 * How the answers of several handlers to one event combine (Pi's rules, event by event). Each
 * reducer hands every handler the event as changed by the handlers before it, folds the answer in,
 * and may stop the dispatch. Events without a reducer are observed only: answers are ignored.
 */
import type { AgentMessage } from "../session/types";
import type { ExtensionEventMap, ExtensionEventType } from "./extension-api";

/** What a reducer does with one handler's answer. */
export interface Reduction<S> {
  state: S;
  /** No later handler runs (a cancel, a block, a "handled"). */
  stop?: boolean;
}

export interface EventReducer<E, S, R> {
  start(event: E): S;
  /** The event the next handler sees. */
  eventFor(state: S, original: E): E;
  apply(state: S, answer: unknown, extension: string): Reduction<S>;
  /** What a handler that threw or timed out stands for (default: no answer). */
  onFailure?(state: S, error: Error, extension: string): Reduction<S>;
  result(state: S): R | undefined;
}

type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null;
const defined = (record: Fields): Fields => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));

/** Before-events of sessions: answers merge (a later handler's field wins); the first cancel wins. */
const cancellable: EventReducer<unknown, Fields | undefined, Fields> = {
  start: () => undefined,
  eventFor: (_s, e) => e,
  apply(state, answer) {
    if (!isRecord(answer)) return { state };
    if (answer.cancel === true) return { state: { cancel: true }, stop: true };
    return { state: { ...state, ...defined(answer) } };
  },
  result(state) {
    if (!state) return undefined;
    if (state.cancel === true) return { cancel: true };
    const rest = { ...state };
    delete rest.cancel;
    return rest;
  },
};

/** tool_call: handlers share the (mutable) input; the first block wins; a failing guard blocks. */
const toolCall: EventReducer<ExtensionEventMap["tool_call"], Fields | undefined, Fields> = {
  start: () => undefined,
  eventFor: (_s, e) => e,
  apply(state, answer) {
    if (!isRecord(answer)) return { state };
    return answer.block === true ? { state: answer, stop: true } : { state: answer };
  },
  onFailure: (_s, error, extension) => ({ state: { block: true, reason: `Blocked: the extension "${extension}" failed while checking this call (${error.message}).` }, stop: true }),
  result: (state) => state,
};

type ToolResultState = { event: ExtensionEventMap["tool_result"]; changed: boolean };
/** tool_result: each handler sees the result as changed before it; patches chain field by field. */
const toolResult: EventReducer<ExtensionEventMap["tool_result"], ToolResultState, Fields> = {
  start: (event) => ({ event: { ...event }, changed: false }),
  eventFor: (s) => s.event,
  apply(state, answer) {
    if (!isRecord(answer)) return { state };
    const event = { ...state.event };
    let changed = state.changed;
    if (answer.content !== undefined) {
      event.content = answer.content as typeof event.content;
      changed = true;
    }
    if (answer.details !== undefined) {
      event.details = answer.details;
      changed = true;
    }
    if (answer.isError !== undefined) {
      event.isError = answer.isError === true;
      changed = true;
    }
    return { state: { event, changed } };
  },
  result: (s) => (s.changed ? { content: s.event.content, details: s.event.details, isError: s.event.isError } : undefined),
};

/** context: each handler gets the messages as changed before it (a deep copy to start with). */
const context: EventReducer<ExtensionEventMap["context"], { messages: AgentMessage[]; changed: boolean }, Fields> = {
  start: (event) => ({ messages: structuredClone(event.messages), changed: false }),
  eventFor: (s) => ({ type: "context", messages: s.messages }),
  apply(state, answer) {
    if (!isRecord(answer) || !Array.isArray(answer.messages)) return { state };
    return { state: { messages: answer.messages as AgentMessage[], changed: true } };
  },
  result: (s) => (s.changed ? { messages: s.messages } : undefined),
};

/** before_provider_request: any answer but undefined replaces the payload for later handlers and the request. */
const providerRequest: EventReducer<ExtensionEventMap["before_provider_request"], { payload: unknown; changed: boolean }, { payload: unknown }> = {
  start: (event) => ({ payload: event.payload, changed: false }),
  eventFor: (s) => ({ type: "before_provider_request", payload: s.payload }),
  apply: (state, answer) => (answer === undefined ? { state } : { state: { payload: answer, changed: true } }),
  result: (s) => (s.changed ? { payload: s.payload } : undefined),
};

type AgentStartState = { event: ExtensionEventMap["before_agent_start"]; messages: unknown[]; systemPromptChanged: boolean };
/** before_agent_start: every handler's message is kept, in order; system prompts chain. */
const beforeAgentStart: EventReducer<ExtensionEventMap["before_agent_start"], AgentStartState, Fields> = {
  start: (event) => ({ event: { ...event }, messages: [], systemPromptChanged: false }),
  eventFor: (s) => s.event,
  apply(state, answer) {
    if (!isRecord(answer)) return { state };
    const next = { ...state, messages: [...state.messages] };
    if (isRecord(answer.message)) next.messages.push(answer.message);
    if (typeof answer.systemPrompt === "string") {
      next.event = { ...state.event, systemPrompt: answer.systemPrompt };
      next.systemPromptChanged = true;
    }
    return { state: next };
  },
  result(s) {
    if (s.messages.length === 0 && !s.systemPromptChanged) return undefined;
    return { messages: s.messages.length > 0 ? s.messages : undefined, systemPrompt: s.systemPromptChanged ? s.event.systemPrompt : undefined };
  },
};

type InputState = { event: ExtensionEventMap["input"]; handled: boolean };
/** input: transforms chain; the first "handled" wins and stops the dispatch. */
const input: EventReducer<ExtensionEventMap["input"], InputState, Fields> = {
  start: (event) => ({ event: { ...event }, handled: false }),
  eventFor: (s) => s.event,
  apply(state, answer) {
    if (!isRecord(answer)) return { state };
    if (answer.action === "handled") return { state: { ...state, handled: true }, stop: true };
    if (answer.action === "transform" && typeof answer.text === "string") {
      const images = Array.isArray(answer.images) ? (answer.images as ExtensionEventMap["input"]["images"]) : state.event.images;
      return { state: { ...state, event: { ...state.event, text: answer.text, images } } };
    }
    return { state };
  },
  result(s) {
    if (s.handled) return { action: "handled" };
    return { action: "transform", text: s.event.text, images: s.event.images };
  },
};

/** message_end: a handler may replace the message with one of the same role; later handlers see it. */
const messageEnd: EventReducer<ExtensionEventMap["message_end"], { message: AgentMessage; changed: boolean }, Fields> = {
  start: (event) => ({ message: event.message, changed: false }),
  eventFor: (s) => ({ type: "message_end", message: s.message }),
  apply(state, answer, extension) {
    if (!isRecord(answer) || !isRecord(answer.message)) return { state };
    if (answer.message.role !== state.message.role) {
      throw new Error(`message_end handlers must return a message with the same role (${state.message.role}); "${extension}" returned ${String(answer.message.role)}.`);
    }
    return { state: { message: answer.message as unknown as AgentMessage, changed: true } };
  },
  result: (s) => (s.changed ? { message: s.message } : undefined),
};

/** user_bash: the first handler that answers runs (or answers) the command. */
const userBash: EventReducer<ExtensionEventMap["user_bash"], Fields | undefined, Fields> = {
  start: () => undefined,
  eventFor: (_s, e) => e,
  apply: (state, answer) => (isRecord(answer) && (answer.result !== undefined || answer.operations !== undefined) ? { state: answer, stop: true } : { state }),
  result: (s) => s,
};

const REDUCERS: Partial<Record<ExtensionEventType, EventReducer<never, unknown, unknown>>> = {
  session_before_switch: cancellable,
  session_before_fork: cancellable,
  session_before_tree: cancellable,
  session_before_compact: cancellable,
  tool_call: toolCall,
  tool_result: toolResult,
  context,
  before_provider_request: providerRequest,
  before_agent_start: beforeAgentStart,
  input,
  message_end: messageEnd,
  user_bash: userBash,
} as Partial<Record<ExtensionEventType, EventReducer<never, unknown, unknown>>>;

/** The reducer of an event type, or undefined for observed-only events. */
export function reducerFor(type: ExtensionEventType): EventReducer<unknown, unknown, unknown> | undefined {
  return REDUCERS[type] as EventReducer<unknown, unknown, unknown> | undefined;
}
