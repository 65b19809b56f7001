#!/usr/bin/env node
// `npm test`: every check, in order, with a summary. Exits non-zero when anything failed.
//   1. typecheck   2. lint   3. unit tests   4. build + package   5. code-server setup
//   6. extension-host suite in a real VS Code   7. end-to-end tests in chromium
// A step that fails does not stop the later ones, except that the real-VS-Code tiers need the package.
//
// Usage: node scripts/test-all.mjs [--skip <step>[,<step>...]]   (step names as in the summary)
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const skipped = new Set((args.includes("--skip") ? args[args.indexOf("--skip") + 1] ?? "" : "").split(",").filter(Boolean));
const stepTimeoutMs = 15 * 60_000;

const node = (script, ...rest) => [process.execPath, join(root, script), ...rest];
const npm = (...rest) => ["npm", "run", "--silent", ...rest];
const steps = [
  { name: "typecheck", command: npm("typecheck") },
  { name: "lint", command: npm("lint") },
  { name: "unit", command: npm("test:unit"), tests: true },
  { name: "package", command: npm("package"), gate: true },
  { name: "setup-vscode", command: node("scripts/setup-vscode.mjs"), gate: true },
  { name: "host", command: node("scripts/run-host-tests.mjs", "--no-build"), tests: true, needsGates: true },
  { name: "e2e", command: node("scripts/run-e2e.mjs", "--no-build"), tests: true, needsGates: true },
];

let current;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (current) killGroup(current.pid, "SIGTERM");
    process.exit(130);
  });
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Runs one step in its own process group, echoing its output, and returns its status and output. */
function runStep(command) {
  return new Promise((resolveStep) => {
    const child = spawn(command[0], command.slice(1), { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
    current = child;
    let output = "";
    const forward = (stream) => (chunk) => {
      stream.write(chunk);
      output += chunk;
    };
    child.stdout.on("data", forward(process.stdout));
    child.stderr.on("data", forward(process.stderr));
    const timer = setTimeout(() => {
      process.stderr.write(`\ntest-all: step timed out after ${stepTimeoutMs / 60_000} min; stopping it.\n`);
      killGroup(child.pid, "SIGKILL");
    }, stepTimeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      resolveStep({ ok: code === 0, detail: signal ? `signal ${signal}` : `exit ${code}`, output });
    });
  });
}

/** Sums mocha's closing counts ("N passing", "N failing", "N pending") in a step's output. */
function countTests(output) {
  const text = output.replace(/\x1b\[[0-9;]*m/g, "");
  const sum = (word) => [...text.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\b`, "gm"))].reduce((n, m) => n + Number(m[1]), 0);
  return { passed: sum("passing"), failed: sum("failing"), pending: sum("pending") };
}

/**
 * The failures mocha listed after "N failing": each one's number, suite, test and first error line.
 * Printed again in the summary, so that the last lines of a long log (all a CI page may show) name them.
 */
function failuresIn(output) {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  const found = [];
  let inList = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*\d+ failing\b/.test(lines[i])) inList = true;
    else if (inList && /^\s*\d+ passing\b/.test(lines[i])) inList = false;
    else if (inList && /^\s{2}\d+\) \S/.test(lines[i])) {
      const title = [lines[i].trim()];
      let j = i + 1;
      // The test's title ends with a colon (it may wrap); the error follows.
      while (j < lines.length && j < i + 4 && lines[j].trim() && !/:$/.test(title[title.length - 1])) title.push(lines[j++].trim());
      while (j < lines.length && lines[j].trim() === "") j++;
      const error = lines[j]?.trim() ?? "";
      found.push(`${title.join(" ")} ${error}`.slice(0, 400));
    }
  }
  return found;
}

// Failure reports of an earlier run would be mistaken for this one's.
const diagnosticsDir = join(root, "test-results", "diagnostics");
rmSync(diagnosticsDir, { recursive: true, force: true });

const results = [];
const started = Date.now();
for (const step of steps) {
  if (skipped.has(step.name)) {
    results.push({ ...step, status: "skipped", seconds: 0 });
    continue;
  }
  if (step.needsGates && results.some((r) => r.gate && r.status === "failed")) {
    results.push({ ...step, status: "not run", seconds: 0, detail: "needs package and setup-vscode" });
    continue;
  }
  console.log(`\n━━━ ${step.name}: ${step.command.map((part) => part.replace(root + "/", "")).join(" ")}`);
  const stepStarted = Date.now();
  const { ok, detail, output } = await runStep(step.command);
  const counts = step.tests ? countTests(output) : undefined;
  // In CI a skipped test is one nobody ran (a browser test without chromium, say): the step fails.
  const pendingInCi = Boolean(process.env.CI) && (counts?.pending ?? 0) > 0;
  const passedStep = ok && !pendingInCi;
  results.push({ ...step, status: passedStep ? "passed" : "failed", detail: passedStep ? "" : ok ? `${counts.pending} pending in CI` : detail, seconds: (Date.now() - stepStarted) / 1000, counts, failures: step.tests && !ok ? failuresIn(output) : [] });
}

const line = (cells) => cells.map((cell, i) => String(cell).padEnd([14, 9, 9, 0][i])).join(" ").trimEnd();
console.log("\n━━━ summary");
console.log(line(["step", "status", "time", "tests"]));
for (const r of results) {
  const tests = r.counts ? `${r.counts.passed} passed, ${r.counts.failed} failed${r.counts.pending ? `, ${r.counts.pending} pending` : ""}` : "";
  console.log(line([r.name, r.status, r.status === "skipped" || r.status === "not run" ? "-" : `${r.seconds.toFixed(1)}s`, [tests, r.detail].filter(Boolean).join("; ")]));
}
for (const r of results.filter((r) => r.failures?.length)) {
  console.log(`\n━━━ failed in ${r.name}`);
  for (const failure of r.failures.slice(0, 20)) console.log(failure);
}
// The first failure report an end-to-end test left (what the page and the logs said), shortened.
const reports = existsSync(diagnosticsDir) ? readdirSync(diagnosticsDir).sort() : [];
if (reports.length) {
  console.log(`\n━━━ first of ${reports.length} e2e failure report(s) in test-results/diagnostics`);
  const text = readFileSync(join(diagnosticsDir, reports[0]), "utf8").split("\n").map((l) => l.slice(0, 300));
  console.log(text.slice(0, 90).join("\n"));
}
const failedSteps = results.filter((r) => r.status === "failed" || r.status === "not run");
const passed = results.reduce((n, r) => n + (r.counts?.passed ?? 0), 0);
// A failed step that reported no failing test (a type error, a crash, a timeout) still counts once.
const failed = results.reduce((n, r) => n + (r.counts?.failed ?? 0), 0) +
  failedSteps.filter((r) => !r.counts?.failed).length;
console.log(`total time ${((Date.now() - started) / 1000).toFixed(1)}s; steps: ${results.filter((r) => r.status === "passed").length} passed, ${failedSteps.length} failed or not run`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedSteps.length === 0 ? 0 : 1);
