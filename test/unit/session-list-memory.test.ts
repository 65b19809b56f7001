/**
 * Listing within a fixed memory budget (issue 9.5): files are read in chunks, a few at a time, and a
 * line longer than the engine's string limit (about 512 MB) is judged from its ends instead of being
 * held. The files are sparse (their long lines are holes), so gigabytes cost no disk; the listing runs
 * in a child process whose peak resident memory is compared before and after.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeTempDir } from "../support/temp-dir";

const LIST = resolve(__dirname, "../../src/core/session/session-list.js");
const MB = 1 << 20;
/** What listing may hold beyond its results (issue 9.5: "say 64 MB beyond the index"). */
const BUDGET_MB = 64;

const header = (id: string) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/app" });
const small = (id: string, parentId: string | null, role: string, text: string, ms: number) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role, content: [{ type: "text", text }], timestamp: ms } });

/**
 * A session whose middle line is `holeBytes` long: a message whose text is a hole of zero bytes
 * (sparse on disk), closed by a normal ending, so that only its two ends say what it is.
 */
function writeSparseSession(path: string, id: string, holeBytes: number, longRole: "user" | "assistant"): void {
  const fd = openSync(path, "w");
  try {
    let at = 0;
    const put = (text: string) => (at += writeSync(fd, text, at));
    put(`${header(id)}\n`);
    if (longRole === "assistant") put(`${small("u1", null, "user", "Summarize the log", 1_767_225_601_000)}\n`);
    const parent = longRole === "assistant" ? "u1" : null;
    put(`{"type":"message","id":"big","parentId":${JSON.stringify(parent)},"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"${longRole}","content":[{"type":"text","text":"Here is the whole log: \\u00e9\\n`);
    at += holeBytes;
    ftruncateSync(fd, at);
    put(`"}],"timestamp":1767225602000}}\n`);
    put(`${small("u2", "big", "user", "and then?", 1_767_225_603_000)}\n`);
  } finally {
    closeSync(fd);
  }
}

describe("listing sessions within a fixed memory budget", function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof makeTempDir>;
  before(() => (tmp = makeTempDir()));
  after(() => tmp.cleanup());

  it("lists gigabytes of sessions, lines over 512 MB included, holding no more than the budget", () => {
    const dir = join(tmp.dir, "sessions", "--work-app--");
    mkdirSync(dir, { recursive: true });
    // Over the string limit (0x1fffffe8 characters): one line that could never be a string.
    writeSparseSession(join(dir, "2026-01-01T00-00-00-000Z_huge.jsonl"), "huge", 600 * MB, "assistant");
    writeSparseSession(join(dir, "2026-01-01T00-00-00-001Z_first.jsonl"), "first", 300 * MB, "user");
    for (let i = 0; i < 6; i++) writeSparseSession(join(dir, `2026-01-01T00-00-01-00${i}Z_s${i}.jsonl`), `s${i}`, 80 * MB, "assistant");
    const script = `
      const { listAllSessions } = require(${JSON.stringify(LIST)});
      const before = process.resourceUsage().maxRSS;
      listAllSessions({ agentDir: ${JSON.stringify(tmp.dir)}, indexDir: false, env: {} }).then((infos) => {
        const grewKb = process.resourceUsage().maxRSS - before;
        process.stdout.write(JSON.stringify({ grewKb, infos }));
      }, (err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", maxBuffer: 64 * MB });
    assert.equal(run.status, 0, run.stderr);
    const { grewKb, infos } = JSON.parse(run.stdout) as { grewKb: number; infos: { id: string; messageCount: number; badLines: number; firstMessage: string; modified: string }[] };
    assert.equal(infos.length, 8, "every session is listed");
    const byId = new Map(infos.map((i) => [i.id, i]));
    const huge = byId.get("huge")!;
    assert.equal(huge.messageCount, 3, "the 600 MB message is counted");
    assert.equal(huge.badLines, 0);
    assert.equal(huge.firstMessage, "Summarize the log");
    assert.equal(new Date(huge.modified).getTime(), 1_767_225_603_000);
    const first = byId.get("first")!;
    assert.equal(first.messageCount, 2);
    assert.ok(first.firstMessage.startsWith("Here is the whole log: é\n"), JSON.stringify(first.firstMessage.slice(0, 40)));
    if (process.env.ARBOR_SHOW_MEMORY) console.log(`listing grew the peak resident memory by ${Math.round(grewKb / 1024)} MB`);
    assert.ok(grewKb < BUDGET_MB * 1024, `listing 1.4 GB of sessions grew the resident memory by ${Math.round(grewKb / 1024)} MB`);
  });
});
