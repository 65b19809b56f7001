/**
 * Runs the extension-host suite in a desktop VS Code downloaded by `@vscode/test-electron`, the
 * standard runner. It needs internet access to download VS Code, so it does not run on machines that
 * only reach the npm registry: there `npm run test:host` uses code-server instead, with the same suite.
 *
 * Usage: npm run build && npx tsc -p test/host && node out/test/host/run-test-electron.js
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runTests } from "@vscode/test-electron";
import { repoRoot } from "../e2e/harness/paths";

async function main(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), "arbor-host-workspace-"));
  const userData = mkdtempSync(join(tmpdir(), "arbor-host-user-"));
  try {
    await runTests({
      version: process.env.ARBOR_VSCODE_VERSION ?? "1.100.3",
      // Arbor, and a scripted VS Code chat model (the proposed chatProvider API) for the vscode.lm tests.
      extensionDevelopmentPath: [repoRoot, join(repoRoot, "test/host/fixtures/lm-provider")],
      extensionTestsPath: resolve(__dirname, "suite/index"),
      extensionTestsEnv: { ARBOR_HOST_WORKSPACE: workspace },
      launchArgs: [workspace, "--enable-proposed-api", "arbor-dev.arbor-test-lm-provider", "--disable-extensions", "--disable-workspace-trust", "--skip-welcome", "--user-data-dir", userData],
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(userData, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
