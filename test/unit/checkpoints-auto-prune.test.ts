/**
 * Automatic pruning on a real shadow repository: unreferenced snapshots go once a prune is due or
 * the store is over its cap; referenced ones, the undo point and the last snapshot stay restorable;
 * a session file that cannot be read stops the prune; a store over its cap in referenced snapshots
 * alone says so.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { autoPrune, CheckpointStore, PRUNE_INTERVAL_MS } from "../../src/core/checkpoints";
import { makeUserRepo, writeFiles } from "../support/checkpoint-fixtures";
import { makeTempDir } from "../support/temp-dir";

describe("checkpoints: automatic pruning", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let ws: string;
  let store: CheckpointStore;
  beforeEach(async () => {
    tmp = makeTempDir("arbor-prune-");
    ws = path.join(tmp.dir, "ws");
    makeUserRepo(ws, path.join(tmp.dir, "hook-ran"));
    store = await CheckpointStore.open({ gitPath: "git", storageDir: path.join(tmp.dir, "storage"), workspace: ws });
  });
  afterEach(() => tmp.cleanup());

  async function three(): Promise<[string, string, string]> {
    writeFiles(ws, { "big.txt": "a".repeat(200_000) });
    const a = (await store.snapshot()).id;
    writeFiles(ws, { "big.txt": "b".repeat(200_000) });
    const b = (await store.snapshot()).id;
    writeFiles(ws, { "big.txt": "c".repeat(200_000) });
    const c = (await store.snapshot()).id;
    return [a, b, c];
  }

  it("waits a day between prunes under the cap, then removes only what no session refers to", async () => {
    const [a, b, c] = await three();
    const now = 1_000_000_000_000;
    const referenced = async () => ({ ids: new Set([a]), complete: true });
    const early = await autoPrune(store, { capBytes: 0, lastPrunedAt: now - 60_000, referenced, now: () => now });
    assert.deepEqual({ pruned: early.pruned, overCap: early.overCap }, { pruned: false, overCap: false });
    assert.deepEqual((await store.list()).sort(), [a, b, c].sort());
    const due = await autoPrune(store, { capBytes: 0, lastPrunedAt: now - PRUNE_INTERVAL_MS, referenced, now: () => now });
    assert.ok(due.pruned && due.removed === 1, JSON.stringify(due));
    // a: a session refers to it; c: the last snapshot. b is gone.
    assert.deepEqual((await store.list()).sort(), [a, c].sort());
    assert.ok(await store.has(a));
    assert.equal(await store.has(b), false);
  });

  it("prunes at once over the cap, keeps the undo point, and says when referenced snapshots alone are over it", async () => {
    const [a, b, c] = await three();
    const bytes = await store.storageBytes();
    const result = await autoPrune(store, { capBytes: Math.floor(bytes / 2), lastPrunedAt: Date.now(), referenced: async () => ({ ids: new Set<string>(), complete: true }), keep: [a] });
    assert.ok(result.pruned);
    assert.deepEqual((await store.list()).sort(), [a, c].sort(), "the undo point and the last snapshot stay");
    assert.equal(await store.has(b), false);
    const tiny = await autoPrune(store, { capBytes: 1, lastPrunedAt: Date.now(), referenced: async () => ({ ids: new Set([a]), complete: true }) });
    assert.equal(tiny.overCap, true, "over the cap in what is kept");
  });

  it("prunes nothing when a session file could not be read", async () => {
    const [a, b, c] = await three();
    const result = await autoPrune(store, { capBytes: 1, lastPrunedAt: undefined, referenced: async () => ({ ids: new Set<string>(), complete: false }) });
    assert.deepEqual({ pruned: result.pruned, reason: result.pruned ? undefined : result.reason }, { pruned: false, reason: "unreadable-sessions" });
    assert.deepEqual((await store.list()).sort(), [a, b, c].sort());
  });
});
