/**
 * Arbor reports what its activation cost (src/extension/activation-timing.ts): the evaluation of the
 * bundle, timed by the banner and footer scripts/build.mjs writes around it, and the call to
 * `activate`, both in the hooks and as the log line `npm run bench:vscode` reads. (How long they take
 * is the bench's business; here, that they are measured at all.)
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type * as vscode from "vscode";
import type { ActivationTiming } from "../../../src/extension/activation-timing";
import { findArbor, until } from "./host-helpers";

/** Every Arbor.log under `dir`. */
function arborLogs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? arborLogs(path) : name === "Arbor.log" ? [path] : [];
  });
}

describe("activation", () => {
  it("measures the bundle's evaluation and the call to activate, and logs both", async () => {
    const api = (await findArbor().activate()) as { testing?: { activation: ActivationTiming; logUri: vscode.Uri } };
    assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    const t = api.testing.activation;
    assert.equal(Object.keys(t).length, 4);
    for (const [name, ms] of Object.entries(t)) assert.ok(typeof ms === "number" && Number.isFinite(ms) && ms >= 0, `${name} is a time (${ms})`);
    // The log line: VS Code writes the output channel's file a little later than the call.
    const logsRoot = dirname(api.testing.logUri.fsPath);
    let line: string | undefined;
    await until(() => {
      line = arborLogs(logsRoot).flatMap((f) => readFileSync(f, "utf8").split("\n")).find((l) => l.includes("activation timing:"));
      return line !== undefined;
    }, "the activation timing in Arbor's log");
    assert.deepEqual(JSON.parse(line!.slice(line!.indexOf("{"))), t);
  });
});
