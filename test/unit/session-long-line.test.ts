/**
 * A line longer than the engine's string limit (about 512 MB; issue 9.5) is a bad line like any
 * other: reported with its number and kept, never an uncaught error that refuses the whole session.
 * The line is a hole in a sparse file, so it costs no disk.
 */
import * as assert from "node:assert/strict";
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from "node:fs";
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
});
