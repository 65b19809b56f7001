import * as assert from "node:assert/strict";
import { WebviewStartQueue } from "../../src/extension/webview-start-queue";

/**
 * Resolves once `check` holds, polling every millisecond for up to 10 s (bounded, for a clear failure).
 * A count of event-loop turns is no bound here: 2,000 empty turns can pass before a 5 ms timer is due.
 */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(check(), `timed out waiting for ${what}`);
}

describe("WebviewStartQueue: one webview page loads at a time", () => {
  it("loads the second page only once the first has said it started", () => {
    const queue = new WebviewStartQueue(60_000);
    const loaded: string[] = [];
    const tree = queue.enqueue(() => loaded.push("tree"));
    const chat = queue.enqueue(() => loaded.push("chat"));
    const tab = queue.enqueue(() => loaded.push("tab"));
    assert.deepEqual(loaded, ["tree"], "the first loads at once, the others wait");
    assert.equal(queue.waitingCount, 2);
    chat.started(); // a message from a page that is not loading yet changes nothing for the others
    tree.started();
    assert.deepEqual(loaded, ["tree", "tab"], "the chat, done before its turn, left the queue");
    tab.started();
    assert.equal(queue.busy, false);
    tree.started();
    tree.dispose();
    assert.deepEqual(loaded, ["tree", "tab"], "a page loads once");
  });

  it("lets the next page load when the loading one goes away without starting", () => {
    const queue = new WebviewStartQueue(60_000);
    const loaded: string[] = [];
    const tree = queue.enqueue(() => loaded.push("tree"));
    queue.enqueue(() => loaded.push("chat"));
    tree.dispose();
    assert.deepEqual(loaded, ["tree", "chat"]);
  });

  it("a page disposed while waiting never loads", () => {
    const queue = new WebviewStartQueue(60_000);
    const loaded: string[] = [];
    const tree = queue.enqueue(() => loaded.push("tree"));
    const chat = queue.enqueue(() => loaded.push("chat"));
    chat.dispose();
    tree.started();
    assert.deepEqual(loaded, ["tree"]);
    assert.equal(queue.waitingCount, 0);
    assert.equal(queue.busy, false);
  });

  it("does not let one page that never starts keep the next one blank", async () => {
    const queue = new WebviewStartQueue(5);
    const loaded: string[] = [];
    queue.enqueue(() => loaded.push("silent"));
    const chat = queue.enqueue(() => loaded.push("chat"));
    assert.deepEqual(loaded, ["silent"]);
    await until(() => loaded.length === 2, "the chat's turn after the silent page's time ran out");
    assert.deepEqual(loaded, ["silent", "chat"]);
    chat.started();
    assert.equal(queue.busy, false);
  });
});
