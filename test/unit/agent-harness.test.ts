/**
 * Shared set-up for the agent, runtime and extension-API tests (no tests of its own): a scripted
 * OpenAI-compatible server on 127.0.0.1, a provider pointed at it, a temp workspace and sessions
 * folder, and helpers to read session files and compare them with the reference implementation.
 * Named `*.test.ts` only because that is the file pattern this suite owns.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type AgentSessionConfig } from "../../src/core/agent/agent-session";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import type { ModelInfo } from "../../src/core/agent/providers/provider";
import type { PiModel } from "../../src/core/models/pi-ai-modules";
import { describePiModel, type PiAiProvider } from "../../src/core/models/pi-ai-provider";
import { convertToLlm } from "../../src/core/context/convert-to-llm";
import { AgentSessionRuntime, type RuntimeOptions } from "../../src/core/runtime/agent-session-runtime";
import { SessionManager } from "../../src/core/session/session-manager";
import type { SessionContext } from "../../src/core/session/types";
import { localModel, localProvider, piAiPayload } from "../support/pi-ai-models";
import { loadReference } from "../support/reference";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { makeTempDir } from "../support/temp-dir";

export const MODEL_ID = "scripted-model";
export const OTHER_MODEL_ID = "scripted-other";

/** Everything one agent test needs; `cleanup` closes the server and removes the folder. */
export interface AgentKit {
  server: ScriptedServer;
  provider: PiAiProvider;
  /** The pi-ai models the provider serves (MODEL_ID first). */
  piModels: PiModel[];
  model: ModelInfo;
  /** The workspace (the session's cwd). */
  cwd: string;
  /** Where sessions are written. */
  sessionDir: string;
  /** The temp root (cwd and sessionDir live inside it). */
  root: string;
  config(extra?: AgentSessionConfig): AgentSessionConfig;
  cleanup(): Promise<void>;
}

/** Starts a scripted server and a provider for it, with a temp cwd and sessions folder. */
export async function makeKit(options: { contextWindow?: number } = {}): Promise<AgentKit> {
  const tmp = makeTempDir("arbor-agent-");
  const cwd = join(tmp.dir, "work");
  const sessionDir = join(tmp.dir, "sessions");
  mkdirSync(cwd, { recursive: true });
  const server = await startScriptedServer();
  // Reasoning models, so that thinking levels other than off are kept; a system role, as local servers expect.
  const piModels = [MODEL_ID, OTHER_MODEL_ID].map((id) =>
    localModel(server.baseUrl, { id, contextWindow: options.contextWindow ?? 128_000, reasoning: true, compat: { supportsDeveloperRole: false } }),
  );
  const provider = localProvider(piModels);
  const model = describePiModel(piModels[0]!);
  return {
    server,
    provider,
    piModels,
    model,
    cwd,
    sessionDir,
    root: tmp.dir,
    config: (extra = {}) => ({ providers: [provider], defaultModel: model, outputDirectory: tmp.dir, ...extra }),
    cleanup: async () => {
      await server.close();
      tmp.cleanup();
    },
  };
}

/** A persisted session in the kit's folders with an AgentSession over it. */
export async function makeSession(kit: AgentKit, extra: AgentSessionConfig = {}): Promise<{ sm: SessionManager; session: AgentSession }> {
  const sm = await SessionManager.create(kit.cwd, { sessionDir: kit.sessionDir });
  return { sm, session: new AgentSession({ ...kit.config(extra), sessionManager: sm }) };
}

/** Every line of a session file, parsed (fails the test on a line that does not parse). */
export function readLines(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, "utf8");
  assert.ok(text.endsWith("\n"), "the file ends with a complete line");
  return text
    .slice(0, -1)
    .split("\n")
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new assert.AssertionError({ message: `line ${i + 1} of ${file} is not JSON: ${line.slice(0, 80)}` });
      }
    });
}

/** The `messages` array the server received in request `index` (chat-completions requests only). */
export function sentMessages(server: ScriptedServer, index: number): unknown[] {
  const completions = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
  const body = completions[index]?.body as { messages?: unknown[] } | undefined;
  assert.ok(body?.messages, `request ${index} has messages`);
  return body.messages;
}

/** What the provider must send for a context: convertToLlm, then pi-ai's own request for it (Pi's wire format). */
export async function expectedChatMessages(kit: AgentKit, systemPrompt: string | undefined, context: SessionContext): Promise<unknown[]> {
  const payload = await piAiPayload(kit.piModels[0]!, { systemPrompt, messages: convertToLlm(context.messages) });
  return payload.messages as unknown[];
}

/** Opens the file with the reference implementation and checks its context equals ours at the same leaf. */
export async function assertPiReadsSame(file: string, ours: SessionContext): Promise<void> {
  const pi = await loadReference();
  const theirs = pi.SessionManager.open(file).buildSessionContext();
  assert.deepEqual(JSON.parse(JSON.stringify(theirs)), JSON.parse(JSON.stringify(ours)));
}

/** Collects a session's events until disposed. */
export function recordEvents(session: AgentSession): { events: AgentSessionEvent[]; types(): string[]; dispose(): void } {
  const events: AgentSessionEvent[] = [];
  const sub = session.onEvent((event) => events.push(event));
  return { events, types: () => events.map((e) => e.type), dispose: () => sub.dispose() };
}

/** Resolves at the first event matching `predicate`. */
export function nextEvent(session: AgentSession, predicate: (event: AgentSessionEvent) => boolean): Promise<AgentSessionEvent> {
  return new Promise((resolve) => {
    const sub = session.onEvent((event) => {
      if (!predicate(event)) return;
      sub.dispose();
      resolve(event);
    });
  });
}

/** Text of an assistant message. */
export function textOf(message: { content: unknown }): string {
  const content = message.content as { type: string; text?: string }[];
  return content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

/** A runtime over a new session in the kit's folders, with one exchange so its file exists. */
export async function startRuntime(kit: AgentKit, options: RuntimeOptions = {}): Promise<AgentSessionRuntime> {
  const runtime = await AgentSessionRuntime.start({ create: kit.cwd }, { configureSession: () => kit.config(), location: { sessionDir: kit.sessionDir }, ...options });
  kit.server.script(reply.text("first answer"));
  await runtime.session.prompt("first question");
  await runtime.session.sessionManager.flush();
  return runtime;
}

/** Another session file on disk, written through its own manager, which is closed again. */
export async function writeOtherSession(kit: AgentKit, cwd = kit.cwd): Promise<string> {
  const sm = await SessionManager.create(cwd, { sessionDir: kit.sessionDir });
  sm.appendMessage({ role: "user", content: "other question", timestamp: Date.now() });
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "other answer" }],
    api: "openai-completions",
    provider: "local",
    model: "scripted-model",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: Date.now(),
  });
  await sm.close();
  return sm.getSessionFile()!;
}

