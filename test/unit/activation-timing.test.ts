import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activationLogLine, startActivationTiming } from "../../src/extension/activation-timing";
import { timingFromLogs } from "../bench/activation";

describe("activation timing", () => {
  it("times activate on the given clock; outside the bundle there is no module time", () => {
    let t = 100;
    let used = { user: 1000, system: 500 };
    const done = startActivationTiming(() => t, (since) => (since ? { user: used.user - since.user, system: used.system - since.system } : used));
    t = 112.345;
    used = { user: 9000, system: 1500 };
    assert.deepEqual(done(), { moduleEvaluationMs: undefined, moduleEvaluationCpuMs: undefined, activateMs: 12.3, activateCpuMs: 9 });
  });

  it("writes a log line the bench reads back from Arbor's log", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-activation-"));
    try {
      mkdirSync(join(dir, "20261204T010000/exthost1/output_logging_1"), { recursive: true });
      const line = activationLogLine({ moduleEvaluationMs: 4.2, moduleEvaluationCpuMs: 3.1, activateMs: 17.5, activateCpuMs: 9 });
      writeFileSync(join(dir, "20261204T010000/exthost1/output_logging_1/Arbor.log"), `2026-12-04 01:00:00.000 [info] Arbor 0.1.0 activated for /w\n2026-12-04 01:00:00.001 [info] ${line}\n`);
      assert.deepEqual(timingFromLogs(dir), { moduleEvaluationMs: 4.2, moduleEvaluationCpuMs: 3.1, activateMs: 17.5, activateCpuMs: 9 });
      assert.equal(timingFromLogs(join(dir, "nothing")), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
