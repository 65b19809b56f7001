/**
 * A line longer than the engine's string limit (about 512 MB; issue 9.5) is a bad line like any
 * other: reported with its number and kept, never an uncaught error that refuses the whole session.
 * The line is a hole in a sparse file, so it costs no disk. Migration and fork copy such a file
 * streamed (the copies are real bytes: about 0.5 GB of disk each, removed after the test).
 */
import * as assert from "node:assert/strict";
import { closeSync, ftruncateSync, openSync, readdirSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { constants } from "node:buffer";
import { SessionManager } from "../../src/core/session/session-manager";
import { makeTempDir } from "../support/temp-dir";

describe("a line over the string limit", function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof makeTempDir>;
  before(() => (tmp = makeTempDir()));
  after(() => tmp.cleanup());

  it("is reported as a bad line with its number and kept; the entries around it open", async () => {
    const file = join(tmp.dir, "2026-01-01T00-00-00-000Z_long.jsonl");
    const fd = openSync(file, "w");
    let at = 0;
    const put = (text: string) => (at += writeSync(fd, text, at));
    put(`${JSON.stringify({ type: "session", version: 3, id: "long", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/app" })}\n`);
    put(`${JSON.stringify({ type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`);
    put('{"type":"custom","id":"big","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","customType":"x","data":"');
    at += constants.MAX_STRING_LENGTH + 1024;
    ftruncateSync(fd, at);
    put('"}\n');
    put(`${JSON.stringify({ type: "message", id: "u2", parentId: "u1", timestamp: "2026-01-01T00:00:03.000Z", message: { role: "user", content: "after", timestamp: 3 } })}\n`);
    closeSync(fd);
    const size = statSync(file).size;

    const sm = await SessionManager.open(file, { readOnly: true });
    try {
      assert.deepEqual(sm.getEntries().map((e) => e.id), ["u1", "u2"]);
      const problems = sm.getProblems();
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]!.line, 3);
      assert.match(problems[0]!.message, /line 3 is too long to read .* it is kept/);
    } finally {
      await sm.close();
    }
    assert.equal(statSync(file).size, size, "the file is unchanged");
  });

  /** An old-format (v2) session with a line past the string limit between two entries; returns its path and size. */
  function writeLongV2(name: string): { file: string; size: number; bigLineBytes: number } {
    const file = join(tmp.dir, name);
    const fd = openSync(file, "w");
    let at = 0;
    const put = (text: string) => (at += writeSync(fd, text, at));
    put(`${JSON.stringify({ type: "session", version: 2, id: "long2", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/app" })}\n`);
    put(`${JSON.stringify({ type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`);
    const start = at;
    put('{"type":"custom","id":"big","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","customType":"x","data":"');
    at += constants.MAX_STRING_LENGTH + 1024;
    ftruncateSync(fd, at);
    put('"}\n');
    const bigLineBytes = at - start;
    put(`${JSON.stringify({ type: "message", id: "u2", parentId: "u1", timestamp: "2026-01-01T00:00:03.000Z", message: { role: "user", content: "after", timestamp: 3 } })}`); // no newline
    closeSync(fd);
    return { file, size: at, bigLineBytes };
  }

  /** The bytes [from, from + n) of a file, as text. */
  function slice(file: string, from: number, n: number): string {
    const fd = openSync(file, "r");
    try {
      const buf = Buffer.alloc(n);
      return buf.toString("utf8", 0, readSync(fd, buf, 0, n, from));
    } finally {
      closeSync(fd);
    }
  }

  it("a session over the string limit is forked and migrated (streamed), the long line copied byte for byte", async () => {
    const { file, size, bigLineBytes } = writeLongV2("2026-01-01T00-00-00-000Z_long2.jsonl");
    const headerBytes = Buffer.byteLength(slice(file, 0, 4096).split("\n")[0]!) + 1;

    const fork = await SessionManager.forkFrom(file, "/work/other", { sessionDir: join(tmp.dir, "forks") });
    try {
      assert.deepEqual(fork.getEntries().map((e) => e.id), ["u1", "u2"]);
      assert.deepEqual(fork.getProblems().map((p) => p.line), [3]);
    } finally {
      await fork.close();
    }
    const forkFile = fork.getSessionFile()!;
    const forkHeader = slice(forkFile, 0, 4096).split("\n")[0]!;
    const forkHeaderBytes = Buffer.byteLength(forkHeader) + 1;
    assert.equal(JSON.parse(forkHeader).parentSession, file);
    // The fork: its own header, the rest of the file as it was (the unterminated last line ended).
    assert.equal(statSync(forkFile).size, size - headerBytes + forkHeaderBytes + 1);
    const bigStart = forkHeaderBytes + slice(forkFile, forkHeaderBytes, 4096).indexOf("\n") + 1;
    assert.match(slice(forkFile, bigStart, 120), /^\{"type":"custom","id":"big"/);
    assert.equal(slice(forkFile, bigStart + bigLineBytes - 3, 3), '"}\n', "the long line ends where it did");

    // The first append to the old-format file rewrites it (streamed), with a backup.
    const sm = await SessionManager.open(file);
    const added = sm.appendMessage({ role: "user", content: "new", timestamp: 4 });
    await sm.flush();
    await sm.close();
    // Checked by its bytes (reading it again would cost another half a minute): the header at
    // version 3, the entries and the long line as they were, the new entry after them.
    const header = slice(file, 0, 4096).split("\n")[0]!;
    assert.equal(JSON.parse(header).version, 3);
    const tail = slice(file, size - 200, 2000);
    assert.match(tail, new RegExp(`"content":"after","timestamp":3}}\\n\\{[^\\n]*"id":"${added}","parentId":"u2"[^\\n]*\\n$`));
    assert.equal(slice(file, headerBytes + bigStart - forkHeaderBytes + bigLineBytes - 3, 3), '"}\n', "the long line ends where it did");
    const backup = readdirSync(tmp.dir).find((n) => n.startsWith("2026-01-01T00-00-00-000Z_long2.jsonl.v2-"))!;
    assert.equal(statSync(join(tmp.dir, backup)).size, size, "the backup holds the original");
  });
});
