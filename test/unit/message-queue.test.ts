/**
 * The message queue on its own: delivery one at a time or all (Pi's steeringMode / followUpMode,
 * read at each delivery), the list front ends show (steering first, custom messages left out),
 * taking prompts back, and where the modes come from (Arbor's settings, else Pi's settings.json).
 */
import * as assert from "node:assert/strict";
import { MessageQueue, resolveQueueModes, type QueueModes } from "../../src/core/agent/message-queue";
import type { CustomMessage, UserMessage } from "../../src/core/session/types";

const user = (text: string, images = 0): UserMessage => ({
  role: "user",
  content: [{ type: "text", text }, ...Array.from({ length: images }, () => ({ type: "image" as const, data: "AAAA", mimeType: "image/png" }))],
  timestamp: 1,
});
const custom = (text: string): CustomMessage => ({ role: "custom", customType: "ext", content: text, display: true, timestamp: 1 });
const texts = (items: { message: UserMessage | CustomMessage }[]): string[] =>
  items.map((i) => (typeof i.message.content === "string" ? i.message.content : i.message.content.map((b) => (b.type === "text" ? b.text : "")).join("")));

describe("MessageQueue", () => {
  it("delivers the oldest one at a time by default, and all at once in mode all (read at each delivery)", () => {
    let modes: QueueModes = { steeringMode: "one-at-a-time", followUpMode: "all" };
    const queue = new MessageQueue(() => modes);
    for (const t of ["s1", "s2", "s3"]) void queue.enqueue("steer", user(t));
    for (const t of ["f1", "f2"]) void queue.enqueue("followUp", user(t));
    assert.deepEqual(texts(queue.take("steer")), ["s1"]);
    assert.deepEqual(texts(queue.take("followUp")), ["f1", "f2"]);
    modes = { steeringMode: "all", followUpMode: "all" };
    assert.deepEqual(texts(queue.take("steer")), ["s2", "s3"]);
    assert.deepEqual(queue.take("steer"), []);
  });

  it("takeAll empties a queue whatever the mode", () => {
    const queue = new MessageQueue();
    for (const t of ["a", "b"]) void queue.enqueue("steer", user(t));
    assert.deepEqual(texts(queue.takeAll("steer")), ["a", "b"]);
    assert.equal(queue.has("steer"), false);
  });

  it("lists the user's prompts steering first, each oldest first, without extensions' custom messages", () => {
    const queue = new MessageQueue();
    void queue.enqueue("followUp", user("later"));
    void queue.enqueue("steer", user("now", 2));
    void queue.enqueue("steer", custom("from an extension"));
    void queue.enqueue("nextTurn", user("held"));
    assert.deepEqual(
      queue.list().map(({ kind, text, imageCount }) => ({ kind, text, imageCount })),
      [
        { kind: "steer", text: "now", imageCount: 2 },
        { kind: "followUp", text: "later", imageCount: 0 },
      ],
    );
  });

  it("takes one prompt back by id, or all of them; their senders hear withdrawn; custom messages stay", async () => {
    const changes: number[] = [];
    const queue = new MessageQueue(undefined, () => changes.push(queue.list().length));
    const first = queue.enqueue("steer", user("first"));
    const second = queue.enqueue("followUp", user("second", 1));
    const third = queue.enqueue("steer", user("third"));
    void queue.enqueue("steer", custom("kept"));
    const [one] = queue.withdraw(queue.list()[1]!.id);
    assert.equal(one!.text, "third");
    assert.deepEqual(await third, { withdrawn: true });
    const rest = queue.withdraw();
    assert.deepEqual(rest.map((r) => r.text), ["first", "second"]);
    assert.equal(rest[1]!.images.length, 1, "the images come back with the prompt");
    assert.deepEqual(await first, { withdrawn: true });
    assert.deepEqual(await second, { withdrawn: true });
    assert.deepEqual(queue.withdraw(), [], "nothing left to take back");
    assert.deepEqual(texts(queue.take("steer")), ["kept"]);
    assert.deepEqual(changes, [1, 2, 3, 2, 0], "a change per enqueue and per take-back (the custom message is not listed)");
  });

  it("resolves a delivered message with its entry id, and rejects one that failed to record", async () => {
    const queue = new MessageQueue();
    const ok = queue.enqueue("steer", user("ok"));
    const bad = queue.enqueue("steer", user("bad"));
    const [a] = queue.take("steer");
    a!.settle({ kind: "recorded", entryId: "e1" });
    const [b] = queue.take("steer");
    b!.settle({ kind: "failed", error: new Error("disk full") });
    assert.deepEqual(await ok, { entryId: "e1" });
    await assert.rejects(bad, /disk full/);
  });
});

describe("queue modes", () => {
  it("come from Arbor's setting where set, else Pi's settings.json, else one at a time", () => {
    assert.deepEqual(resolveQueueModes(undefined, undefined), { steeringMode: "one-at-a-time", followUpMode: "one-at-a-time" });
    assert.deepEqual(resolveQueueModes(undefined, { steeringMode: "all" }), { steeringMode: "all", followUpMode: "one-at-a-time" });
    assert.deepEqual(resolveQueueModes({ steeringMode: "one-at-a-time", followUpMode: undefined }, { steeringMode: "all", followUpMode: "all" }), {
      steeringMode: "one-at-a-time",
      followUpMode: "all",
    });
  });

  it("read any other value in Pi's file as one at a time, as Pi does, and ignore an odd Arbor value", () => {
    assert.deepEqual(resolveQueueModes({ steeringMode: "sometimes" }, { steeringMode: "ALL", followUpMode: "everything" }), {
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
    });
  });
});
