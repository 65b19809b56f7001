/**
 * Messages of a simulated coding agent: assistant turns with thinking, text and tool calls and
 * realistic usage, tool results of 0.5–4 KB, and `!cmd` bash executions.
 */
import type {
  AssistantMessage,
  BashExecutionMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "../../src/core/session/types";
import {
  codeSnippet,
  compilerLog,
  filePath,
  gitLog,
  grepOutput,
  identifier,
  reasoning,
  sourceFile,
  testLog,
  unifiedDiff,
  userPrompt,
} from "./content-text";
import { Rng } from "./rng";

export interface ModelProfile {
  provider: string;
  modelId: string;
  api: string;
  /** US dollars per million tokens. */
  price: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Whether the provider signs thinking blocks (the signatures are long and incompressible). */
  signsThinking: boolean;
}

export const MODELS: readonly ModelProfile[] = [
  { provider: "anthropic", modelId: "claude-sonnet-4-5", api: "anthropic-messages", signsThinking: true,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  { provider: "anthropic", modelId: "claude-opus-4-1", api: "anthropic-messages", signsThinking: true,
    price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
  { provider: "openai", modelId: "gpt-5", api: "openai-responses", signsThinking: false,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 } },
  { provider: "google", modelId: "gemini-2.5-pro", api: "google-generative-ai", signsThinking: false,
    price: { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 0 } },
];

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE62 = BASE64.slice(0, 62);

function randomChars(rng: Rng, alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    out += alphabet[Math.floor(rng.next() * alphabet.length)];
  }
  return out;
}

function usageFor(rng: Rng, model: ModelProfile, contextTokens: number, outputTokens: number): Usage {
  const cacheRead = Math.floor(contextTokens * (0.6 + rng.next() * 0.38));
  const cacheWrite = model.price.cacheWrite > 0 ? rng.int(0, Math.max(1, contextTokens - cacheRead)) : 0;
  const input = Math.max(1, contextTokens - cacheRead - cacheWrite);
  const cost = {
    input: (input * model.price.input) / 1e6,
    output: (outputTokens * model.price.output) / 1e6,
    cacheRead: (cacheRead * model.price.cacheRead) / 1e6,
    cacheWrite: (cacheWrite * model.price.cacheWrite) / 1e6,
    total: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output: outputTokens, cacheRead, cacheWrite, totalTokens: input + outputTokens + cacheRead + cacheWrite, cost };
}

export function userMessage(rng: Rng, timestamp: number): UserMessage {
  return { role: "user", content: userPrompt(rng), timestamp };
}

/** A tool call the simulated agent might make. */
export function toolCall(rng: Rng): ToolCall {
  const id = `toolu_${randomChars(rng, BASE62, 24)}`;
  const roll = rng.next();
  if (roll < 0.35) {
    return { type: "toolCall", id, name: "read", arguments: { path: filePath(rng) } };
  }
  if (roll < 0.5) {
    return { type: "toolCall", id, name: "grep", arguments: { pattern: identifier(rng), path: "src" } };
  }
  if (roll < 0.8) {
    const command = rng.pick(["npm run test:unit", "npx tsc -p . --noEmit", "git log --oneline -20", "git diff --stat",
      `npx mocha out/test/unit/${identifier(rng).toLowerCase()}.test.js`]);
    return { type: "toolCall", id, name: "bash", arguments: { command } };
  }
  if (roll < 0.95) {
    return { type: "toolCall", id, name: "edit", arguments: {
      path: filePath(rng),
      edits: [{ oldText: codeSnippet(rng, rng.int(1, 4)), newText: codeSnippet(rng, rng.int(1, 6)) }],
    } };
  }
  return { type: "toolCall", id, name: "write", arguments: { path: filePath(rng), content: sourceFile(rng, rng.skewedInt(200, 1500)) } };
}

function bashOutput(rng: Rng, command: string, size: number): { text: string; failed: boolean } {
  if (command.includes("tsc")) {
    const errors = rng.chance(0.4) ? 0 : rng.int(1, Math.max(1, Math.floor(size / 150)));
    return { text: errors === 0 ? "" : compilerLog(rng, errors), failed: errors > 0 };
  }
  if (command.startsWith("git log")) {
    return { text: gitLog(rng, 20), failed: false };
  }
  if (command.startsWith("git diff")) {
    return { text: unifiedDiff(rng, filePath(rng), rng.int(1, 4)), failed: false };
  }
  const failed = rng.chance(0.35);
  return { text: testLog(rng, size, failed), failed };
}

/** The result the tool would return for `call`. */
export function toolResult(rng: Rng, call: ToolCall, timestamp: number): ToolResultMessage {
  // The generators overshoot a little (they finish the block they are in), so aim a bit lower.
  const size = rng.skewedInt(250, 3000, 2.8);
  const args = call.arguments as { path?: string; command?: string };
  let text: string;
  let isError = false;
  let details: unknown;
  switch (call.name) {
    case "read":
      text = sourceFile(rng, size);
      break;
    case "grep":
      text = grepOutput(rng, size);
      break;
    case "bash": {
      const out = bashOutput(rng, args.command ?? "", size);
      text = out.text + (out.failed ? `\n\nCommand exited with code ${rng.int(1, 2)}` : "");
      isError = out.failed;
      break;
    }
    case "edit":
      isError = rng.chance(0.1);
      text = isError
        ? `Could not find the exact text in ${args.path}. The old text must match exactly, including whitespace.`
        : `Successfully replaced 1 block(s) in ${args.path}.`;
      details = isError ? undefined : { diff: unifiedDiff(rng, args.path ?? "", 1), firstChangedLine: rng.int(1, 300) };
      break;
    default:
      text = `Successfully wrote ${rng.int(300, 1500)} bytes to ${args.path}`;
  }
  const content: TextContent[] = [{ type: "text", text: text || "(no output)" }];
  return { role: "toolResult", toolCallId: call.id, toolName: call.name, content, details, isError, timestamp };
}

export interface AssistantShape {
  model: ModelProfile;
  contextTokens: number;
  timestamp: number;
  toolCalls: ToolCall[];
  stopReason: StopReason;
}

export function assistantMessage(rng: Rng, shape: AssistantShape): AssistantMessage {
  const content: (TextContent | ThinkingContent | ToolCall)[] = [];
  if (rng.chance(0.8)) {
    const block: ThinkingContent = { type: "thinking", thinking: reasoning(rng, 40, 450) };
    if (shape.model.signsThinking) {
      block.thinkingSignature = randomChars(rng, BASE64, rng.int(100, 400));
    }
    content.push(block);
  }
  if (shape.toolCalls.length === 0 || rng.chance(0.5)) {
    content.push({ type: "text", text: reasoning(rng, 40, shape.toolCalls.length === 0 ? 1000 : 200) });
  }
  content.push(...shape.toolCalls);
  const outputChars = content.reduce((sum, block) => sum + JSON.stringify(block).length, 0);
  const message: AssistantMessage = {
    role: "assistant",
    content,
    api: shape.model.api,
    provider: shape.model.provider,
    model: shape.model.modelId,
    usage: usageFor(rng, shape.model, shape.contextTokens, Math.ceil(outputChars / 4)),
    stopReason: shape.stopReason,
    timestamp: shape.timestamp,
  };
  if (shape.stopReason === "error") {
    message.errorMessage = `${rng.int(429, 529)} ${rng.pick(["overloaded_error", "rate_limit_error", "api_error"])}: request ${rng.hex(16)}`;
  }
  return message;
}

/** What a user's `!cmd` (or `!!cmd`, kept out of the context) produces. */
export function bashExecution(rng: Rng, timestamp: number): BashExecutionMessage {
  const command = rng.pick(["git status", "npm run test:unit", "ls -la src/core", "git log --oneline -20", "npx tsc -p . --noEmit"]);
  const { text, failed } = bashOutput(rng, command, rng.skewedInt(300, 3000, 1.5));
  return {
    role: "bashExecution",
    command,
    output: text,
    exitCode: failed ? 1 : 0,
    cancelled: false,
    truncated: false,
    timestamp,
    excludeFromContext: rng.chance(0.2) ? true : undefined,
  };
}
