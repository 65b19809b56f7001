/**
 * The chat protocol's messages for steering and follow-ups: `send` with `followUp` (Alt+Enter),
 * `takeBackQueued` (one by id, or all), and the host's `queue` list; what must not pass is dropped.
 */
import * as assert from "node:assert/strict";
import { isChatToHostMessage, isHostToChatMessage } from "../../src/protocol/chat-guards";

describe("chat protocol: queued prompts", () => {
  it("accepts a send with or without followUp, and rejects a followUp that is not a boolean", () => {
    assert.ok(isChatToHostMessage({ type: "send", text: "steer this" }));
    assert.ok(isChatToHostMessage({ type: "send", text: "later", followUp: true }));
    assert.equal(isChatToHostMessage({ type: "send", text: "later", followUp: "yes" }), false);
  });

  it("accepts taking back one prompt by id or all of them, and rejects an id that is not one", () => {
    assert.ok(isChatToHostMessage({ type: "takeBackQueued" }));
    assert.ok(isChatToHostMessage({ type: "takeBackQueued", id: "q3" }));
    assert.equal(isChatToHostMessage({ type: "takeBackQueued", id: "" }), false);
    assert.equal(isChatToHostMessage({ type: "takeBackQueued", id: 3 }), false);
    assert.equal(isChatToHostMessage({ type: "takeBackQueued", id: "x".repeat(257) }), false);
  });

  it("accepts the host's queue list, and rejects odd kinds, texts, counts and lists", () => {
    const prompt = { id: "q1", kind: "steer", text: "do it differently", imageCount: 0 };
    assert.ok(isHostToChatMessage({ type: "queue", queued: [] }));
    assert.ok(isHostToChatMessage({ type: "queue", queued: [prompt, { ...prompt, id: "q2", kind: "followUp", imageCount: 2 }] }));
    assert.equal(isHostToChatMessage({ type: "queue", queued: [{ ...prompt, kind: "nextTurn" }] }), false);
    assert.equal(isHostToChatMessage({ type: "queue", queued: [{ ...prompt, text: 5 }] }), false);
    assert.equal(isHostToChatMessage({ type: "queue", queued: [{ ...prompt, imageCount: -1 }] }), false);
    assert.equal(isHostToChatMessage({ type: "queue", queued: [{ ...prompt, id: "" }] }), false);
    assert.equal(isHostToChatMessage({ type: "queue", queued: "q1" }), false);
    assert.equal(isHostToChatMessage({ type: "queue", queued: Array.from({ length: 1_001 }, (_, i) => ({ ...prompt, id: `q${i}` })) }), false);
  });
});
