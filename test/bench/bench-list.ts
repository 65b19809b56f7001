/**
 * Listing a folder of 200 sessions. Every timed listing runs in a fresh process (what opening
 * the Sessions view costs), with HOME and the Pi agent dir pointed into a sandbox:
 * - ref: the reference's `SessionManager.list(cwd, dir)`;
 * - ours, cold: a fresh copy of the folder and a fresh HOME per run, so no index exists for it
 *   wherever Arbor keeps one;
 * - ours, warm: one untimed listing builds the index, then the timed runs reuse it with the
 *   files unchanged.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Implementation, ListResult, NormalizedSessionInfo } from "./bench-protocol";
import { MeasurementFailed, runChild, sandboxEnv } from "./child-runner";
import { BENCH_CWD, benchTmpDir, ListingMeta } from "./generate";
import { median } from "./measure";

export interface ListingSeries {
  available: boolean;
  error?: string;
  ms: number;
  runsMs: number[];
  sessions: number;
  digest?: string;
  sample?: NormalizedSessionInfo[];
}

export interface ListingBenchResult {
  sessions: number;
  entries: number;
  bytes: number;
  ref: ListingSeries;
  /** The reference's method for Arbor's fields only (bench code; see list-same-fields.ts). */
  refSameFields: ListingSeries;
  oursCold: ListingSeries;
  oursWarm: ListingSeries & { indexBuildMs?: number };
  /** Every listing holds the same sessions with the same fields, in the same order (every run checked). */
  agree: boolean | undefined;
  mismatches: string[];
}

export interface ListingBenchOptions {
  runs: number;
  coldRuns: number;
  log: (line: string) => void;
}

async function series(label: string, runs: number, impl: Implementation | "ref-same-fields",
  prepare: (run: number) => { dir: string; home: string; cleanup?: () => void }, log: (line: string) => void, digests: string[]): Promise<ListingSeries> {
  const results: ListResult[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const { dir, home, cleanup } = prepare(run);
      try {
        const task = impl === "ref-same-fields" ? ({ kind: "list-same-fields", dir } as const) : ({ kind: "list", impl, dir, cwd: BENCH_CWD, home } as const);
        const result = await runChild(task, sandboxEnv(home));
        results.push(result);
        digests.push(`${label}#${run + 1}:${result.digest}`);
      } finally {
        cleanup?.();
      }
    }
  } catch (error) {
    if (!(error instanceof MeasurementFailed)) {
      throw error;
    }
    log(`  ${label}: ${error.unavailable ? "unavailable" : "FAILED"}: ${error.message.split("\n")[0]}`);
    return { available: false, error: error.message, ms: NaN, runsMs: [], sessions: 0 };
  }
  const last = results[results.length - 1];
  const result = { available: true, ms: median(results.map((r) => r.ms)), runsMs: results.map((r) => r.ms), sessions: last.sessions, digest: last.digest, sample: last.sample };
  log(`  ${label}: ${result.ms.toFixed(0)} ms (${result.sessions} sessions)`);
  return result;
}

export async function benchListing(dir: string, meta: ListingMeta, opts: ListingBenchOptions): Promise<ListingBenchResult> {
  opts.log(`listing ${meta.sessions} sessions (${meta.entries.toLocaleString("en-US")} entries, ${(meta.bytes / 1e6).toFixed(1)} MB)`);
  const sandbox = fs.mkdtempSync(path.join(benchTmpDir(), "list-sandbox-"));
  const digests: string[] = [];
  try {
    const ref = await series("ref", opts.runs, "ref", () => ({ dir, home: path.join(sandbox, "ref-home") }), opts.log, digests);
    const refSameFields = await series("ref method, same fields", opts.runs, "ref-same-fields", () => ({ dir, home: path.join(sandbox, "ref-home") }), opts.log, digests);
    const oursCold = await series("ours cold", opts.coldRuns, "ours", (run) => {
      const copy = path.join(sandbox, `cold-${run}`);
      fs.cpSync(dir, copy, { recursive: true, preserveTimestamps: true, filter: (src) => src === dir || src.endsWith(".jsonl") });
      return { dir: copy, home: path.join(sandbox, `cold-home-${run}`), cleanup: () => fs.rmSync(copy, { recursive: true, force: true }) };
    }, opts.log, digests);
    const warmHome = path.join(sandbox, "warm-home");
    const prime = await series("ours index build", 1, "ours", () => ({ dir, home: warmHome }), opts.log, digests);
    const oursWarm = prime.available
      ? { ...(await series("ours warm", opts.runs, "ours", () => ({ dir, home: warmHome }), opts.log, digests)), indexBuildMs: prime.ms }
      : prime;
    // Every run of every series must give the same listing (sessions, fields, order).
    const expected = ref.digest;
    const mismatches = expected === undefined ? [] : digests.filter((d) => !d.endsWith(`:${expected}`)).map((d) => `listing ${d.split(":")[0]} differs from the reference's`);
    return {
      sessions: meta.sessions,
      entries: meta.entries,
      bytes: meta.bytes,
      ref,
      refSameFields,
      oursCold,
      oursWarm,
      agree: ref.available && oursWarm.available ? mismatches.length === 0 : undefined,
      mismatches,
    };
  } finally {
    fs.rmSync(sandbox, { recursive: true, force: true });
  }
}
