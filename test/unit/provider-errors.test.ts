import * as assert from "node:assert/strict";
import type { AssistantMessage } from "../../src/core/session/types";
import { createEmptyUsage } from "../../src/core/agent/providers/provider";
import {
  classifyProviderError,
  describeHttpError,
  isContextOverflow,
  type ProviderErrorKind,
} from "../../src/core/agent/providers/provider-errors";

function failed(errorMessage: string, stopReason: AssistantMessage["stopReason"] = "error"): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage: createEmptyUsage(),
    stopReason,
    errorMessage,
    timestamp: 1,
  };
}

/** Error texts as providers word them, each with the kind it must be classified as. */
const SAMPLES: [string, ProviderErrorKind][] = [
  ["HTTP 400: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. (context_length_exceeded)", "context_overflow"],
  ["HTTP 400: Your input exceeds the context window of this model. (context_length_exceeded)", "context_overflow"],
  ["HTTP 400: prompt is too long: 213462 tokens > 200000 maximum", "context_overflow"],
  ["HTTP 400: This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens.", "context_overflow"],
  ["HTTP 400: the request exceeds the available context size, try increasing it", "context_overflow"],
  ["HTTP 400: Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of 8192. tokens to keep from the initial prompt is greater than the context length", "context_overflow"],
  ["HTTP 500: prompt too long; exceeded max context length by 1201 tokens", "context_overflow"],
  ["HTTP 400: The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", "context_overflow"],
  ["HTTP 400: This model's maximum prompt length is 131072 but the request contains 537812 tokens.", "context_overflow"],
  ["HTTP 400: Please reduce the length of the messages or completion.", "context_overflow"],
  ["HTTP 413 Payload Too Large (empty response body)", "context_overflow"],
  ["HTTP 429: Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.", "rate_limit"],
  ["HTTP 429: Too many tokens per minute, please slow down", "rate_limit"],
  ["HTTP 429: You exceeded your current quota, please check your plan and billing details. (insufficient_quota)", "rate_limit"],
  ["HTTP 401: Incorrect API key provided. (invalid_api_key)", "auth"],
  ["HTTP 403: Project does not have access to model gpt-5", "auth"],
  ["HTTP 503: The engine is currently overloaded.", "server"],
  ["Connection failed: fetch failed (connect ECONNREFUSED 127.0.0.1:11434)", "network"],
  ["Connection lost mid-stream: terminated (other side closed)", "network"],
  ["HTTP 400: Invalid value for 'temperature'", "other"],
  ['The provider ended the reply with finish_reason "content_filter".', "other"],
];

describe("provider error classification", () => {
  for (const [text, kind] of SAMPLES) {
    it(`classifies "${text.slice(0, 60)}…" as ${kind}`, () => {
      const message = failed(text);
      assert.equal(classifyProviderError(message), kind);
      assert.equal(isContextOverflow(message), kind === "context_overflow");
    });
  }

  it("does not classify a successful reply, and calls an aborted one aborted", () => {
    assert.equal(classifyProviderError(failed("", "stop")), undefined);
    assert.equal(classifyProviderError(failed("The request was aborted.", "aborted")), "aborted");
    assert.equal(isContextOverflow(failed("maximum context length is 10 tokens", "aborted")), false);
  });

  it("detects a silent overflow from usage when the context window is given", () => {
    const message = failed("", "stop");
    delete message.errorMessage;
    message.usage.input = 5000;
    message.usage.cacheRead = 4000;
    assert.equal(isContextOverflow(message, 8192), true);
    assert.equal(isContextOverflow(message, 10000), false);
    assert.equal(isContextOverflow(message), false);
  });
});

describe("describeHttpError", () => {
  it("takes the message from the usual JSON error shapes and keeps the code", () => {
    assert.equal(describeHttpError(400, "Bad Request", '{"error":{"message":"Bad thing","type":"invalid_request_error","code":"bad_thing"}}'), "HTTP 400: Bad thing (bad_thing)");
    assert.equal(describeHttpError(404, "Not Found", '{"error":"model \\"x\\" not found"}'), 'HTTP 404: model "x" not found');
    assert.equal(describeHttpError(422, "", '{"detail":[{"loc":["body"],"msg":"field required"}]}'), "HTTP 422: field required");
    assert.equal(describeHttpError(500, "", '{"message":"Internal"}'), "HTTP 500: Internal");
  });

  it("uses the body text when it is not JSON, cut to a readable length", () => {
    assert.equal(describeHttpError(502, "Bad Gateway", "upstream connect error"), "HTTP 502: upstream connect error");
    const page = `<html>${"x".repeat(5000)}</html>`;
    const described = describeHttpError(500, "", page);
    assert.ok(described.length < 2100, `length ${described.length}`);
    assert.ok(described.startsWith("HTTP 500: <html>xxx"));
  });

  it("says when the body was empty", () => {
    assert.equal(describeHttpError(413, "Payload Too Large", ""), "HTTP 413 Payload Too Large (empty response body)");
    assert.equal(describeHttpError(400, "", "   "), "HTTP 400 (empty response body)");
  });
});
