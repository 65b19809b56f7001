/**
 * Background preparation of the reopen index: the Sessions list's large sessions are indexed
 * ahead of a click, an open of the session being prepared takes the preparation's result (no second
 * scan), an open of another session holds the preparation until it is done, and a file that
 * changed under a preparation is read again rather than trusted.
 */
import * as assert from "node:assert/strict";
import { appendFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { indexLooksCurrent } from "../../src/core/session/session-index";
import * as loaderModule from "../../src/core/session/session-loader";
import { loadSession } from "../../src/core/session/session-loader";
import { SessionManager } from "../../src/core/session/session-manager";
import { preparedSessions, SessionPreparer, sessionsToPrepare } from "../../src/core/session/session-preparer";
import { statSync } from "node:fs";
import { makeTempDir } from "../support/temp-dir";

/** A session of `count` messages with `textBytes` of text each, last written an hour ago. */
function writeSession(file: string, count: number, textBytes = 200): void {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" })];
  let parent: string | null = null;
  for (let i = 0; i < count; i++) {
    const id = `e${i.toString(16).padStart(7, "0")}`;
    const role = i % 2 ? "assistant" : "user";
    const text = `${role} ${i} `.padEnd(textBytes, "x");
    const message = role === "user" ? { role, content: text, timestamp: i } : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: i };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z", message }));
    parent = id;
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(file, hourAgo, hourAgo);
}

/** Waits until `check` holds (state, not time: every tick re-checks). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let k = 0; k < 20_000; k++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`never: ${what}`);
}

describe("background preparation of sessions", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let indexDir: string;
  let preparer: SessionPreparer;
  let busy: (string | undefined)[];
  const index = () => ({ dir: indexDir, minBytes: 1 });
  beforeEach(() => {
    tmp = makeTempDir();
    indexDir = join(tmp.dir, "index");
    busy = [];
    preparer = new SessionPreparer();
    preparer.configure({ index: index(), afterOpenMs: 0, settleMs: 1000, onBusy: (p) => busy.push(p) });
  });
  afterEach(async () => {
    // Whatever a test left running (an index being saved) stops before its folder goes.
    preparer.dispose();
    await preparer.whenIdle();
    tmp.cleanup();
  });

  it("indexes the listed sessions one at a time, and leaves alone those whose index is current", async () => {
    const a = join(tmp.dir, "a.jsonl");
    const b = join(tmp.dir, "b.jsonl");
    writeSession(a, 300);
    writeSession(b, 200);
    preparer.prepare([a, b]);
    await until(() => busy.length === 4, "both prepared");
    assert.deepEqual(busy, [a, undefined, b, undefined]);
    assert.ok(await indexLooksCurrent(a, indexDir, statSync(a)));
    assert.ok(await indexLooksCurrent(b, indexDir, statSync(b)));
    // An open now reads the index alone.
    const sm = await SessionManager.open(a, { readOnly: true, index: index() });
    assert.equal(sm.getIndexUse(), "unchanged");
    await sm.close();
    // Listed again: nothing to do.
    busy.length = 0;
    preparer.prepare([a, b]);
    await until(() => preparer.preparing === undefined, "idle");
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(busy, []);
    // A session that grew is brought up to date.
    appendFileSync(a, `${JSON.stringify({ type: "session_info", id: "n1", parentId: "e000012b", timestamp: "2026-01-01T00:00:00.000Z", name: "grown" })}\n`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(a, old, old);
    assert.equal(await indexLooksCurrent(a, indexDir, statSync(a)), false);
    preparer.prepare([a]);
    await until(() => busy.length === 2, "prepared again");
    assert.ok(await indexLooksCurrent(a, indexDir, statSync(a)));
  });

  it("waits for a session being written to settle", async () => {
    const a = join(tmp.dir, "a.jsonl");
    writeSession(a, 50);
    const now = new Date();
    utimesSync(a, now, now);
    preparer.prepare([a]);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(busy, [], "not while it is fresh");
    await until(() => busy.length === 2, "prepared once settled");
    assert.ok(await indexLooksCurrent(a, indexDir, statSync(a)));
  });

  it("skips files under the index's size and ones that are not there", async () => {
    const small = join(tmp.dir, "small.jsonl");
    writeSession(small, 3);
    preparer.configure({ index: { dir: indexDir, minBytes: 1 << 20 }, afterOpenMs: 0, onBusy: (p) => busy.push(p) });
    preparer.prepare([small, join(tmp.dir, "missing.jsonl")]);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(busy, []);
  });

  it("hands the session being prepared to its open, read once and equal to a plain load", async () => {
    const a = join(tmp.dir, "a.jsonl");
    writeSession(a, 6_000, 1000);
    let claimed: Promise<unknown> | undefined;
    preparer.configure({
      index: index(),
      afterOpenMs: 0,
      onBusy: (p) => {
        if (p === a && !claimed) claimed = preparer.claim(a).loaded;
      },
    });
    preparer.prepare([a]);
    await until(() => claimed !== undefined, "preparation started");
    const loaded = (await claimed) as Awaited<ReturnType<typeof loadSession>>;
    assert.ok(loaded, "the open takes the preparation's load");
    assert.equal(loaded.indexUse, "none");
    const plain = await loadSession(a, { index: false });
    assert.equal(loaded.store.size, plain.store.size);
    assert.deepEqual(loaded.problems, plain.problems);
    for (const i of [0, 1, 2_999, 5_999]) assert.deepEqual(loaded.store.entryAt(i), plain.store.entryAt(i));
    plain.store.reader?.close();
    // Its reader stays open for the one who took it.
    assert.ok(loaded.store.entryAt(5));
    loaded.store.reader?.close();
  });

  it("holds a preparation while another session opens, and goes on when that open is done", async () => {
    const big = join(tmp.dir, "big.jsonl");
    const other = join(tmp.dir, "other.jsonl");
    writeSession(big, 12_000, 1000); // 12 MB: the read stops between chunks (8 MB each)
    writeSession(other, 10);
    let claim: ReturnType<SessionPreparer["claim"]> | undefined;
    preparer.configure({
      index: index(),
      afterOpenMs: 0,
      onBusy: (p) => {
        busy.push(p);
        if (p === big && !claim) claim = preparer.claim(other);
      },
    });
    preparer.prepare([big]);
    await until(() => preparer.holding, "the preparation is held");
    assert.equal(await claim!.loaded, undefined, "another session's open is not handed anything");
    assert.equal(busy.length, 1, "not finished while held");
    claim!.done();
    await until(() => busy.length === 2, "finished after the open");
    assert.ok(await indexLooksCurrent(big, indexDir, statSync(big)));
  });

  it("waits while the user is doing something, and goes on a moment after", async () => {
    const big = join(tmp.dir, "big.jsonl");
    writeSession(big, 12_000, 1000);
    preparer.configure({
      index: index(),
      afterOpenMs: 2_000,
      onBusy: (p) => {
        busy.push(p);
        if (p === big) preparer.userActive();
      },
    });
    preparer.prepare([big]);
    await until(() => preparer.holding, "held while the user is active");
    await until(() => busy.length === 2, "finished once the user is idle");
    assert.ok(await indexLooksCurrent(big, indexDir, statSync(big)));
  });

  it("reads a file again when it changed after it was prepared", async () => {
    const a = join(tmp.dir, "a.jsonl");
    const other = join(tmp.dir, "other.jsonl");
    writeSession(a, 12_000, 1000);
    let hold: ReturnType<SessionPreparer["claim"]> | undefined;
    preparer.configure({ index: index(), afterOpenMs: 0, onBusy: (p) => p === a && !hold && (hold = preparer.claim(other)) && undefined });
    preparer.prepare([a]);
    // Held half-way (its size and time are taken), the file then gets a line.
    await until(() => preparer.holding, "held");
    appendFileSync(a, "\n");
    const claimed = preparer.claim(a);
    assert.equal(await claimed.loaded, undefined, "a changed file is not handed over");
    claimed.done();
    hold!.done();
  });

  it("is asked by every open: SessionManager.open takes a preparation of its file", async () => {
    const a = join(tmp.dir, "a.jsonl");
    writeSession(a, 5_000, 1000);
    const opened: Promise<SessionManager>[] = [];
    preparedSessions.configure({
      index: index(),
      afterOpenMs: 0,
      onBusy: (p) => {
        if (p === a && opened.length === 0) opened.push(SessionManager.open(a, { readOnly: true, index: index() }));
      },
    });
    // Loads other than the preparation's (which passes a signal) are counted: the open must make none.
    const loader = loaderModule as { loadSession: typeof loadSession };
    const real = loader.loadSession;
    let ownLoads = 0;
    loader.loadSession = (path, opts) => {
      if (!opts?.signal) ownLoads++;
      return real(path, opts);
    };
    try {
      preparedSessions.prepare([a]);
      await until(() => opened.length === 1, "opened while preparing");
      const sm = await opened[0]!;
      assert.equal(ownLoads, 0, "the open read nothing itself");
      assert.equal(sm.getEntries().length, 5_000);
      const fresh = await SessionManager.open(a, { readOnly: true, index: false });
      assert.deepEqual(sm.getEntries(), fresh.getEntries());
      assert.equal(sm.getLeafId(), fresh.getLeafId());
      assert.deepEqual(sm.buildSessionContext(), fresh.buildSessionContext());
      await fresh.close();
      await sm.close();
    } finally {
      loader.loadSession = real;
      preparedSessions.prepare([]);
      await preparedSessions.whenIdle();
      preparedSessions.configure({});
    }
  });

  it("chooses the largest recent sessions of a listing, not the open one", () => {
    const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
    const infos = [
      { path: "/s/small", size: 10, modified: at(9) },
      { path: "/s/old", size: 5 << 20, modified: at(1) },
      { path: "/s/new", size: 2 << 20, modified: at(8) },
      { path: "/s/open", size: 9 << 20, modified: at(7) },
      ...Array.from({ length: 10 }, (_, k) => ({ path: `/s/m${k}`, size: 3 << 20, modified: at(2 + (k % 5)) })),
    ];
    const chosen = sessionsToPrepare(infos, "/s/open");
    assert.equal(chosen.length, 8);
    assert.equal(chosen[0], "/s/new");
    assert.ok(!chosen.includes("/s/small") && !chosen.includes("/s/open") && !chosen.includes("/s/old"));
  });
});
