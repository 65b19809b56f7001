/**
 * Reading a reopen index in slices (issue 10: the extension host keeps answering while a
 * 1,000,000-entry session reopens): the stepped decode and restore give exactly what the one-go
 * versions give, and they do give the event loop turns on the way.
 */
import * as assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BodyReader } from "../../src/core/session/body-reader";
import { EntryStore } from "../../src/core/session/entry-store";
import { decodeIndex, decodeIndexSteps, encodeIndexSteps } from "../../src/core/session/index-codec";
import { indexFileFor } from "../../src/core/session/session-index";
import { loadSession } from "../../src/core/session/session-loader";
import { runSteps, runStepsInSlices } from "../../src/core/util/steps";
import { makeTempDir } from "../support/temp-dir";

/** Counts event-loop turns while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = (): void => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    on = false;
  }
}

describe("the reopen index read in slices", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let file: string;
  let index: Buffer;
  before(async () => {
    tmp = makeTempDir();
    file = join(tmp.dir, "s.jsonl");
    // 80,000 entries (more than two slices of every pass), ids and times with multi-byte characters in a few.
    const lines = [JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" })];
    let parent: string | null = null;
    for (let i = 0; i < 80_000; i++) {
      const id = i % 9_999 === 5 ? `é${i}` : `i${i.toString(36)}`;
      const ts = i % 7_777 === 3 ? `2026-01-01T00:00:00.000Z·${i}` : "2026-01-01T00:00:00.000Z";
      const entry = i % 3 === 2 ? { type: "label", id, parentId: parent, timestamp: ts, targetId: parent, label: `l${i}` } : { type: "message", id, parentId: i % 50 === 0 ? null : parent, timestamp: ts, message: { role: i % 2 ? "assistant" : "user", content: `m${i}`, timestamp: i } };
      lines.push(JSON.stringify(entry));
      parent = id;
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    const loaded = await loadSession(file, { index: { dir: join(tmp.dir, "index"), minBytes: 1 } });
    await loaded.indexWritten;
    loaded.store.reader?.close();
    index = readFileSync(indexFileFor(file, join(tmp.dir, "index")));
  });
  after(() => tmp.cleanup());

  it("decodes the same index in slices as at once, giving the event loop turns", async () => {
    const once = decodeIndex(index);
    assert.ok(once, "the index reads back");
    const { value: sliced, turns } = await turnsDuring(() => runStepsInSlices(decodeIndexSteps(index), 0));
    assert.deepEqual(sliced, once);
    assert.ok(turns >= 8, `the event loop ran between slices (${turns} turns)`);
  });

  it("encodes in slices the very bytes it reads, giving the event loop turns; ids with a newline take the JSON form", async () => {
    const data = decodeIndex(index)!;
    const { value: bytes, turns } = await turnsDuring(() => runStepsInSlices(encodeIndexSteps(data), 0));
    assert.ok(turns >= 8, `the event loop ran between slices (${turns} turns)`);
    assert.equal(Buffer.compare(bytes!, index), 0, "the same bytes as the index the loader saved");
    const odd = { ...data, columns: { ...data.columns, ids: data.columns.ids.map((id, i) => (i === 7 ? `a\nb${id}` : id)) } };
    const back = decodeIndex(runSteps(encodeIndexSteps(odd))!)!;
    assert.deepEqual(back.columns.ids, odd.columns.ids);
    assert.deepEqual(Array.from({ length: 100 }, (_, i) => (back.columns.timestamps as string[])[i]), Array.from({ length: 100 }, (_, i) => (data.columns.timestamps as { at(i: number): string }).at(i)));
    const none = { ...data, columns: { ...data.columns, count: 0, ids: [], types: [], roles: [], timestamps: [], parentIds: [], parentAt: new Int32Array(0), lines: new Int32Array(0), offsets: new Float64Array(0), lengths: new Float64Array(0), flags: new Uint8Array(0) } };
    assert.equal(decodeIndex(runSteps(encodeIndexSteps(none))!)!.columns.count, 0, "an empty store round-trips");
  });

  it("refuses a damaged index in slices as it does at once", async () => {
    for (const at of [20, Math.floor(index.length / 2), index.length - 30]) {
      const bad = Buffer.from(index);
      bad[at] = bad[at]! ^ 0x20;
      assert.equal(decodeIndex(bad), undefined);
      assert.equal(await runStepsInSlices(decodeIndexSteps(bad), 0), undefined, `a byte changed at ${at}`);
    }
  });

  it("holds the work between slices while its pause answers a promise (index saves wait for the tree)", async () => {
    const data = decodeIndex(index)!;
    let release!: () => void;
    let paused: Promise<void> | undefined = new Promise<void>((done) => (release = done));
    let pauses = 0;
    let finished = false;
    const encoding = runStepsInSlices(encodeIndexSteps(data), 0, () => {
      pauses++;
      return paused;
    }).then((bytes) => {
      finished = true;
      return bytes;
    });
    for (let k = 0; k < 20; k++) await new Promise((done) => setImmediate(done));
    assert.equal(pauses, 1, "stopped at the first pause");
    assert.equal(finished, false);
    paused = undefined;
    release();
    assert.deepEqual(await encoding, runSteps(encodeIndexSteps(data)), "the same bytes once let go");
    assert.ok(pauses > 1, "asked again after every slice");
  });

  it("restores the same store in slices as at once", async () => {
    const data = decodeIndex(index)!;
    const reader = BodyReader.open(file);
    try {
      const once = EntryStore.restore(data.columns, reader);
      const { value: sliced, turns } = await turnsDuring(() => runStepsInSlices(EntryStore.restoreSteps(data.columns, reader), 0));
      assert.ok(turns >= 4, `the event loop ran between slices (${turns} turns)`);
      assert.equal(sliced.size, once.size);
      for (let i = 0; i < once.size; i++) {
        assert.equal(sliced.idAt(i), once.idAt(i));
        assert.equal(sliced.parentIdAt(i), once.parentIdAt(i));
        assert.equal(sliced.indexOf(once.idAt(i)), i);
      }
      assert.deepEqual(sliced.snapshot(), once.snapshot());
    } finally {
      reader.close();
    }
  });
});
