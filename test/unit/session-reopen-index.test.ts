/**
 * The reopen index, differentially: a session opened through its index (unchanged, grown) reads
 * exactly as the reference reads the file, and an index made stale by any change (growth past a
 * torn line, truncation, a file renamed over it, an edit in the middle with the same size, a
 * damaged index) is detected and rebuilt, so the reads still equal the reference's.
 */
import * as assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { holdIndexWrites, indexFileFor } from "../../src/core/session/session-index";
import { SessionManager } from "../../src/core/session/session-manager";
import { generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

describe("the reopen index", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  let indexDir: string;
  const index = () => ({ dir: indexDir, minBytes: 0 });
  before(async () => (pi = await loadReference()));
  beforeEach(() => {
    tmp = makeTempDir();
    indexDir = join(tmp.dir, "index");
  });
  afterEach(() => tmp.cleanup());

  /** Opens `file` through the index and checks every read against the reference on the same file. */
  async function openAndCompare(file: string, expectedUse: string, label: string): Promise<void> {
    const ours = await SessionManager.open(file, { readOnly: true, index: index() });
    try {
      assert.equal(ours.getIndexUse(), expectedUse, `index use, ${label}`);
      const ref = pi.SessionManager.open(file);
      const refEntries = ref.getEntries();
      assert.deepEqual(ours.getEntries(), refEntries, `entries, ${label}`);
      assert.deepEqual(ours.getTree(), ref.getTree(), `tree, ${label}`);
      assert.equal(ours.getLeafId(), ref.getLeafId(), `leaf, ${label}`);
      assert.equal(ours.getSessionName(), ref.getSessionName(), `name, ${label}`);
      assert.deepEqual(ours.getHeader(), ref.getHeader(), `header, ${label}`);
      assert.deepEqual(ours.buildSessionContext(), ref.buildSessionContext(), `context at the leaf, ${label}`);
      for (const e of refEntries) {
        assert.equal(ours.getLabel(e.id), ref.getLabel(e.id), `label of ${e.id}, ${label}`);
        assert.deepEqual(ours.buildSessionContext(e.id), pi.buildSessionContext(refEntries, e.id), `context at ${e.id}, ${label}`);
      }
      // Summaries (what the tree draws) equal those of a load that never saw an index.
      const fresh = await SessionManager.open(file, { readOnly: true, index: false });
      assert.deepEqual(ours.getSummaries(), fresh.getSummaries(), `summaries, ${label}`);
      assert.deepEqual(ours.getProblems(), fresh.getProblems(), `problems, ${label}`);
      // The skeleton the tree reads (no body) equals a fresh load's, field by field.
      const a = ours.getTreeSource();
      const b = fresh.getTreeSource();
      assert.equal(a.size, b.size, `entry count, ${label}`);
      for (let i = 0; i < a.size; i++) {
        const skeleton = (s: typeof a) => [s.idAt(i), s.parentIdAt(i), s.timestampAt(i), s.typeAt(i), s.roleAt(i), s.isTextless(i), s.isCheckoutMarker(i)];
        assert.deepEqual(skeleton(a), skeleton(b), `skeleton of entry ${i}, ${label}`);
      }
      await fresh.close();
      await ours.whenIndexSaved();
    } finally {
      await ours.close();
    }
  }

  function session(seed: number, entries = 90): string {
    const dir = join(tmp.dir, `s${seed}`);
    const { file } = generateReferenceSession(pi, { seed, entries, persistDir: dir, unknownRoles: true });
    assert.ok(file && readdirSync(dir).length === 1);
    return file;
  }

  it("reopens an unchanged file from the index alone, with the same reads", async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const file = session(seed);
      await openAndCompare(file, "none", `first open, seed ${seed}`);
      assert.ok(statSync(indexFileFor(file, indexDir)).size > 0, "the index is saved");
      await openAndCompare(file, "unchanged", `reopen, seed ${seed}`);
    }
  });

  it("an open while the index of that file is still being saved waits for it and reads it, instead of the whole file", async () => {
    const file = session(21, 400);
    const first = await SessionManager.open(file, { readOnly: true, index: index() });
    assert.equal(first.getIndexUse(), "none");
    await first.close();
    // Opened again at once: the index is saved after the first open returned, in slices.
    const again = await SessionManager.open(file, { readOnly: true, index: index() });
    try {
      assert.equal(again.getIndexUse(), "unchanged");
      assert.deepEqual(again.getEntries(), pi.SessionManager.open(file).getEntries());
    } finally {
      await again.close();
    }
  });

  it("is saved after what holds index saves (the tree being drawn), or after the hold's limit", async () => {
    const file = session(22, 200);
    let release!: () => void;
    holdIndexWrites(new Promise<void>((done) => (release = done)));
    const first = await SessionManager.open(file, { readOnly: true, index: index() });
    let saved = false;
    void first.whenIndexSaved().then(() => (saved = true));
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(saved, false, "not saved while held");
    assert.ok(!existsSync(indexFileFor(file, indexDir)));
    release();
    await first.whenIndexSaved();
    assert.ok(existsSync(indexFileFor(file, indexDir)), "saved once released");
    await first.close();
    // A hold that never ends holds no longer than its limit.
    rmSync(indexFileFor(file, indexDir));
    const started = Date.now();
    holdIndexWrites(new Promise<void>(() => undefined), 150);
    const second = await SessionManager.open(file, { readOnly: true, index: index() });
    await second.whenIndexSaved();
    assert.ok(Date.now() - started >= 150, "held until the limit");
    assert.ok(existsSync(indexFileFor(file, indexDir)), "saved after the limit");
    await second.close();
    await openAndCompare(file, "unchanged", "after a held save");
  });

  it("an open that waits for a held save of its own index ends the hold on that save (no deadlock)", async () => {
    const file = session(23, 200);
    // Held for longer than the test may run: only the open's wait can let the save through.
    let release!: () => void;
    holdIndexWrites(new Promise<void>((done) => (release = done)), 10 * 60_000);
    try {
      const first = await SessionManager.open(file, { readOnly: true, index: index() });
      await first.close();
      assert.ok(!existsSync(indexFileFor(file, indexDir)), "held");
      // The extension holds index saves while it opens a session: the same open waits for this save.
      const again = await SessionManager.open(file, { readOnly: true, index: index() });
      assert.equal(again.getIndexUse(), "unchanged");
      assert.deepEqual(again.getEntries(), pi.SessionManager.open(file).getEntries());
      await again.close();
    } finally {
      release();
    }
  });

  it("reads only the new bytes of a file that grew, and follows what was appended", async () => {
    for (let seed = 11; seed <= 16; seed++) {
      const file = session(seed);
      await openAndCompare(file, "none", `first open, seed ${seed}`);
      // Pi continues the session in a terminal: more entries on the same file.
      const ref = pi.SessionManager.open(file);
      const leaf = ref.getLeafId()!;
      ref.appendMessage({ role: "user", content: `more after ${leaf}`, timestamp: 1_800_000_000_000 });
      ref.appendLabelChange(leaf, "grown");
      ref.appendSessionInfo(`renamed ${seed}`);
      await openAndCompare(file, "grown", `after growth, seed ${seed}`);
      await openAndCompare(file, "unchanged", `again, seed ${seed}`);
    }
  });

  it("continues past a torn last line once its writer finishes it", async () => {
    const file = session(21);
    const whole = readFileSync(file, "utf8");
    const lastLine = whole.trimEnd().split("\n").pop()!;
    const cut = whole.length - 1 - Math.floor(lastLine.length / 2);
    writeFileSync(file, whole.slice(0, cut));
    await openAndCompare(file, "none", "torn");
    appendFileSync(file, whole.slice(cut));
    await openAndCompare(file, "grown", "finished");
  });

  it("rebuilds after a truncation, a rename over the file, and an edit in the middle of the same size", async () => {
    const file = session(31);
    await openAndCompare(file, "none", "first open");
    // Truncation: the last two entries go away.
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    truncateSync(file, Buffer.byteLength(lines.slice(0, -2).join("\n") + "\n"));
    await openAndCompare(file, "stale", "truncated");
    // A rename over it: another session's content under the same path (a new inode).
    const other = session(32);
    renameSync(other, file);
    await openAndCompare(file, "stale", "renamed over");
    // An edit in the middle that keeps the size, with the times put back as they were.
    const text = readFileSync(file, "utf8");
    const at = text.indexOf('"role":"user"') + 5;
    const edited = text.slice(0, at) + (text[at] === "X" ? "Y" : "X") + text.slice(at + 1);
    assert.equal(Buffer.byteLength(edited), Buffer.byteLength(text));
    const before = statSync(file);
    writeFileSync(file, edited);
    utimesSync(file, before.atime, before.mtime);
    await openAndCompare(file, "stale", "edited in the middle");
  });

  it("rebuilds from a damaged index and from another file's index", async () => {
    const file = session(41);
    await openAndCompare(file, "none", "first open");
    const indexFile = indexFileFor(file, indexDir);
    const bytes = readFileSync(indexFile);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    writeFileSync(indexFile, bytes);
    await openAndCompare(file, "corrupt", "damaged");
    writeFileSync(indexFile, bytes.subarray(0, 100));
    await openAndCompare(file, "corrupt", "cut short");
    const other = session(42);
    await openAndCompare(other, "none", "the other file");
    writeFileSync(indexFile, readFileSync(indexFileFor(other, indexDir)));
    await openAndCompare(file, "stale", "another file's index");
  });

  it("a body read back from a file rewritten in place fails clearly instead of reading the wrong entry", async () => {
    const file = session(51, 60);
    const sm = await SessionManager.open(file, { readOnly: true, index: false });
    const text = readFileSync(file, "utf8");
    const lines = text.trimEnd().split("\n");
    const entries = lines.slice(1).map((l) => JSON.parse(l) as { id: string; type: string });
    // Same bytes shifted by one line: every offset now points at another entry.
    writeFileSync(file, `${lines[0]}\n${lines.slice(2).join("\n")}\n${lines[1]}\n`);
    const victim = entries.find((e, i) => i > 3 && e.type === "message")!;
    assert.throws(() => sm.getEntry(victim.id), (e: unknown) => e instanceof SessionError && e.code === "changed" && /changed on disk/.test(e.message));
    await sm.close();
  });
});
