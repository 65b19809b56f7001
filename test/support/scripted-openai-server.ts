/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions streaming protocol from a script.
 *
 * Each POST to `.../chat/completions` takes the next scripted reply; GET `.../models` lists the configured
 * models. Every request is recorded (method, path, headers, body) along with whether the client closed
 * the connection before the reply was complete, so tests can assert what was sent and that an abort
 * really reached the network. `close()` destroys every open socket and pending timer.
 *
 * Build replies with {@link reply}:
 * ```ts
 * const server = await startScriptedServer();
 * server.script(reply.text("Hello", { chunks: 3 }), reply.overflow());
 * // ... point a provider at server.baseUrl ...
 * await server.close();
 * ```
 */

import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";

// ---------------------------------------------------------------------------
// Scripted replies
// ---------------------------------------------------------------------------

/** Token counts for the usage chunk (OpenAI's field names in camelCase). */
export interface UsageSpec {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** One step of a streamed reply, written after waiting `delayMs`. */
export type StreamStep = { delayMs?: number } & (
  | { type: "chunk"; delta: Record<string, unknown>; finishReason?: string | null }
  | { type: "finish"; finishReason: string }
  | { type: "usage"; usage: UsageSpec }
  /** `data: <JSON>` with any payload (e.g. a mid-stream error object). */
  | { type: "json"; value: unknown }
  /** Bytes written exactly as given (for SSE framing cases). */
  | { type: "raw"; bytes: string | Uint8Array }
  | { type: "done" }
  /** Destroys the socket: the client sees the connection drop. */
  | { type: "drop" }
  /** Stops writing and keeps the response open until the client goes away or the server closes. */
  | { type: "hang" }
  /** Writes nothing until `until` settles (a test releases the reply once it has seen what it waits for), then goes on. */
  | { type: "wait"; until: Promise<unknown> }
);

export interface ScriptedStreamReply {
  kind: "stream";
  steps: StreamStep[];
}

export interface ScriptedHttpReply {
  kind: "http";
  status: number;
  body: string;
  contentType: string;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
}

export type ScriptedReply = ScriptedStreamReply | ScriptedHttpReply;

export interface TextReplyOptions {
  /** How many content chunks to split the text into (default 1). */
  chunks?: number;
  /** Wait before each content chunk, for slow streams (default 0). */
  delayMs?: number;
  /** The usage chunk to send after the finish chunk; `false` sends none. Default: a small fixed count. */
  usage?: UsageSpec | false;
  /** Default "stop". */
  finishReason?: string;
}

export interface ToolCallSpec {
  /** Default `call_<n>`. */
  id?: string;
  name: string;
  /** An object is sent as its JSON text; a string is sent as it is (to script malformed or partial arguments). */
  arguments: Record<string, unknown> | string;
}

export interface ToolCallReplyOptions {
  /** Text the model says before calling the tools. */
  text?: string;
  /** How many pieces each call's arguments text is split into (default 3). */
  argumentChunks?: number;
  delayMs?: number;
  usage?: UsageSpec | false;
  /** Default "tool_calls". */
  finishReason?: string;
}

const DEFAULT_USAGE: UsageSpec = { promptTokens: 12, completionTokens: 5 };

/** Builders for scripted replies. */
export const reply = {
  /** A streamed text reply split into `chunks` content deltas, then finish, usage and `[DONE]`. */
  text(text: string, options: TextReplyOptions = {}): ScriptedStreamReply {
    const steps: StreamStep[] = [{ type: "chunk", delta: { role: "assistant", content: "" } }];
    steps.push(...contentSteps("content", text, options.chunks ?? 1, options.delayMs));
    return { kind: "stream", steps: [...steps, ...closingSteps(options.finishReason ?? "stop", options.usage)] };
  },

  /** Reasoning deltas (in `field`, default `reasoning_content`), then the answer text. */
  reasoning(
    thinking: string,
    text: string,
    options: TextReplyOptions & { field?: "reasoning_content" | "reasoning" | "reasoning_text" } = {},
  ): ScriptedStreamReply {
    const steps: StreamStep[] = [{ type: "chunk", delta: { role: "assistant" } }];
    steps.push(...contentSteps(options.field ?? "reasoning_content", thinking, options.chunks ?? 1, options.delayMs));
    steps.push(...contentSteps("content", text, options.chunks ?? 1, options.delayMs));
    return { kind: "stream", steps: [...steps, ...closingSteps(options.finishReason ?? "stop", options.usage)] };
  },

  /** One or more tool calls, each opened with its id and name, its arguments split across chunks. */
  toolCall(calls: ToolCallSpec | ToolCallSpec[], options: ToolCallReplyOptions = {}): ScriptedStreamReply {
    const list = Array.isArray(calls) ? calls : [calls];
    const steps: StreamStep[] = [{ type: "chunk", delta: { role: "assistant", content: null } }];
    if (options.text) steps.push(...contentSteps("content", options.text, 1, options.delayMs));
    list.forEach((call, index) => {
      const id = call.id ?? `call_${index + 1}`;
      const argumentsText = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      steps.push({
        type: "chunk",
        delayMs: options.delayMs,
        delta: { tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] },
      });
      for (const piece of splitText(argumentsText, options.argumentChunks ?? 3)) {
        steps.push({
          type: "chunk",
          delayMs: options.delayMs,
          delta: { tool_calls: [{ index, function: { arguments: piece } }] },
        });
      }
    });
    return { kind: "stream", steps: [...steps, ...closingSteps(options.finishReason ?? "tool_calls", options.usage)] };
  },

  /** A non-streamed HTTP error; an object body is sent as JSON. */
  error(status: number, body: unknown = { error: { message: `Scripted error ${status}` } }, headers?: Record<string, string>): ScriptedHttpReply {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const contentType = typeof body === "string" ? "text/plain" : "application/json";
    return { kind: "http", status, body: text, contentType, ...(headers ? { headers } : {}) };
  },

  /** OpenAI's context-overflow error: HTTP 400 with code `context_length_exceeded`. */
  overflow(contextWindow = 8192, requested = 9000): ScriptedHttpReply {
    return reply.error(400, {
      error: {
        message: `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    });
  },

  /** Streams `text` in `chunks` deltas but destroys the connection after `afterChunks` of them. */
  drop(afterChunks: number, text = "partial reply that never finishes", options: { chunks?: number; delayMs?: number } = {}): ScriptedStreamReply {
    const content = contentSteps("content", text, options.chunks ?? Math.max(afterChunks + 1, 2), options.delayMs);
    return { kind: "stream", steps: [...content.slice(0, afterChunks), { type: "drop", delayMs: options.delayMs }] };
  },

  /** Streams `text` then never finishes (for abort tests). */
  hang(text = "", options: { chunks?: number; delayMs?: number } = {}): ScriptedStreamReply {
    const content = text === "" ? [] : contentSteps("content", text, options.chunks ?? 1, options.delayMs);
    return { kind: "stream", steps: [{ type: "chunk", delta: { role: "assistant", content: "" } }, ...content, { type: "hang" }] };
  },

  /** Any sequence of steps (see {@link StreamStep}). */
  steps(...steps: StreamStep[]): ScriptedStreamReply {
    return { kind: "stream", steps };
  },
};

/** Splits text into `count` nearly equal pieces on code point boundaries. */
export function splitText(text: string, count: number): string[] {
  const points = Array.from(text);
  const pieces = Math.max(1, Math.min(count, points.length));
  const out: string[] = [];
  for (let i = 0; i < pieces; i++) {
    out.push(points.slice(Math.floor((i * points.length) / pieces), Math.floor(((i + 1) * points.length) / pieces)).join(""));
  }
  return out;
}

function contentSteps(field: string, text: string, chunks: number, delayMs: number | undefined): StreamStep[] {
  if (text === "") return [];
  return splitText(text, chunks).map((piece) => ({ type: "chunk", delayMs, delta: { [field]: piece } }));
}

function closingSteps(finishReason: string, usage: UsageSpec | false | undefined): StreamStep[] {
  const steps: StreamStep[] = [{ type: "finish", finishReason }];
  if (usage !== false) steps.push({ type: "usage", usage: usage ?? DEFAULT_USAGE });
  steps.push({ type: "done" });
  return steps;
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

export interface RecordedRequest {
  method: string;
  /** The path with query, e.g. "/v1/chat/completions". */
  path: string;
  /** Lower-cased header names, as Node gives them. */
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  /** Resolves once the connection of this request is closed or its response is complete. */
  closed: Promise<void>;
  /** True once the client went away before the response was complete (not counting a scripted drop). */
  clientAborted: boolean;
}

export interface ScriptedServerOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
  /** What GET /models lists (OpenAI's `data` entries). Default: one model, "scripted-model". */
  models?: Record<string, unknown>[];
  /** Answers a chat-completions request when no scripted reply is queued (a model that always answers). */
  respond?: (body: unknown) => ScriptedReply;
}

export interface ScriptedServer {
  /** e.g. "http://127.0.0.1:12345/v1": give it to a provider as its base URL. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues replies; each chat-completions request takes the next one. */
  script(...replies: ScriptedReply[]): void;
  /** Replies scripted but not yet taken. */
  pendingReplies(): number;
  setModels(models: Record<string, unknown>[]): void;
  /** Stops the server, destroying open connections and timers. */
  close(): Promise<void>;
}

/** Starts a scripted server on 127.0.0.1 with a free port. */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let models = options.models ?? [{ id: "scripted-model", object: "model", owned_by: "arbor-tests" }];
  let closing = false;
  let completionCount = 0;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0 || closing) return resolve();
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let droppedByServer = false;
      let markClosed!: () => void;
      const record: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
        closed: new Promise<void>((resolve) => (markClosed = resolve)),
        clientAborted: false,
      };
      requests.push(record);
      res.on("close", () => {
        if (!res.writableFinished && !droppedByServer && !closing) record.clientAborted = true;
        markClosed();
      });
      const drop = (): void => {
        droppedByServer = true;
        res.socket?.destroy();
      };
      void handle(record, res, drop).catch(() => drop());
    });
  });

  const handle = async (request: RecordedRequest, res: http.ServerResponse, drop: () => void): Promise<void> => {
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } });
    }
    const path = (request.path.split("?")[0] ?? "").replace(/\/+$/, "");
    if (request.method === "GET" && path.endsWith("/models")) {
      return sendJson(res, 200, { object: "list", data: models });
    }
    if (request.method !== "POST" || !path.endsWith("/chat/completions")) {
      return sendJson(res, 404, { error: { message: `No route for ${request.method} ${request.path}` } });
    }
    const next = queue.shift() ?? options.respond?.(request.body);
    if (!next) {
      return sendJson(res, 500, { error: { message: "The scripted server has no reply left for this request." } });
    }
    if (next.kind === "http") {
      res.writeHead(next.status, { ...next.headers, "content-type": next.contentType });
      res.end(next.body);
      return;
    }
    completionCount += 1;
    const body = request.body as { model?: unknown } | undefined;
    const context = { id: `chatcmpl-scripted-${completionCount}`, model: typeof body?.model === "string" ? body.model : "scripted-model" };
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    // Send the headers now: a client waiting for the response must see it start even before the first chunk.
    res.flushHeaders();
    for (const step of next.steps) {
      await sleep(step.delayMs ?? 0);
      if (closing || res.destroyed) return;
      if (step.type === "drop") return drop();
      if (step.type === "hang") return;
      if (step.type === "wait") {
        await Promise.race([step.until.catch(() => undefined), closed(res)]);
        if (closing || res.destroyed) return;
        continue;
      }
      await write(res, renderStep(step, context));
    }
    res.end();
  };

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    pendingReplies: () => queue.length,
    setModels: (next) => void (models = next),
    close: async () => {
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function renderStep(step: StreamStep, context: { id: string; model: string }): string | Uint8Array {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    sse({ id: context.id, object: "chat.completion.chunk", created: 1_700_000_000, model: context.model, choices, ...extra });
  switch (step.type) {
    case "chunk":
      return chunk([{ index: 0, delta: step.delta, finish_reason: step.finishReason ?? null }]);
    case "finish":
      return chunk([{ index: 0, delta: {}, finish_reason: step.finishReason }]);
    case "usage": {
      const { promptTokens, completionTokens, cachedTokens } = step.usage;
      const usage: Record<string, unknown> = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      };
      if (cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: cachedTokens };
      return chunk([], { usage });
    }
    case "json":
      return sse(step.value);
    case "raw":
      return step.bytes;
    case "done":
      return "data: [DONE]\n\n";
    default:
      return "";
  }
}

/** Resolves once the response's connection is closed (the client went away or the server is closing). */
function closed(res: http.ServerResponse): Promise<void> {
  return res.closed ? Promise.resolve() : new Promise((resolve) => res.once("close", () => resolve()));
}

/** Resolves once the bytes are handed to the socket, so a following drop cannot discard them. */
function write(res: http.ServerResponse, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    const settle = (): void => {
      res.off("close", settle);
      resolve();
    };
    res.once("close", settle);
    res.write(data, () => settle());
  });
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
