/**
 * Issue 9.5 and "nothing is ever lost": migration (an old-format file rewritten on the first
 * append), Fork and Save as New Session write the new file as a stream to a temp file beside it,
 * fsync it and rename it; the content never becomes one string.
 * - The streamed copy is byte for byte right across read chunks: lines longer than a chunk, a
 *   bad line before the header, blank lines, an unterminated last line.
 * - A full disk (a real tiny tmpfs where the machine allows mounting, else ENOSPC injected at the
 *   file-system seam) fails each of them with a clear error; the original file is untouched, no
 *   temp file, backup or lock is left behind, and the unsaved entries wait in memory.
 * - A second writer that appends to an old-format file while it is being rewritten loses nothing:
 *   the rename is called off and the rewrite is tried again with its lines.
 */
import * as assert from "node:assert/strict";
import { appendFileSync, mkdirSync, promises as fsp, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { SessionManager } from "../../src/core/session/session-manager";
import { fillUp, injectFault, mountTmpfs, unmount } from "../support/fs-faults";
import { assistant, user } from "../support/messages";
import { makeTempDir } from "../support/temp-dir";

const HEADER_V2 = { type: "session", version: 2, id: "old-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" };

function entry(id: string, parentId: string | null, message: Record<string, unknown>): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:01.000Z", message });
}

/** A v2 file with lines longer than the copy's read chunk (1 MB) and every kind of odd line. */
function v2Lines(): string[] {
  return [
    "", // blank before the header
    `not json before the header ${"h".repeat(5 * 1024 * 1024)}`, // longer than a header can be
    JSON.stringify(HEADER_V2),
    entry("aaaaaaaa", null, { role: "user", content: `long ${"u".repeat(1_500_000)}`, timestamp: 1 }),
    entry("bbbbbbbb", "aaaaaaaa", { role: "hookMessage", customType: "h", content: "hook", display: true, timestamp: 2 }),
    `garbage ${"g".repeat(2_500_000)}`,
    "",
    JSON.stringify({ type: "session", id: "second-header", version: 2 }), // a second header line is kept as it is
    entry("cccccccc", "bbbbbbbb", { role: "user", content: "short", timestamp: 3 }),
  ];
}

/** What the rewrite must produce: entries re-serialized migrated, the first header at version 3, all else as it was. */
function expectedRewrite(lines: string[], newHeader?: string): string[] {
  let headerSeen = false;
  const out: string[] = [];
  for (const line of lines) {
    let v: Record<string, unknown> | undefined;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      v = undefined;
    }
    if (v && !headerSeen && v.type === "session") {
      headerSeen = true;
      if (newHeader === undefined) out.push(JSON.stringify({ ...v, version: 3 }));
      continue;
    }
    if (v && headerSeen && v.type !== "session" && typeof v.id === "string") {
      const m = v.message as { role?: string } | undefined;
      if (m?.role === "hookMessage") m.role = "custom";
      out.push(JSON.stringify(v));
    } else out.push(line);
  }
  return newHeader === undefined ? out : [newHeader, ...out];
}

/** Files of a folder that a failed write must not leave behind. */
function leftovers(dir: string, keep: string[]): string[] {
  return readdirSync(dir).filter((n) => !keep.includes(n));
}

describe("migration, fork and save-as-new write streamed and crash-safe (issue 9.5)", function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof makeTempDir>;
  const mounts: string[] = [];
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => {
    for (const m of mounts.splice(0)) unmount(m);
    tmp.cleanup();
  });

  it("the migration rewrite and a fork copy every line exactly across read chunks", async () => {
    const lines = v2Lines();
    const file = join(tmp.dir, "2025-01-01T00-00-00-000Z_old.jsonl");
    writeFileSync(file, lines.join("\n")); // unterminated last line

    const forked = await SessionManager.forkFrom(file, "/elsewhere", { sessionDir: join(tmp.dir, "forks") });
    const forkFile = forked.getSessionFile()!;
    await forked.close();
    const forkLines = readFileSync(forkFile, "utf8").split("\n");
    assert.equal(forkLines.pop(), "", "the fork ends with a newline");
    const forkHeader = JSON.parse(forkLines[0]!) as { parentSession?: string; version?: number };
    assert.equal(forkHeader.parentSession, file);
    assert.equal(forkHeader.version, 3);
    assert.deepEqual(forkLines, expectedRewrite(lines, forkLines[0]));

    const sm = await SessionManager.open(file);
    const added = sm.appendMessage(user("after the migration"));
    await sm.flush();
    await sm.close();
    const rewritten = readFileSync(file, "utf8").split("\n");
    assert.equal(rewritten.pop(), "");
    const last = JSON.parse(rewritten.pop()!) as { id: string; parentId: string };
    assert.equal(last.id, added);
    assert.equal(last.parentId, "cccccccc");
    assert.deepEqual(rewritten, expectedRewrite(lines));
    const backup = readdirSync(tmp.dir).find((n) => n.endsWith(".bak"))!;
    assert.equal(readFileSync(join(tmp.dir, backup), "utf8"), lines.join("\n"), "the backup holds the original");
    // The session reads its own rewritten file on: the next append goes after the right line.
    const again = await SessionManager.open(file);
    assert.deepEqual(again.getProblems().map((p) => p.line), [2, 6]);
    assert.equal(again.getLeafId(), added);
    await again.close();
  });

  /**
   * A folder whose disk is full but for `roomKb` (a real tmpfs), or, where mounting is not
   * allowed, writes to temp files failing with ENOSPC after `roomKb`. Returns the function that
   * frees the disk again.
   */
  async function fullDisk(dir: string, sizeKb: number, roomKb: number): Promise<() => Promise<void>> {
    if (mountTmpfs(dir, sizeKb)) {
      mounts.push(dir);
      return async () => undefined;
    }
    const restore = await injectFault((p) => p.endsWith(".tmp"), { code: "ENOSPC", allowBytes: roomKb * 1024 });
    return async () => restore();
  }

  /** Fills the tmpfs but for `roomKb` (nothing to do when the fault is injected). */
  async function fill(dir: string, roomKb: number): Promise<void> {
    if (!mounts.includes(dir)) return;
    writeFileSync(join(dir, "reserve"), Buffer.alloc(roomKb * 1024));
    await fillUp(join(dir, "filler"));
    rmSync(join(dir, "reserve"));
  }

  function free(dir: string): void {
    rmSync(join(dir, "filler"), { force: true });
  }

  it("a full disk during the migration rewrite leaves the original file untouched, says so, and loses no entry", async () => {
    const dir = join(tmp.dir, "disk");
    mkdirSync(dir);
    const restore = await fullDisk(dir, 1024, 16);
    const lines = [JSON.stringify(HEADER_V2), entry("aaaaaaaa", null, { role: "user", content: "x".repeat(100_000), timestamp: 1 }), entry("bbbbbbbb", "aaaaaaaa", { role: "user", content: "y".repeat(100_000), timestamp: 2 }), ""];
    const original = lines.join("\n");
    const name = "2025-01-01T00-00-00-000Z_old.jsonl";
    const file = join(dir, name);
    writeFileSync(file, original);
    const sm = await SessionManager.open(file);
    assert.equal(sm.isReadOnly(), false);
    await fill(dir, 16); // room for the lock, not for a second copy of the file
    const ids = [sm.appendMessage(user("one")), sm.appendMessage(assistant("two"))];
    await assert.rejects(sm.flush(), (e: unknown) => {
      assert.ok(e instanceof SessionError, String(e));
      assert.match(e.message, /Could not bring .*old\.jsonl to the current format .*: the disk is full \(ENOSPC\); the file is unchanged and the new entries wait in memory/);
      return true;
    });
    assert.equal(readFileSync(file, "utf8"), original, "the original is byte for byte as it was");
    assert.deepEqual(leftovers(dir, [name, `${name}.lock`, "filler"]), [], "no temp file and no partial backup");
    assert.deepEqual(sm.getUnsavedEntryIds(), ids);
    for (const id of ids) assert.ok(sm.getEntry(id), "the entries stay in memory");

    free(dir);
    await restore();
    await sm.flush(); // the retry migrates and writes each entry once
    await sm.close();
    const after = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { id?: string; version?: number });
    assert.equal(after[0]!.version, 3);
    assert.deepEqual(after.slice(1).map((e) => e.id), ["aaaaaaaa", "bbbbbbbb", ...ids]);
  });

  it("a fork into a full folder fails clearly and leaves nothing behind; the source is untouched", async () => {
    const source = join(tmp.dir, "2025-01-01T00-00-00-000Z_src.jsonl");
    const original = [JSON.stringify({ ...HEADER_V2, version: 3 }), entry("aaaaaaaa", null, { role: "user", content: "z".repeat(200_000), timestamp: 1 }), ""].join("\n");
    writeFileSync(source, original);
    const dir = join(tmp.dir, "full");
    mkdirSync(dir);
    const restore = await fullDisk(dir, 256, 16);
    await fill(dir, 16);
    try {
      await assert.rejects(SessionManager.forkFrom(source, "/w", { sessionDir: dir }), (e: unknown) => {
        assert.ok(e instanceof SessionError, String(e));
        assert.match(e.message, /^Could not fork .*_src\.jsonl into .*: the disk is full \(ENOSPC\); .*_src\.jsonl is unchanged$/);
        return true;
      });
    } finally {
      await restore();
    }
    assert.deepEqual(leftovers(dir, ["filler"]), [], "no new session, no temp file, no lock");
    assert.equal(readFileSync(source, "utf8"), original);
  });

  it("Save as New Session into a full folder fails clearly, keeps the session open and writable, and leaves no lock", async () => {
    const srcDir = join(tmp.dir, "src");
    const sm = await SessionManager.create("/w", { sessionDir: srcDir });
    sm.appendMessage(user("q".repeat(150_000)));
    const a = sm.appendMessage(assistant("a"));
    await sm.flush();
    const before = readFileSync(sm.getSessionFile()!, "utf8");
    const dir = join(tmp.dir, "full");
    mkdirSync(dir);
    const restore = await fullDisk(dir, 256, 16);
    await fill(dir, 16);
    try {
      await assert.rejects(SessionManager.branchFrom(sm, a, { sessionDir: dir, whole: true }), (e: unknown) => {
        assert.ok(e instanceof SessionError, String(e));
        assert.match(e.message, /^Could not write the new session .*: the disk is full \(ENOSPC\); .* is unchanged and everything stays open in this window$/);
        return true;
      });
    } finally {
      await restore();
    }
    assert.deepEqual(leftovers(dir, ["filler"]), [], "no new session, no temp file, no lock");
    assert.equal(readFileSync(sm.getSessionFile()!, "utf8"), before);
    const more = sm.appendMessage(user("still writing"));
    await sm.flush();
    assert.ok(readFileSync(sm.getSessionFile()!, "utf8").includes(more));
    await sm.close();
  });

  it("a second writer appending while the migration rewrite runs loses nothing: the rewrite is tried again with its line", async () => {
    const name = "2025-01-01T00-00-00-000Z_old.jsonl";
    const file = join(tmp.dir, name);
    const original = [JSON.stringify(HEADER_V2), entry("aaaaaaaa", null, { role: "user", content: "one", timestamp: 1 }), ""].join("\n");
    writeFileSync(file, original);
    const foreign = entry("ffffffff", "aaaaaaaa", { role: "user", content: "from an older Pi", timestamp: 2 });
    // The other writer appends while the temp file is being fsynced (the seam: FileHandle.sync).
    const probe = await fsp.open(file, "r");
    const proto = Object.getPrototypeOf(probe) as { sync: (this: FileHandle) => Promise<void> };
    await probe.close();
    const sync = proto.sync;
    let appended = false;
    proto.sync = async function (this: FileHandle) {
      // The rewrite's temp file (not the lock's): .<name>.<pid>.<random>.tmp
      if (!appended && /\/\.[^/]+\.jsonl\.\d+\.[0-9a-f]{8}\.tmp$/.test(readlinkSync(`/proc/self/fd/${this.fd}`))) {
        appended = true;
        appendFileSync(file, `${foreign}\n`);
      }
      return sync.call(this);
    };
    const sm = await SessionManager.open(file);
    let ours: string;
    try {
      ours = sm.appendMessage(user("ours"));
      await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && /another program wrote to it meanwhile .*; the file is unchanged and the new entries wait in memory/.test(e.message));
    } finally {
      proto.sync = sync;
    }
    assert.equal(readFileSync(file, "utf8"), `${original}${foreign}\n`, "the file holds its lines and the other writer's");
    assert.deepEqual(leftovers(tmp.dir, [name, `${name}.lock`]), [], "no temp file, no backup of a rewrite that did not happen");
    await sm.flush(); // the retry
    await sm.close();
    const ids = readFileSync(file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { id: string; version?: number }));
    assert.equal(ids[0]!.version, 3);
    assert.deepEqual(ids.slice(1).map((e) => e.id), ["aaaaaaaa", "ffffffff", ours]);
  });
});
