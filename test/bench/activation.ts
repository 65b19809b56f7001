/**
 * What Arbor's activation costs a VS Code window, two ways:
 *
 *  - in the real extension host: Arbor logs the evaluation of dist/extension.js (from the bundle's first
 *    statement to its last) and the call to `activate` (src/extension/activation-timing.ts); the bench
 *    opens the Arbor view in a fresh workbench and reads that line from Arbor's log;
 *  - the whole `require` of dist/extension.js (reading and compiling the file too, which the host's own
 *    numbers do not see), in fresh Node processes with a stand-in for the `vscode` module.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ACTIVATION_LOG_PREFIX, type ActivationTiming } from "../../src/extension/activation-timing";
import { createScratchFolder, openWorkbench } from "../e2e/harness";

/** The activation target: module evaluation and `activate` together. */
export const ACTIVATION_TARGET_MS = 50;

export interface ActivationResult {
  /** As Arbor measured it in the extension host, one per workbench opened. */
  readonly inHost: ActivationTiming[];
  /** `require("dist/extension.js")` in fresh Node processes (medians and all runs, ms: by the clock, and CPU). */
  readonly requireMedianMs: number;
  readonly requireCpuMedianMs: number;
  readonly requireRunsMs: number[];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Every Arbor.log under `dir` (VS Code writes one per window session). */
function arborLogs(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 6 || !fs.existsSync(d)) return;
    for (const entry of fs.readdirSync(d)) {
      const p = path.join(d, entry);
      if (fs.statSync(p).isDirectory()) walk(p, depth + 1);
      else if (entry === "Arbor.log") found.push(p);
    }
  };
  walk(dir, 0);
  return found;
}

/** The timing Arbor logged, once it has. */
export function timingFromLogs(logsDir: string): ActivationTiming | undefined {
  for (const file of arborLogs(logsDir)) {
    const line = fs.readFileSync(file, "utf8").split("\n").find((l) => l.includes(ACTIVATION_LOG_PREFIX));
    if (line) return JSON.parse(line.slice(line.indexOf(ACTIVATION_LOG_PREFIX) + ACTIVATION_LOG_PREFIX.length)) as ActivationTiming;
  }
  return undefined;
}

/** A child that loads the bundle with a stand-in `vscode` and prints how long the require took. */
const REQUIRE_CHILD = `
const Module = require("node:module");
const stub = new Proxy(function () {}, { get: (_t, key) => (key === Symbol.toPrimitive ? () => "" : stub), apply: () => stub, construct: () => stub });
const load = Module._load;
Module._load = function (request, ...rest) { return request === "vscode" ? stub : load.call(this, request, ...rest); };
const started = performance.now();
const cpu = process.cpuUsage();
require(process.argv[1]);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify([performance.now() - started, (used.user + used.system) / 1000]));
`;

/** Median of `runs` fresh-process requires of the bundle. */
export function measureRequire(bundle: string, runs: number): { medianMs: number; cpuMedianMs: number; runsMs: number[] } {
  const runsMs: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const [wall, cpu] = JSON.parse(execFileSync(process.execPath, ["-e", REQUIRE_CHILD, bundle], { encoding: "utf8" })) as [number, number];
    runsMs.push(Math.round(wall * 10) / 10);
    cpuMs.push(Math.round(cpu * 10) / 10);
  }
  return { medianMs: median(runsMs), cpuMedianMs: median(cpuMs), runsMs };
}

/** Opens the Arbor view in `windows` fresh workbenches (an empty folder each) and reads Arbor's own timing. */
export async function measureActivation(bundle: string, windows: number): Promise<ActivationResult> {
  const inHost: ActivationTiming[] = [];
  for (let i = 0; i < windows; i++) {
    const scratch = createScratchFolder("arbor-activation-");
    const session = await openWorkbench({ folder: scratch.path, env: { PI_CODING_AGENT_DIR: path.join(scratch.path, "agent") } });
    try {
      await session.workbench.openViewContainer("Arbor");
      const logs = path.join(session.sandbox.userDataDir, "logs");
      const deadline = Date.now() + 60_000;
      let timing: ActivationTiming | undefined;
      while (!(timing = timingFromLogs(logs))) {
        if (Date.now() > deadline) throw new Error(`Arbor logged no "${ACTIVATION_LOG_PREFIX}" line under ${logs}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      inHost.push(timing);
    } finally {
      await session.close();
      scratch.dispose();
    }
  }
  const required = measureRequire(bundle, 7);
  return { inHost, requireMedianMs: required.medianMs, requireCpuMedianMs: required.cpuMedianMs, requireRunsMs: required.runsMs };
}

/** One line for the bench's output, with the verdict against {@link ACTIVATION_TARGET_MS}. */
export function describeActivation(r: ActivationResult): string {
  const wall = r.inHost.map((t) => (t.moduleEvaluationMs ?? 0) + t.activateMs);
  const cpu = r.inHost.map((t) => (t.moduleEvaluationCpuMs ?? 0) + t.activateCpuMs);
  const verdict = (xs: number[]) => (median(xs) <= ACTIVATION_TARGET_MS ? "met" : "MISSED");
  const runs = r.inHost.map((t) => `${t.moduleEvaluationMs} + ${t.activateMs} (CPU ${t.moduleEvaluationCpuMs} + ${t.activateCpuMs})`).join(", ");
  return (
    `activation in the host, module evaluation + activate, ms: ${runs}; median ${median(wall).toFixed(1)} by the clock (target ${ACTIVATION_TARGET_MS} ms: ${verdict(wall)}), ` +
    `${median(cpu).toFixed(1)} of CPU (${verdict(cpu)}); require of dist/extension.js in plain Node (read, compile, evaluate): median ${r.requireMedianMs} ms (${r.requireRunsMs.join(", ")}), ${r.requireCpuMedianMs} ms of CPU`
  );
}
