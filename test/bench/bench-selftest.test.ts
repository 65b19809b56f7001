/**
 * Checks of the bench's own parts (run: `npx mocha out/test/bench/bench-selftest.test.js`):
 * the generator is deterministic and writes what the reference reads back, the checkout
 * targets really are on other branches, and the verdicts and arguments behave.
 */
import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseBenchArgs } from "./bench-args";
import type { EngineSessionResult, SessionBenchResult } from "./bench-session";
import { generateSession } from "./generate";
import { median } from "./measure";
import { loadReferenceSessionManager } from "./reference";
import { judgeTargets } from "./report";
import { Rng } from "./rng";

describe("bench: session generator", function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-bench-selftest-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes the same bytes for the same seed and size, other bytes for another seed", async () => {
    const a = path.join(dir, "a.jsonl");
    const b = path.join(dir, "b.jsonl");
    const c = path.join(dir, "c.jsonl");
    await generateSession(7, 1_500, a);
    await generateSession(7, 1_500, b);
    await generateSession(8, 1_500, c);
    assert.ok(fs.readFileSync(a).equals(fs.readFileSync(b)), "same seed, different files");
    assert.ok(!fs.readFileSync(a).equals(fs.readFileSync(c)), "different seeds, same file");
  });

  it("leaves the process clock and ids alone afterwards", async () => {
    const RealDate = Date;
    const realRandomUuid = crypto.randomUUID;
    await generateSession(3, 50, path.join(dir, "s.jsonl"));
    assert.equal(Date, RealDate, "the simulated Date is still installed");
    assert.equal(crypto.randomUUID, realRandomUuid, "the seeded randomUUID is still installed");
  });

  it("writes a session the reference reads back entry for entry, with targets off the final path", async () => {
    const file = path.join(dir, "s.jsonl");
    const meta = await generateSession(11, 3_000, file);
    const SessionManager = await loadReferenceSessionManager();
    const sm = SessionManager.open(file);
    const entries = sm.getEntries();
    assert.equal(entries.length, 3_000);
    assert.equal(sm.getLeafId(), meta.leafId);
    const types = new Set<string>(entries.map((e) => e.type));
    for (const type of ["message", "compaction", "branch_summary", "label", "session_info", "model_change", "thinking_level_change"]) {
      assert.ok(types.has(type), `no ${type} entry in a 3,000-entry session`);
    }
    assert.ok(meta.targets.length > 0, "no checkout targets");
    const finalPath = new Set(sm.getBranch().map((e) => e.id));
    for (const target of meta.targets) {
      assert.ok(sm.getEntry(target.id), `target ${target.id} is not in the file`);
      assert.ok(!finalPath.has(target.id), `target ${target.id} is on the final leaf's path`);
      assert.equal(sm.getBranch(target.id).length, target.depth);
      assert.ok(target.line > 3_000 / 2, "targets should sit in the second half of the file");
    }
    for (const compaction of entries.filter((e) => e.type === "compaction")) {
      const onPath = sm.getBranch(compaction.id).map((e) => e.id);
      assert.ok(onPath.includes(compaction.firstKeptEntryId), `compaction ${compaction.id} keeps an entry that is not on its path`);
    }
  });
});

describe("bench: helpers", () => {
  it("Rng is deterministic per seed", () => {
    const draw = (seed: number) => Array.from({ length: 5 }, () => new Rng(seed).next());
    assert.deepEqual(draw(1), draw(1));
    const r = new Rng(1);
    assert.notEqual(r.next(), r.next());
    assert.notDeepEqual([new Rng(1).next()], [new Rng(2).next()]);
  });

  it("median of odd and even counts", () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
  });

  it("parses sizes and rejects bad arguments with the usage", () => {
    assert.deepEqual(parseBenchArgs(["--size", "10000,100_000"]).sizes, [10_000, 100_000]);
    assert.deepEqual(parseBenchArgs([]).sizes, [10_000, 100_000, 1_000_000]);
    assert.equal(parseBenchArgs([]).strict, false);
    assert.equal(parseBenchArgs(["--strict"]).strict, true, "--strict: a MISSED target fails the run");
    assert.throws(() => parseBenchArgs(["--size", "ten"]), /--size must be an integer.*\n.*usage/s);
    assert.throws(() => parseBenchArgs(["--runs"]), /--runs needs a value/);
    assert.throws(() => parseBenchArgs(["--fast"]), /unknown argument "--fast"/);
  });

  function session(entries: number, ours: Partial<EngineSessionResult>, ref: Partial<EngineSessionResult>, oursReopen: Partial<EngineSessionResult> = {}): SessionBenchResult {
    return { entries, ours, ref, oursReopen, agreement: { compared: 1, against: "reference", mismatches: [] } } as unknown as SessionBenchResult;
  }

  it("judges the targets on the 100,000-entry session, and N/A when a side is missing", () => {
    const verdicts = judgeTargets([
      session(10_000, { openMs: 900, maxRssMb: 900, checkoutMs: 900, appendMs: 900 }, { openMs: 1, maxRssMb: 1, checkoutMs: 1, appendMs: 1 }, { openMs: 900 }),
      session(100_000, { openMs: 20, maxRssMb: 60, checkoutMs: NaN, appendMs: 5 }, { openMs: 100, maxRssMb: 100, checkoutMs: 10, appendMs: 10 }, { openMs: 4 }),
    ], undefined);
    assert.deepEqual(verdicts.map((v) => [v.target, v.entries, v.status]), [
      ["open", 100_000, "PASS"],
      ["reopen", 100_000, "PASS"],
      ["memory", 100_000, "MISSED"],
      ["checkoutContext", 100_000, "N/A"],
      ["append", 100_000, "PASS"],
    ]);
  });

  it("judges the largest case by its absolute limits and by growth from 100,000 entries", () => {
    const cli = (entries: number, wallMs: number, maxRssMb: number) => ({
      entries, bytes: 0, mismatches: [], checkedAgainst: "the reference", ref: { label: "ref", available: true, wallMs: 1000, maxRssMb: 1000, runsMs: [] },
      ours: ["arbor context", "arbor tree --json"].flatMap((c) => ["first, index built", "again, index reused"].map((p) => ({ label: `${c} (${p})`, available: true, wallMs, maxRssMb, runsMs: [] }))),
    });
    const verdicts = judgeTargets([
      session(100_000, { openMs: 100, maxRssMb: 100 }, { openMs: 1000, maxRssMb: 1000 }, { openMs: 10, maxRssMb: 50 }),
      session(1_000_000, { openMs: 1100, maxRssMb: 500 }, {}, { openMs: 90, maxRssMb: 400 }),
    ], undefined, [cli(100_000, 200, 50), cli(1_000_000, 3500, 300)]);
    const pick = (target: string, what: string) => verdicts.find((v) => v.target === target && v.what.startsWith(what))?.status;
    assert.equal(pick("large-cli-time", "arbor context (first"), "MISSED");
    assert.equal(pick("large-cli-memory", "arbor context (first"), "PASS");
    assert.equal(pick("growth", "open, first: time"), "MISSED");
    assert.equal(pick("growth", "open, first: peak RSS"), "PASS");
    assert.equal(pick("growth", "reopen: peak RSS"), "PASS");
    assert.equal(pick("growth", "arbor context (first, index built): time"), "MISSED");
  });
});
