/**
 * Limits on what a model endpoint can make Arbor do: how long a call may take, how long one line of
 * a streamed reply may grow, how much of an error body is read, and whether an API key may travel
 * unencrypted.
 *
 * pi-ai streams through vendor SDKs (OpenAI's and Anthropic's for most APIs), which read whatever the
 * server sends: an endless line without a newline, or a gigabyte error page, would be buffered whole.
 * Both SDKs route every HTTP call through their client's `fetchWithTimeout` method, a public method
 * meant to be overridden; {@link installResponseGuard} wraps it once per SDK class so that the
 * responses of Arbor's own calls are capped. Which calls are Arbor's is told by the AbortSignal:
 * the provider registers the signal it passes with its limits ({@link guardRequestsOf}), and responses
 * to any other call pass through untouched. In the extension bundle each SDK is a private copy.
 *
 * Pure core: no `vscode`.
 */

/** Limits for one model call. */
export interface EndpointLimits {
  /** The whole call, from sending the request to the last byte of the reply, in milliseconds. */
  timeoutMs: number;
  /** The longest line of a streamed reply, in bytes (one SSE line carries one chunk). */
  maxLineBytes: number;
  /** Bytes of an error response read for its message; the rest is dropped unread. */
  maxErrorBodyBytes: number;
}

export const DEFAULT_ENDPOINT_LIMITS: Readonly<EndpointLimits> = {
  timeoutMs: 20 * 60_000,
  maxLineBytes: 8 * 1024 * 1024,
  maxErrorBodyBytes: 16 * 1024,
};

/** Why a reply was cut off by a limit; becomes the message's `errorMessage`. */
export class EndpointLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EndpointLimitError";
  }
}

/** The message of a call stopped by the overall timeout. */
export function timeoutMessage(timeoutMs: number): string {
  return `The model did not finish its reply within ${formatDuration(timeoutMs)}, so Arbor stopped waiting.`;
}

export function lineTooLongMessage(maxLineBytes: number): string {
  return `The model endpoint sent a line longer than ${formatBytes(maxLineBytes)} without a line break; Arbor stopped reading the reply.`;
}

const guardedSignals = new WeakMap<AbortSignal, EndpointLimits>();

/** Marks the calls made with `signal` as Arbor's, to be held to `limits`. */
export function guardRequestsOf(signal: AbortSignal, limits: EndpointLimits): void {
  guardedSignals.set(signal, limits);
}

/** Sees the status and headers of each response to a guarded call (e.g. an error's `Retry-After`). */
export type ResponseObserver = (response: { status: number; headers: Headers }) => void;

const observers = new WeakMap<AbortSignal, ResponseObserver>();

/** Has `observer` told of every response to the calls made with `signal` (a guarded signal). */
export function observeResponsesOf(signal: AbortSignal, observer: ResponseObserver): void {
  observers.set(signal, observer);
}

type FetchWithTimeout = (url: unknown, init: RequestInit | undefined, ms: number, controller: AbortController) => Promise<Response>;

/** A vendor SDK client class whose HTTP calls go through `fetchWithTimeout` (the OpenAI and Anthropic SDKs). */
export interface GuardableSdkClass {
  prototype: { fetchWithTimeout?: FetchWithTimeout };
}

const INSTALLED = Symbol.for("arbor.endpointGuard");

/** Wraps the SDK class's `fetchWithTimeout` (once) so the responses of guarded calls are capped. */
export function installResponseGuard(sdkClass: GuardableSdkClass): void {
  const proto = sdkClass.prototype as GuardableSdkClass["prototype"] & { [INSTALLED]?: true };
  const original = proto.fetchWithTimeout;
  if (typeof original !== "function") {
    throw new Error("This version of the vendor SDK has no fetchWithTimeout; Arbor cannot cap its responses.");
  }
  if (proto[INSTALLED]) return;
  proto.fetchWithTimeout = async function guardedFetchWithTimeout(this: unknown, url, init, ms, controller) {
    const response = await original.call(this, url, init, ms, controller);
    const limits = init?.signal ? guardedSignals.get(init.signal) : undefined;
    if (init?.signal) observers.get(init.signal)?.({ status: response.status, headers: response.headers });
    return limits ? capResponse(response, limits) : response;
  };
  proto[INSTALLED] = true;
}

/**
 * A response whose body keeps to the limits: an error body is read up to `maxErrorBodyBytes` (the
 * rest is cancelled, and a note says so); a successful body fails as soon as one line exceeds
 * `maxLineBytes`. Status and headers are kept.
 */
export async function capResponse(response: Response, limits: EndpointLimits): Promise<Response> {
  if (!response.body) return response;
  const headers = new Headers(response.headers);
  // The body handed on is already decoded and may be shorter than announced.
  headers.delete("content-length");
  headers.delete("content-encoding");
  const init = { status: response.status, statusText: response.statusText, headers };
  if (!response.ok) {
    const { bytes, truncated } = await readAtMost(response.body, limits.maxErrorBodyBytes);
    let text = new TextDecoder().decode(bytes);
    if (truncated) text += `\n[Arbor read only the first ${formatBytes(limits.maxErrorBodyBytes)} of this error response]`;
    return new Response(text, init);
  }
  return new Response(response.body.pipeThrough(lineLengthCap(limits.maxLineBytes)), init);
}

/** Reads up to `max` bytes and cancels the rest of the stream. */
export async function readAtMost(body: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > max) {
        chunks.push(value.subarray(0, max - size));
        size = max;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/**
 * Passes bytes through unchanged and errors the stream (cancelling the source) once a line grows past
 * `max`. The complete lines before the long one are still passed on, so what streamed is kept.
 */
export function lineLengthCap(max: number): TransformStream<Uint8Array, Uint8Array> {
  let run = 0;
  return new TransformStream({
    transform(chunk, controller) {
      let lineStart = 0;
      for (let i = 0; i < chunk.byteLength; i++) {
        const byte = chunk[i];
        // SSE ends lines with \n, \r or \r\n.
        if (byte === 0x0a || byte === 0x0d) {
          run = 0;
          lineStart = i + 1;
        } else if (++run > max) {
          if (lineStart > 0) controller.enqueue(chunk.subarray(0, lineStart));
          controller.error(new EndpointLimitError(lineTooLongMessage(max)));
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Plain HTTP

/** Whether a host name is this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (/^127(?:\.\d{1,3}){3}$/.test(host)) return true;
  if (/^::ffff:127(?:\.\d{1,3}){3}$/.test(host)) return true;
  // IPv6 loopback in any spelling: all zero groups, then 1.
  return /^(?:0{0,4}:){2,7}0{0,3}1$/.test(host) || host === "::1";
}

/**
 * The origin a credential would travel to unencrypted: `http://` to a host that is not this
 * machine. Undefined for https, loopback, or a URL that does not parse (the SDK reports that).
 */
export function insecureCredentialOrigin(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:") return undefined;
  return isLoopbackHost(url.hostname) ? undefined : url.origin;
}

/** Header names that carry credentials. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cf-aig-authorization"]);

/** Whether request headers carry a credential (a key set through `headers` in models.json, for one). */
export function hasCredentialHeader(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => CREDENTIAL_HEADERS.has(name.toLowerCase()));
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}
