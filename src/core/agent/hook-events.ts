/**
 * The agent events extensions take part in, in the shapes Pi's extension API uses (so a Pi
 * extension's handler reads them unchanged). The agent loop and the agent session raise them
 * through {@link AgentSessionHooks} at the points where Pi raises them; the runtime dispatches them
 * to every extension (Pi's and those registered through Arbor's exported API) in one order.
 */
import type { AgentMessage, ImageContent, TextContent, ToolResultMessage, ThinkingLevel } from "../session/types";
import type { ModelInfo } from "./providers/provider";

/** Where a prompt came from: typed by the user, or sent by an extension (`sendUserMessage`). */
export type InputSource = "interactive" | "rpc" | "extension";

export interface InputEvent {
  type: "input";
  text: string;
  images?: ImageContent[];
  source: InputSource;
}

/** `handled`: the prompt is not sent (the first handler saying so wins); `transform`: later handlers and the model see the new text. */
export type InputResult = { action: "continue" } | { action: "transform"; text: string; images?: ImageContent[] } | { action: "handled" };

/** What Arbor used to build the system prompt of a run (Pi's `systemPromptOptions`). */
export interface SystemPromptOptions {
  cwd: string;
  selectedTools: string[];
  toolSnippets: Record<string, string>;
  promptGuidelines: string[];
  contextFiles: { path: string; content: string }[];
  skills: unknown[];
  customPrompt?: string;
  appendSystemPrompt?: string;
}

export interface BeforeAgentStartEvent {
  type: "before_agent_start";
  prompt: string;
  images?: ImageContent[];
  /** The system prompt as changed by earlier handlers. */
  systemPrompt: string;
  systemPromptOptions: SystemPromptOptions;
}

/** A custom message an extension adds to a prompt; it is recorded as a `custom_message` entry. */
export interface InjectedMessage {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display?: boolean;
  details?: unknown;
}

export interface BeforeAgentStartResult {
  /** Recorded after the user message (every handler's message is kept, in order). */
  message?: InjectedMessage;
  /** Replaces the system prompt for this run; handlers chain. */
  systemPrompt?: string;
}

export interface AgentStartEvent {
  type: "agent_start";
}
export interface AgentEndEvent {
  type: "agent_end";
  /** The messages this run added. */
  messages: AgentMessage[];
}
export interface TurnStartEvent {
  type: "turn_start";
  turnIndex: number;
  timestamp: number;
}
export interface TurnEndEvent {
  type: "turn_end";
  turnIndex: number;
  message: AgentMessage;
  toolResults: ToolResultMessage[];
}
export interface MessageStartEvent {
  type: "message_start";
  message: AgentMessage;
}
export interface MessageUpdateEvent {
  type: "message_update";
  message: AgentMessage;
  /** The stream event that changed the message (with `partial`, the message so far). */
  assistantMessageEvent: { type: string; partial: AgentMessage } & Record<string, unknown>;
}
export interface MessageEndEvent {
  type: "message_end";
  message: AgentMessage;
}
/** A replacement message (same role) recorded instead of the original. */
export interface MessageEndResult {
  message?: AgentMessage;
}

export interface ToolExecutionStartEvent {
  type: "tool_execution_start";
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}
export interface ToolExecutionUpdateEvent {
  type: "tool_execution_update";
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  partialResult: { content: (TextContent | ImageContent)[]; details?: unknown };
}
export interface ToolExecutionEndEvent {
  type: "tool_execution_end";
  toolCallId: string;
  toolName: string;
  result: { content: (TextContent | ImageContent)[]; details?: unknown };
  isError: boolean;
}

/** Before a tool runs. `input` is the call's own argument object: changing it changes what runs. */
export interface ToolCallEvent {
  type: "tool_call";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}
/** `block: true` stops the call; the model reads `reason` as the tool's error result. */
export interface ToolCallResult {
  block?: boolean;
  reason?: string;
}

export interface ToolResultEvent {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  content: (TextContent | ImageContent)[];
  details: unknown;
  isError: boolean;
}
/** Fields a handler changes; later handlers see the change. */
export interface ToolResultPatch {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
}

/** Before each model call: the messages the model is about to get (a copy; return new ones to change them). */
export interface ContextEvent {
  type: "context";
  messages: AgentMessage[];
}
export interface ContextResult {
  messages?: AgentMessage[];
}

/** The provider's request body just before it is sent; returning a value replaces it. */
export interface BeforeProviderRequestEvent {
  type: "before_provider_request";
  payload: unknown;
}

export interface ModelSelectEvent {
  type: "model_select";
  model: ModelInfo;
  previousModel: ModelInfo | undefined;
  source: "set" | "cycle" | "restore";
}
export interface ThinkingLevelSelectEvent {
  type: "thinking_level_select";
  level: ThinkingLevel;
  previousLevel: ThinkingLevel;
}

/** `!cmd` typed by the user. */
export interface UserBashEvent {
  type: "user_bash";
  command: string;
  excludeFromContext: boolean;
  cwd: string;
}
/** Runs a command somewhere else (Pi's BashOperations). */
export interface BashOperations {
  exec(
    command: string,
    cwd: string,
    options: { onData: (data: Buffer) => void; signal?: AbortSignal; timeout?: number; env?: NodeJS.ProcessEnv },
  ): Promise<{ exitCode: number | null }>;
}
/** The whole outcome, when an extension ran the command itself. */
export interface UserBashOutcome {
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}
export interface UserBashResult {
  operations?: BashOperations;
  result?: UserBashOutcome;
}

/** The agent events handlers only observe; they are delivered in order without holding the agent up. */
export type AgentNotification =
  | AgentStartEvent
  | AgentEndEvent
  | TurnStartEvent
  | TurnEndEvent
  | MessageStartEvent
  | MessageUpdateEvent
  | ToolExecutionStartEvent
  | ToolExecutionUpdateEvent
  | ToolExecutionEndEvent
  | ModelSelectEvent
  | ThinkingLevelSelectEvent;
