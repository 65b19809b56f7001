/**
 * Every example in the reference's examples/extensions/ loads in Arbor, unchanged: its factory runs
 * and registers what it registers, and nothing it touches at load time fails. (What each one needs
 * later, and whether VS Code has it, is the census in docs/pi-extensions.md; the examples the issue names are
 * driven end to end in pi-examples.test.ts and the extension-host suite.)
 */
import * as assert from "node:assert/strict";
import { cpSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { trapWatchers, type WatcherTrap } from "../support/fs-watchers";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { EXAMPLES_DIR, startWithExamples, type PiKit } from "./pi-examples-harness.test";

/** Examples that cannot load as shipped, and why (checked: each of these does fail, with that reason). */
const CANNOT_LOAD: Record<string, RegExp> = {
  // Their package.json lists npm dependencies that are not installed next to them (as in Pi: run npm install there first).
  "custom-provider-anthropic": /Cannot find module '@anthropic-ai\/sdk'/,
  "with-deps": /Cannot find module 'ms'/,
  sandbox: /Cannot find module '@anthropic-ai\/sandbox-runtime'/,
};

describe("the census of Pi's example extensions", function () {
  this.timeout(240_000);
  let kit: AgentKit;
  before(async () => (kit = await makeKit()));
  let started: PiKit | undefined;
  // file-trigger.ts watches /tmp/agent-trigger.txt when that file exists, and never closes the watcher.
  let trap: WatcherTrap | undefined;
  // Whatever fails, the 72 extensions' session ends (their watchers and timers with it).
  after(async () => {
    await started?.runtime.dispose();
    trap?.release();
    await kit.cleanup();
  });

  it("loads every example; only those listed fail, for the reason given", async () => {
    const names = readdirSync(EXAMPLES_DIR).filter((n) => n !== "README.md" && (n.endsWith(".ts") || statSync(join(EXAMPLES_DIR, n)).isDirectory()));
    assert.ok(names.length >= 70, `the reference ships ${names.length} examples`);
    const pi = await startWithExamples(kit, []);
    await pi.runtime.dispose();
    for (const name of names) cpSync(join(EXAMPLES_DIR, name), join(pi.agentDir, "extensions", name), { recursive: true });
    trap = trapWatchers();
    const all = await startWithExamples(kit, []);
    started = all;
    const byName = new Map(all.set.list().map((s) => [s.extension.path.slice(join(all.agentDir, "extensions").length + 1).split("/")[0]!, s]));
    const failed = [...byName].filter(([, s]) => s.state === "failed").map(([n, s]) => `${n}: ${s.loadError}`);
    for (const [name, why] of Object.entries(CANNOT_LOAD)) {
      const status = byName.get(name);
      assert.ok(status && status.state === "failed" && why.test(status.loadError ?? ""), `${name} fails as expected: ${status?.loadError}`);
    }
    assert.deepEqual(failed.filter((f) => !Object.keys(CANNOT_LOAD).some((n) => f.startsWith(`${n}:`))), []);
    console.log(`      census: ${byName.size} loaded entries; reports at load:\n${all.reports.map((r) => `        ${r}`).join("\n")}`);
  });
});
