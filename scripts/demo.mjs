#!/usr/bin/env node
// `npm run demo`: Arbor in a real VS Code in your browser, with sample sessions to play with.
// On a fresh machine it installs what is missing (npm ci, code-server), builds and packages the
// extension, writes a demo workspace under .tmp/demo/ with its own Pi agent folder holding genuine
// sample sessions (made by the reference SessionManager), starts code-server on 127.0.0.1 with the
// extension installed, prints the URL and runs until Ctrl-C.
//
// Usage: node scripts/demo.mjs [--port <n>] [--keep]   (--keep reuses the existing demo workspace)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCodeServer } from "./setup-vscode.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const portArg = args.includes("--port") ? Number(args[args.indexOf("--port") + 1]) : undefined;
const keep = args.includes("--keep");
const demoDir = join(root, ".tmp/demo");
const workspace = join(demoDir, "workspace");
const otherProject = join(demoDir, "other-project");
const agentDir = join(demoDir, "agent");

function step(title) {
  console.log(`\n▸ ${title}`);
}

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`demo: \`${command} ${commandArgs.join(" ")}\` failed (exit ${result.status}).`);
    process.exit(1);
  }
}

if (!existsSync(join(root, "node_modules/.package-lock.json"))) {
  step("installing the extension's dependencies (npm ci)");
  run("npm", ["ci"]);
}
step("building and packaging the extension");
run("npm", ["run", "--silent", "package"]);
step("setting up code-server");
await ensureCodeServer();
step("compiling the demo harness");
run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "test/e2e/tsconfig.json")]);

const require = createRequire(import.meta.url);
const harness = require(join(root, "out/test/e2e/harness/index.js"));
const { createSampleSessions } = require(join(root, "out/test/support/sample-sessions.js"));
const { startDemoModel } = require(join(root, "out/test/support/demo-model.js"));

if (!keep || !existsSync(workspace)) {
  step(`writing the demo workspace and sample sessions in ${demoDir}`);
  rmSync(demoDir, { recursive: true, force: true });
  mkdirSync(join(workspace, "src"), { recursive: true });
  mkdirSync(otherProject, { recursive: true });
  writeFileSync(join(workspace, "README.md"), "# Arbor demo workspace\n\nOpen the Arbor view in the activity bar: the sessions of this folder are listed there.\n");
  writeFileSync(join(workspace, "src/parser.ts"), "export function parse(text: string): unknown[] {\n  return text.split(\"\\n\").filter(Boolean).map((line) => JSON.parse(line));\n}\n");
  const samples = await createSampleSessions({ agentDir, cwd: workspace, otherCwd: otherProject });
  for (const [label, file] of [["main", samples.mainFile], ["linear", samples.linearFile], ["fork", samples.forkFile], ["other project", samples.otherFile]]) {
    console.log(`  ${label.padEnd(14)} ${file.replace(root + "/", "")}`);
  }
}

step("starting the demo model (a scripted OpenAI-compatible server on 127.0.0.1)");
const model = await startDemoModel();
console.log(`  ${model.baseUrl}`);
// Configured as a Pi user configures a local server: a provider in the agent folder's models.json,
// which Arbor reads as Pi does (and re-reads when it changes). No Arbor setting is needed.
const demoModels = {
  providers: {
    demo: {
      name: "Demo (scripted, local)",
      baseUrl: model.baseUrl,
      api: "openai-completions",
      apiKey: "demo",
      compat: { supportsDeveloperRole: false, supportsStore: false, maxTokensField: "max_tokens" },
      models: [{ id: "demo-model", name: "Demo model", contextWindow: 32000, maxTokens: 4096 }],
    },
  },
};
mkdirSync(agentDir, { recursive: true });
writeFileSync(join(agentDir, "models.json"), `${JSON.stringify(demoModels, null, 2)}\n`);
console.log(`  ${join(agentDir, "models.json")}`);

step("starting code-server");
const sandbox = harness.createSandbox("demo", { env: { PI_CODING_AGENT_DIR: agentDir } });
let server;
let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping the demo ...");
  await server?.stop();
  await model.close();
  sandbox.dispose();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void shutdown(0));

try {
  harness.installVsix(sandbox, harness.vsixPath);
  server = await harness.startCodeServer(sandbox, workspace, portArg ? { port: portArg } : {});
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await shutdown(1);
}
void server.process.exited.then((code) => {
  if (stopping) return;
  console.error(`code-server exited unexpectedly (code ${code}):\n${server.process.output().slice(-4000)}`);
  void shutdown(1);
});

console.log(`
Arbor demo is running.

  Open:        ${server.origin}/?folder=${encodeURIComponent(workspace)}
  Workspace:   ${workspace}
  Pi sessions: ${agentDir} (PI_CODING_AGENT_DIR for the extension host)
  Demo model:  ${model.baseUrl} (scripted; answers without an account)

Press Ctrl-C to stop.`);
