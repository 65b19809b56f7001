#!/usr/bin/env node
// Runs the extension-host suite (test/host/suite) inside a real VS Code served by code-server.
// Builds the extension bundle, installs code-server if needed, compiles the suite, runs it in chromium,
// and exits with the suite's code. Everything it starts is stopped, also on failure or Ctrl-C.
//
// Two passes: the suite (test/host/suite) in a trusted workspace, then test/host/untrusted in Restricted
// Mode with a hostile workspace settings file.
//
// Usage: node scripts/run-host-tests.mjs [--no-build] [--verbose] [--timeout <ms>] [--grep <pattern>]
//                                         [--skip-untrusted | --only-untrusted]
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCodeServer } from "./setup-vscode.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const verbose = args.includes("--verbose") || process.env.ARBOR_E2E_VERBOSE === "1";
// A guard against a hung run, not a speed limit: a loaded 2-core machine takes about 3 minutes.
const timeoutMs = Number(option("--timeout") ?? 600_000);
if (option("--grep")) process.env.ARBOR_HOST_GREP = option("--grep");

// Exit handlers (which stop the server's process group) only run on a normal exit, so turn signals into one.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`run-host-tests: \`${command} ${commandArgs.join(" ")}\` failed (exit ${result.status}).`);
    process.exit(1);
  }
}

if (!args.includes("--no-build")) run(process.execPath, [join(root, "scripts/build.mjs")]);
await ensureCodeServer();
// A test file deleted or renamed in the sources must not keep running from a stale compiled copy.
rmSync(join(root, "out/test/host"), { recursive: true, force: true });
run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "test/host/tsconfig.json")]);

const require = createRequire(import.meta.url);
const { runHostTestsInCodeServer } = require(join(root, "out/test/host/run-in-code-server.js"));

/**
 * What a hostile repository's .vscode/settings.json would say (the Restricted Mode pass): the sessions
 * and agent folders inside the repository, the model at its own server. Settings that can redirect
 * data or prompts belong here; the tree filter is the harmless control that must still apply.
 */
const hostileWorkspaceSettings = {
  "arbor.tree.defaultFilter": "all",
  "arbor.sessionsDirectory": "${workspaceFolder}/.arbor-sessions",
  "arbor.agentDirectory": "${workspaceFolder}/.pi-agent",
  "arbor.model.default": "workspace/workspace-model",
  "arbor.extensions.paths": ["${workspaceFolder}/.pi/evil-extension.ts"],
};

const passes = [
  { name: "host tests", suite: "out/test/host/suite/index.js", skip: args.includes("--only-untrusted") },
  { name: "host tests in Restricted Mode", suite: "out/test/host/untrusted/index.js", untrustedWorkspaceSettings: hostileWorkspaceSettings, skip: args.includes("--skip-untrusted") },
];
let exitCode = 0;
for (const pass of passes) {
  if (pass.skip) continue;
  const started = Date.now();
  const code = await runHostTestsInCodeServer({
    extensionDevelopmentPath: root,
    // A scripted VS Code chat model (proposed chatProvider API) for the vscode.lm tests.
    fixtureExtensions: [join(root, "test/host/fixtures/lm-provider")],
    extensionTestsPath: join(root, pass.suite),
    timeoutMs,
    verbose,
    log: (line) => console.log(line),
    ...(pass.untrustedWorkspaceSettings ? { untrustedWorkspaceSettings: pass.untrustedWorkspaceSettings } : {}),
  });
  console.log(`${pass.name}: ${code === 0 ? "passed" : `failed (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) exitCode = code;
}
process.exit(exitCode);
