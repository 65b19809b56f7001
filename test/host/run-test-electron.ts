/**
 * Runs the extension-host suite in a desktop VS Code downloaded by `@vscode/test-electron`, the
 * standard runner. It needs internet access to download VS Code, so it does not run on machines that
 * only reach the npm registry: there `npm run test:host` uses code-server instead, with the same suite
 * and the same setup (host-fixture.ts).
 *
 * Usage: npm run build && npx tsc -p test/host && node out/test/host/run-test-electron.js
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runTests } from "@vscode/test-electron";
import { repoRoot } from "../e2e/harness/paths";
import { prepareHostFixture, testElectronOptions } from "./host-fixture";

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "arbor-host-"));
  try {
    const fixture = await prepareHostFixture(root);
    const userDataDir = join(root, "user-data");
    await runTests(
      testElectronOptions(fixture, {
        version: process.env.ARBOR_VSCODE_VERSION ?? "1.100.3",
        // Arbor, and a scripted VS Code chat model (the proposed chatProvider API) for the vscode.lm tests.
        extensionDevelopmentPath: [repoRoot, join(repoRoot, "test/host/fixtures/lm-provider")],
        extensionTestsPath: resolve(__dirname, "suite/index"),
        userDataDir,
        launchArgs: ["--enable-proposed-api", "arbor-dev.arbor-test-lm-provider"],
      }),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
