/**
 * Issue 9 points 2 and 3: nothing the user wrote is ever silently lost or written twice.
 * - A full disk (ENOSPC on a real, tiny tmpfs; injected at the file-system seam where mounting is
 *   not allowed) cuts a write short: the lines written whole stay, the torn bytes are cut off, the
 *   rest waits in memory and is reported, and the retry writes each line exactly once.
 * - A session file replaced (renamed over) or deleted while open: no entry goes to the unlinked file
 *   or to a file that is not the session's; the session turns read-only, keeps every entry, and a
 *   whole copy ("Save as New Session") holds them all, readable by Pi.
 * - A rewrite (migration) keeps the file's permission bits.
 */
import * as assert from "node:assert/strict";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { type SessionChange, SessionManager } from "../../src/core/session/session-manager";
import { fillUp, injectFault, mountTmpfs, unmount } from "../support/fs-faults";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir, waitFor } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

/** The ids of the entry lines of a file, in order (bad lines fail the parse: there must be none). */
function idsIn(file: string): string[] {
  const lines = readFileSync(file, "utf8").split("\n");
  assert.equal(lines.pop(), "", "the file ends with a newline");
  return lines.slice(1).map((l, i) => {
    try {
      return (JSON.parse(l) as { id: string }).id;
    } catch {
      return assert.fail(`line ${i + 2} is not whole JSON: ${l.slice(0, 80)}`);
    }
  });
}

function readAll(fd: number): string {
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(size);
  readSync(fd, buf, 0, size, 0);
  return buf.toString("utf8");
}

describe("writes that fail, and files that change under an open session (issue 9.2, 9.3)", function () {
  this.timeout(60_000);
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  const mounts: string[] = [];
  before(async () => (pi = await loadReference()));
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => {
    for (const m of mounts.splice(0)) unmount(m);
    tmp.cleanup();
  });

  async function newSession(dir: string): Promise<SessionManager> {
    const sm = await SessionManager.create("/w", { sessionDir: dir });
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    await sm.flush();
    return sm;
  }

  it("a full disk cuts a burst short: whole lines stay, torn bytes go, the rest is reported and written once on retry", async () => {
    const dir = join(tmp.dir, "disk");
    mkdirSync(dir);
    const onTmpfs = mountTmpfs(dir, 64);
    if (onTmpfs) mounts.push(dir);
    const sm = await newSession(dir);
    const file = sm.getSessionFile()!;
    const before = idsIn(file);
    let restore: (() => void) | undefined;
    // Room for about one and a half of the lines below: a genuine short write, then ENOSPC.
    if (onTmpfs) await fillUp(join(dir, "filler"));
    else restore = await injectFault((p) => p === file, { code: "ENOSPC", allowBytes: 2600 });
    const room = onTmpfs ? 4096 - (statSync(file).size % 4096) : 2600;
    const changes: SessionChange[] = [];
    sm.onDidChange((c) => changes.push(c));
    // Two bytes a character: the lines' ends are counted in bytes, not characters.
    const big = "é".repeat(Math.ceil(room / 3));
    const ids = [sm.appendMessage(user(`one ${big}`)), sm.appendMessage(assistant(`two ${big}`)), sm.appendMessage(user(`three ${big}`)), sm.appendMessage(assistant(`four ${big}`))];
    await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && /no space|ENOSPC/i.test(e.message));
    const afterFailure = idsIn(file); // throws on a torn line: it was cut off
    const writtenNow = afterFailure.slice(before.length);
    assert.ok(writtenNow.length >= 1 && writtenNow.length < ids.length, `a short write: ${writtenNow.length} of ${ids.length} lines`);
    assert.deepEqual(writtenNow, ids.slice(0, writtenNow.length));
    const unsaved = changes.filter((c): c is Extract<SessionChange, { kind: "unsaved" }> => c.kind === "unsaved").pop();
    assert.deepEqual(unsaved?.ids, ids.slice(writtenNow.length), "the entries not written are named");
    assert.deepEqual(sm.getUnsavedEntryIds(), ids.slice(writtenNow.length));
    assert.ok(ids.every((id) => sm.hasEntry(id)), "everything stays in memory");
    assert.equal(sm.isReadOnly(), false, "a full disk is not a reason to stop writing");
    // Space comes back: the retry writes each remaining line once.
    if (onTmpfs) rmSync(join(dir, "filler"));
    restore?.();
    await sm.flush();
    const final = idsIn(file);
    assert.deepEqual(final, [...before, ...ids], "every line exactly once, in order");
    assert.deepEqual(sm.getUnsavedEntryIds(), []);
    assert.deepEqual(changes.filter((c) => c.kind === "unsaved").pop(), { kind: "unsaved", ids: [] }, "and the front ends hear that all is saved");
    await sm.close();
    const ref = pi.SessionManager.open(file);
    assert.deepEqual(ref.getEntries().map((e: { id: string }) => e.id), final);
  });

  it("a burst written in several pieces (a line longer than a piece among them) keeps every line whole through a full disk midway", async () => {
    const sm = await newSession(tmp.dir);
    const file = sm.getSessionFile()!;
    const before = idsIn(file);
    // About 1.6 MB in all: more than six of the queue's 256 KB pieces, with one line of 600 KB (two
    // bytes a character) longer than a piece, and the disk full after 1.5 MB, past the long line.
    const restore = await injectFault((p) => p === file, { code: "ENOSPC", allowBytes: 1_500_000 });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(sm.appendMessage(i % 2 ? assistant(`${i} ${"x".repeat(20_000)}`) : user(`${i} ${"y".repeat(20_000)}`)));
    ids.push(sm.appendMessage(user(`long ${"é".repeat(300_000)}`)));
    for (let i = 0; i < 10; i++) ids.push(sm.appendMessage(assistant(`after ${i} ${"z".repeat(20_000)}`)));
    await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && /no space|ENOSPC/i.test(e.message));
    const writtenNow = idsIn(file).slice(before.length); // throws on a torn line: it was cut off
    assert.ok(writtenNow.length > 41 && writtenNow.length < ids.length, `written whole: ${writtenNow.length} of ${ids.length} lines, the long one among them`);
    assert.deepEqual(writtenNow, ids.slice(0, writtenNow.length));
    assert.deepEqual(sm.getUnsavedEntryIds(), ids.slice(writtenNow.length));
    restore();
    await sm.flush();
    const final = idsIn(file);
    assert.deepEqual(final, [...before, ...ids], "every line exactly once, in order");
    // The session placed each line where it landed: its entries, read back through those places, are the file's.
    const ref = pi.SessionManager.open(file);
    assert.deepEqual(sm.getEntries(), ref.getEntries());
    await sm.close();
    const again = await SessionManager.open(file);
    assert.deepEqual(again.getEntries(), ref.getEntries());
    await again.close();
  });

  it("a failed background append (a checkout marker) is reported with its id, not only logged", async () => {
    const sm = await newSession(tmp.dir);
    const file = sm.getSessionFile()!;
    const first = sm.getEntries()[0]!.id;
    const changes: SessionChange[] = [];
    sm.onDidChange((c) => changes.push(c));
    const restore = await injectFault((p) => p === file, { code: "ENOSPC", allowBytes: 0 });
    try {
      sm.checkout(first); // the marker is written in the background
      await waitFor(() => changes.some((c) => c.kind === "unsaved"), "the failure to be reported");
      const marker = sm.getEntries().pop()!;
      assert.equal(marker.type, "custom");
      assert.deepEqual(changes.find((c) => c.kind === "unsaved"), { kind: "unsaved", ids: [marker.id], error: (changes.find((c) => c.kind === "error") as { error: Error }).error });
    } finally {
      restore();
    }
    await sm.flush();
    assert.equal(idsIn(file).filter((id) => id === sm.getEntries().pop()!.id).length, 1);
    await sm.close();
  });

  it("a file renamed over the session while open gets no entry, nor does the unlinked one; the session keeps them and saves them as a new session", async () => {
    const sm = await newSession(tmp.dir);
    const file = sm.getSessionFile()!;
    const label = sm.appendLabelChange(sm.getEntries()[0]!.id, "kept");
    await sm.flush();
    const oldFd = openSync(file, "r");
    try {
      // An editor's atomic save (or a sync tool, or git checkout): a new file renamed over the path.
      const replacement = `${readFileSync(file, "utf8")}`;
      writeFileSync(`${file}.tmp`, replacement);
      renameSync(`${file}.tmp`, file);
      const changes: SessionChange[] = [];
      sm.onDidChange((c) => changes.push(c));
      const lost = sm.appendMessage(user("typed after the file was replaced"));
      await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && e.code === "replaced" && /replaced by another program/.test(e.message));
      assert.equal(readFileSync(file, "utf8"), replacement, "the new file is left alone");
      assert.ok(!readAll(oldFd).includes(lost), "nothing went to the unlinked file either");
      assert.equal(sm.isReadOnly(), true);
      assert.equal(sm.isDetached(), true);
      assert.ok(changes.some((c) => c.kind === "read-only" && c.replaced === true), "the front ends are told");
      assert.deepEqual(sm.getUnsavedEntryIds(), [lost]);
      assert.throws(() => sm.appendMessage(user("more")), (e: unknown) => e instanceof SessionError && e.code === "read-only");
      // Save as a new session: every entry, written or not, on every branch, with the leaf where it was.
      const saved = await SessionManager.branchFrom(sm, sm.getLeafId(), { whole: true });
      await saved.flush();
      const copy = saved.getSessionFile()!;
      const ref = pi.SessionManager.open(copy);
      const refIds = ref.getEntries().map((e: { id: string }) => e.id);
      for (const e of sm.getEntries()) assert.ok(refIds.includes(e.id), `entry ${e.id} saved`);
      assert.equal(ref.getLeafId(), lost);
      assert.equal(ref.getHeader()!.parentSession, file);
      assert.equal(ref.getLabel(sm.getEntries()[0]!.id), "kept");
      assert.equal(saved.isReadOnly(), false);
      await saved.close();
      await sm.close();
      assert.ok(label);
    } finally {
      closeSync(oldFd);
    }
  });

  it("a session file deleted while open is not created again with a stray line; the entries stay in memory", async () => {
    const sm = await newSession(tmp.dir);
    const file = sm.getSessionFile()!;
    unlinkSync(file);
    const id = sm.appendMessage(user("typed after the delete"));
    await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && e.code === "replaced" && /deleted/.test(e.message));
    assert.equal(existsSync(file), false, "no header-less file appears at the path");
    assert.ok(sm.hasEntry(id));
    assert.equal(sm.isDetached(), true);
    await sm.close();
  });

  it("a writer that sees its file replaced through the live tail stops instead of reading another file in", async () => {
    const sm = await newSession(tmp.dir);
    const file = sm.getSessionFile()!;
    const ids = sm.getEntries().map((e) => e.id);
    sm.startLiveTail();
    const other = await newSession(join(tmp.dir, "elsewhere"));
    const otherFile = other.getSessionFile()!;
    await other.close();
    renameSync(otherFile, file);
    await waitFor(() => sm.isDetached(), "the writer to notice", 5000);
    assert.deepEqual(sm.getEntries().map((e) => e.id), ids, "its own entries, not the other file's");
    assert.match(sm.getReadOnlyReason()!, /replaced/);
    await sm.close();
  });

  it("a migration rewrite keeps the file's permission bits", async () => {
    const file = join(tmp.dir, "old.jsonl");
    const lines = [
      { type: "session", version: 2, id: "0199aaaa-0000-7000-8000-0000000000a2", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "d0000001", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "hookMessage", customType: "x", content: "hi", display: true, timestamp: 1 } },
      { type: "message", id: "d0000002", parentId: "d0000001", timestamp: "2025-01-01T00:00:02.000Z", message: assistant("a") },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    chmodSync(file, 0o600);
    const sm = await SessionManager.open(file);
    sm.appendMessage(user("after the migration"));
    await sm.close();
    assert.equal(JSON.parse(readFileSync(file, "utf8").split("\n")[0]!).version, 3, "rewritten migrated");
    assert.equal(statSync(file).mode & 0o777, 0o600, "still private");
  });
});
