/**
 * Both extension-host runners share one setup (test/host/host-fixture.ts). The electron runner
 * cannot run here (it downloads VS Code), so its setup is proven on the shared code: the
 * environment names every variable the suite and the extension read, the electron options pass all
 * of it to the extension host, and the folders it names hold what the suite expects. That the
 * code-server runner uses the same setup is proven by running the suite there (its helpers fail
 * without ARBOR_SAMPLE_SESSIONS), not by matching the runner's source text.
 */
import * as assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareHostFixture, testElectronOptions } from "../host/host-fixture";
import { makeTempDir } from "../support/temp-dir";

const repo = join(__dirname, "../../..");

/** `process.env.X` read, not set or deleted (a test that sets a variable for itself needs no runner). */
const READ_VARIABLE = /(?<!delete )process\.env\.((?:ARBOR|PI)_[A-Z_]+)\b(?!\s*=[^=])/g;

/** ARBOR_* and PI_* variables a set of sources reads from process.env. */
function variablesReadIn(dir: string): Set<string> {
  const found = new Set<string>();
  const visit = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts")) for (const m of readFileSync(path, "utf8").matchAll(READ_VARIABLE)) found.add(m[1]);
    }
  };
  visit(dir);
  return found;
}

describe("the extension-host runners' shared setup", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  before(() => (tmp = makeTempDir()));
  after(() => tmp.cleanup());

  it("gives the electron runner every variable the suite and the extension read, and the folders behind them", async () => {
    const fixture = await prepareHostFixture(tmp.dir);
    const options = testElectronOptions(fixture, { version: "1.100.3", extensionDevelopmentPath: repo, extensionTestsPath: "/x/suite/index", userDataDir: join(tmp.dir, "u") });
    const needed = new Set([...variablesReadIn(join(repo, "test/host/suite")), "ARBOR_TEST_HOOKS", "PI_CODING_AGENT_DIR"]);
    // Set by the code-server runner's own process for its grep option, not part of the fixture.
    needed.delete("ARBOR_HOST_GREP");
    assert.ok(needed.has("ARBOR_SAMPLE_SESSIONS") && needed.has("ARBOR_HOST_WORKSPACE"), [...needed].join(", "));
    for (const name of needed) assert.ok(options.extensionTestsEnv[name], `${name} reaches the extension host`);
    assert.equal(options.launchArgs[0], fixture.workspace, "the window opens the fixture's workspace");
    assert.equal(options.extensionTestsEnv.ARBOR_HOST_WORKSPACE, fixture.workspace);
    assert.ok(existsSync(join(fixture.workspace, "README.md")));
    const samples = JSON.parse(readFileSync(options.extensionTestsEnv.ARBOR_SAMPLE_SESSIONS, "utf8")) as { mainFile: string; forkFile: string; sessionDir: string };
    assert.ok(existsSync(samples.mainFile) && existsSync(samples.forkFile));
    assert.ok(samples.sessionDir.startsWith(join(options.extensionTestsEnv.PI_CODING_AGENT_DIR, "sessions")), "the sessions are where Arbor looks for them");
  });
});
