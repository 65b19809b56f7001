/**
 * `arbor tree` keeps what it says about each entry in Arbor's cache beside the reopen index, and
 * draws the tree again from it instead of reading every body. The cache must never change what is
 * printed: every run here is compared with a run on an empty cache, through growth, an edit in
 * place of the same size, a rename-over, a truncation, a damaged cache and a partial drawing.
 * Run as a real process on real files.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TreeTextWriter } from "../../src/cli/tree-text-cache";
import { companionFileFor, trimCache } from "../../src/core/session/session-index";
import { SessionManager } from "../../src/core/session/session-manager";
import { assistant, user } from "../support/messages";
import { makeTempDir } from "../support/temp-dir";

const CLI = resolve(__dirname, "../../src/cli/arbor.js");

describe("arbor tree: the tree-text cache", function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let cacheHome: string;
  let fresh = 0;

  /** `arbor tree` with the test's cache (or, with `cache` false, an empty one of its own). */
  function tree(file: string, args: string[] = [], cache = true): string {
    const home = cache ? cacheHome : join(tmp.dir, `empty-${fresh++}`);
    const r = spawnSync(process.execPath, [CLI, "tree", file, ...args], { encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, XDG_CACHE_HOME: home } });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  }
  const cacheFile = (file: string) => companionFileFor(file, join(cacheHome, "arbor", "sessions"), ".tree");

  let serial = 0;
  /** A session of about 1.5 MB (past the size that gets an index), with branches and labels. */
  function makeSession(name: string): string {
    const id = (n: number) => `e${(serial * 100_000 + n).toString(16).padStart(7, "0")}`;
    serial++;
    const header = { type: "session", version: 3, id: `0199aaaa-0000-7000-8000-${String(serial).padStart(12, "0")}`, timestamp: "2026-01-01T00:00:00.000Z", cwd: tmp.dir };
    const lines = [JSON.stringify(header)];
    let parent: string | null = null;
    for (let i = 0; i < 3000; i++) {
      const text = `${i % 2 ? "answer" : "question"} ${i}: ${"lorem ipsum dolor ".repeat(25)}`;
      lines.push(JSON.stringify({ type: "message", id: id(i), parentId: parent, timestamp: "2026-01-01T00:00:01.000Z", message: i % 2 ? assistant(text) : user(text) }));
      // Branches at every 500th entry draw entries out of file order.
      parent = i % 500 === 499 ? id(i - 250) : id(i);
    }
    lines.push(JSON.stringify({ type: "label", id: id(99_999), parentId: parent, timestamp: "2026-01-01T00:00:02.000Z", targetId: id(10), label: "start here" }));
    const file = join(tmp.dir, name);
    writeFileSync(file, `${lines.join("\n")}\n`);
    assert.ok(statSync(file).size > 1024 * 1024);
    return file;
  }

  before(() => {
    tmp = makeTempDir();
    cacheHome = join(tmp.dir, "cache");
  });
  after(() => tmp.cleanup());

  it("is written by a whole drawing and read by the next one, which prints the same", () => {
    const file = makeSession("a.jsonl");
    const first = tree(file);
    assert.ok(existsSync(cacheFile(file)), "the cache is saved");
    assert.match(first, /user: question 0: lorem ipsum/);
    assert.equal(tree(file), first);
    assert.equal(tree(file, [], false), first);
  });

  it("is what the next drawing reads, escaped again: a changed cache cannot reach the terminal", () => {
    const file = makeSession("b.jsonl");
    const first = tree(file);
    // Same length, so the cache stays intact: the next drawing shows what it holds.
    const bytes = readFileSync(cacheFile(file));
    const at = bytes.indexOf("question 0: ");
    assert.ok(at >= 0);
    bytes.write("qu\u001b]52;c;", at, "latin1");
    writeFileSync(cacheFile(file), bytes);
    const again = tree(file);
    assert.notEqual(again, first, "the drawing came from the cache");
    assert.ok(again.includes("qu\\x1b]52;c;"), "the control character is shown escaped");
    assert.ok(!again.includes("\u001b"));
  });

  it("is not used when damaged, and a new one replaces it", () => {
    const file = makeSession("c.jsonl");
    const first = tree(file);
    const cache = cacheFile(file);
    const whole = readFileSync(cache);
    // The trailer ends with the meta's length, the entry count and the magic; the table comes before the meta.
    const metaLength = whole.readUInt32LE(whole.length - 16);
    const count = whole.readUInt32LE(whole.length - 12);
    const tableAt = whole.length - 16 - metaLength - count * 8;
    const metaAt = whole.length - 16 - metaLength;
    const edited = (edit: (b: Buffer) => void) => {
      const b = Buffer.from(whole);
      edit(b);
      return b;
    };
    const meta = whole.toString("utf8", metaAt, metaAt + metaLength);
    assert.match(meta, /"descriptions":1,/);
    const damages = [
      whole.subarray(0, whole.length - 3),
      Buffer.concat([whole, Buffer.from("x")]),
      Buffer.from("not a cache"),
      Buffer.alloc(0),
      // A description that would run past the descriptions.
      edited((b) => b.writeUInt32LE(0xfffffff0, tableAt + 4)),
      // A meta that is not an object, and one of another description format.
      edited((b) => b.write("null".padEnd(metaLength, " "), metaAt, "utf8")),
      edited((b) => b.write(meta.replace('"descriptions":1,', '"descriptions":2,'), metaAt, "utf8")),
    ];
    for (const [k, damaged] of damages.entries()) {
      writeFileSync(cache, damaged);
      assert.equal(tree(file), first, `damage ${k}`);
      assert.deepEqual(readFileSync(cache), whole, `rewritten whole after damage ${k}`);
    }
  });

  it("follows the session: growth keeps the old descriptions, and an edit of the same size, a rename-over or a truncation drops them", () => {
    const file = makeSession("d.jsonl");
    tree(file);
    // A mark in the cache (same length) shows which descriptions come from it.
    const marked = readFileSync(cacheFile(file));
    marked.write("QUESTION", marked.indexOf("question 0: "), "latin1");
    writeFileSync(cacheFile(file), marked);
    // Growth: a new entry on the leaf. The old entries' descriptions are read from the cache.
    const last = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").pop()!) as { parentId: string };
    appendFileSync(file, `${JSON.stringify({ type: "message", id: "f0000001", parentId: last.parentId, timestamp: "2026-01-01T00:00:03.000Z", message: user("one more question") })}\n`);
    const grown = tree(file);
    assert.match(grown, /user: QUESTION 0: lorem/, "the cached descriptions are kept");
    assert.equal(grown.replace("QUESTION 0: lorem", "question 0: lorem"), tree(file, [], false));
    assert.match(grown, /user: one more question/);
    assert.equal(tree(file), grown, "the cache saved after growth is read");

    // An edit in place that keeps the size and the last bytes: only the file's times tell.
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("question 4: lorem", "QUESTION 4: lorem"));
    const edited = tree(file);
    assert.match(edited, /user: QUESTION 4: lorem/);
    assert.ok(!edited.includes("QUESTION 0"), "nothing from the stale cache");
    assert.equal(edited, tree(file, [], false));

    // A rename-over: another file of the same content but one edit.
    const other = `${file}.new`;
    writeFileSync(other, readFileSync(file, "utf8").replace("question 2: lorem", "Question 2: lorem"));
    renameSync(other, file);
    const replaced = tree(file);
    assert.match(replaced, /user: Question 2: lorem/);
    assert.equal(replaced, tree(file, [], false));

    // A truncation to the first 2,000 lines.
    const kept = readFileSync(file, "utf8").split("\n").slice(0, 2001).join("\n");
    truncateSync(file, Buffer.byteLength(kept) + 1);
    const truncated = tree(file);
    assert.equal(truncated, tree(file, [], false));
    assert.ok(!truncated.includes("one more question"));
  });

  it("is not written by a partial drawing (--limit, --depth, --leaf-path), nor for a small session", () => {
    const file = makeSession("e.jsonl");
    for (const args of [["--limit", "10"], ["--depth", "0"], ["--leaf-path"]]) {
      tree(file, args);
      assert.ok(!existsSync(cacheFile(file)), `${args.join(" ")}: no cache`);
    }
    const whole = tree(file);
    assert.ok(existsSync(cacheFile(file)));
    const saved = statSync(cacheFile(file)).mtimeMs;
    // Partial drawings read the cache and leave it as it is.
    assert.equal(tree(file, ["--limit", "10"]), tree(file, ["--limit", "10"], false));
    assert.equal(tree(file, ["--leaf-path"]), tree(file, ["--leaf-path"], false));
    assert.equal(statSync(cacheFile(file)).mtimeMs, saved);
    assert.equal(tree(file), whole);

    const small = join(tmp.dir, "small");
    mkdirSync(small);
    const smallFile = join(small, "s.jsonl");
    writeFileSync(smallFile, readFileSync(file, "utf8").split("\n").slice(0, 50).join("\n") + "\n");
    tree(smallFile);
    assert.ok(!existsSync(cacheFile(smallFile)));
  });

  it("goes with its index when the cache folder is trimmed, as do temp files left by saves that never ended", async () => {
    const file = makeSession("f.jsonl");
    tree(file);
    const dir = join(cacheHome, "arbor", "sessions");
    const idx = companionFileFor(file, dir, ".idx");
    assert.ok(existsSync(idx) && existsSync(cacheFile(file)));
    assert.ok(readdirSync(dir).every((n) => !n.endsWith(".tmp")), "no temp file after a save");
    // A drawing stopped with Ctrl-C leaves its temp file; one being written now is young.
    const left = `${cacheFile(file)}.999999.0badf00d.tmp`;
    const young = `${cacheFile(file)}.999998.0badf00d.tmp`;
    writeFileSync(left, "partial");
    writeFileSync(young, "partial");
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(left, twoHoursAgo, twoHoursAgo);
    rmSync(idx);
    await trimCache(dir);
    assert.ok(!existsSync(cacheFile(file)), "a cache without its index is removed");
    assert.ok(!existsSync(left), "an old temp file is removed");
    assert.ok(existsSync(young), "a young one is left to its writer");
  });

  it("is not saved when the session file changed after it was read, or while it was drawn", async () => {
    const file = makeSession("g.jsonl");
    const sm = await SessionManager.open(file, { readOnly: true, index: { dir: join(tmp.dir, "g-cache") } });
    try {
      await sm.whenIndexSaved();
      const basis = sm.getCacheBasis()!;
      const target = companionFileFor(file, basis.dir, ".tree");
      const writer = (await TreeTextWriter.create(basis, sm.getEntryCount()))!;
      assert.ok(writer, "a writer for the file as read");
      await writer.add([[0, "described before the edit"]]);
      // An edit of the same size while the tree is drawn: descriptions may be from either side of it.
      const text = readFileSync(file, "utf8");
      writeFileSync(file, text.replace("question 2: lorem", "QUESTION 2: lorem"));
      await writer.save();
      assert.ok(!existsSync(target), "not saved");
      assert.ok(readdirSync(basis.dir).every((n) => !n.endsWith(".tmp")), "its temp file is removed");
      // Changed since it was read: no writer at all.
      assert.equal(await TreeTextWriter.create(basis, sm.getEntryCount()), undefined);
    } finally {
      await sm.close();
    }
  });
});
