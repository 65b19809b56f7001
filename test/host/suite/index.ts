/**
 * The entry VS Code's extension host calls for extension tests (`extensionTestsPath`): runs every
 * `*.test.js` next to this file with mocha and settles when they are done. The same entry serves
 * `@vscode/test-electron` (desktop VS Code) and our code-server runner.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import Mocha from "mocha";
import { webviewRecoveryHooks } from "./webview-recoveries";

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith(".test.js") ? [path] : [];
  });
}

/** Runs the suite; rejects when a test failed, which makes the workbench exit with code 1. */
export function run(): Promise<void> {
  return runTestsIn(__dirname);
}

/** Runs every test file under `dir` (also the Restricted Mode suite's entry, in its own folder). */
export async function runTestsIn(dir: string): Promise<void> {
  const mocha = new Mocha({ ui: "bdd", reporter: "spec", color: false, timeout: 60_000, forbidOnly: true, rootHooks: webviewRecoveryHooks });
  const grep = process.env.ARBOR_HOST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of findTests(dir).sort()) mocha.addFile(file);
  const failures = await new Promise<number>((resolve, reject) => {
    try {
      mocha.run(resolve);
    } catch (error) {
      reject(error);
    }
  });
  if (failures > 0) throw new Error(`${failures} extension-host test(s) failed.`);
}
