#!/usr/bin/env node
// Runs the end-to-end tests (test/e2e/**/*.e2e.test.ts) against the packaged extension in a real
// VS Code (code-server) driven in chromium. Builds and packages first unless told not to.
// Screenshots land in test-results/.
//
// Usage: node scripts/run-e2e.mjs [--no-build] [--verbose] [--spec out/test/e2e/<name>.e2e.test.js] [mocha args...]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCodeServer } from "./setup-vscode.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const mochaArgs = args.filter((a) => a !== "--no-build" && a !== "--verbose");
const env = { ...process.env, ...(args.includes("--verbose") ? { ARBOR_E2E_VERBOSE: "1" } : {}) };

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit", env });
  if (result.signal) process.kill(process.pid, result.signal);
  return result.status ?? 1;
}

function runOrExit(command, commandArgs) {
  const status = run(command, commandArgs);
  if (status !== 0) {
    console.error(`run-e2e: \`${command} ${commandArgs.join(" ")}\` failed (exit ${status}).`);
    process.exit(status);
  }
}

// Screenshots of an earlier run would be mistaken for this one's (other artefacts stay).
const resultsDir = join(root, "test-results");
if (existsSync(resultsDir)) for (const name of readdirSync(resultsDir)) if (name.endsWith(".png")) rmSync(join(resultsDir, name));
if (!args.includes("--no-build")) runOrExit("npm", ["run", "--silent", "package"]);
await ensureCodeServer();
// A test file deleted or renamed in the sources must not keep running from a stale compiled copy.
rmSync(join(root, "out/test/e2e"), { recursive: true, force: true });
runOrExit(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "test/e2e/tsconfig.json")]);
// Mocha runs in a child so that its exit hooks (which stop every server and browser) run as usual.
const status = run(process.execPath, [
  join(root, "node_modules/mocha/bin/mocha.js"),
  "--no-config", "--forbid-only", "--timeout", "180000", "--reporter", "spec",
  // Fails a test in which Arbor had to load a webview's page again, and counts the start-ups.
  "--require", "out/test/e2e/harness/webview-starts.js",
  // `--spec out/test/e2e/<name>.e2e.test.js` among the arguments runs that file alone (mocha would add
  // it to the default spec, not replace it).
  ...(mochaArgs.includes("--spec") ? [] : ["--spec", "out/test/e2e/**/*.e2e.test.js"]),
  ...mochaArgs,
]);
process.exit(status);
