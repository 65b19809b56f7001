/**
 * The per-session measurements: the parse floor, open until the tree is ready (ours first and
 * again through the reopen index), context resolution, checkouts and appends, for both engines,
 * each run in its own process, aggregated as medians. Every run's results are compared with the
 * reference's; a difference is recorded and fails the bench.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AppendResult, FloorResult, Implementation, OpenResult } from "./bench-protocol";
import { MeasurementFailed, runChild } from "./child-runner";
import type { SessionMeta } from "./generate";
import { median } from "./measure";

export interface EngineSessionResult {
  available: boolean;
  /** Why this engine could not be measured (or a measurement failed). */
  error?: string;
  openMs: number;
  openRunsMs: number[];
  /** Peak RSS of the process over open + tree, the contexts and the checkouts (median over runs). */
  maxRssMb: number;
  /** Peak RSS right after open + tree, before any context was built. */
  maxRssAfterOpenMb: number;
  /** RSS of the same process before opening (runtime + the engine's code). */
  baselineRssMb: number;
  heapAfterOpenMb: number;
  externalAfterOpenMb: number;
  /** Ours: every entry's summary, after the tree was ready. */
  allSummariesMs: number;
  leafContextMs: number;
  leafContextRepeatMs: number;
  /** Median over runs of the median over checkout targets (branch + buildSessionContext, first visit). */
  checkoutMs: number;
  checkoutMaxMs: number;
  checkoutRepeatMs: number;
  appendMs: number;
  appendRunsMs: number[];
  /** Ours: how the reopen index was used in the last run. */
  indexUse?: string;
  /** From the last open run, to compare the engines. */
  last?: OpenResult;
  append?: AppendResult;
}

export interface SessionBenchResult {
  entries: number;
  bytes: number;
  file: string;
  targets: number;
  floor: { readParseMs: number; runsMs: number[]; maxRssMb: number; heapMb: number } | undefined;
  ref: EngineSessionResult;
  /** First open: no reopen index yet (an empty cache). */
  ours: EngineSessionResult;
  /** Reopen of the unchanged file: its index was saved by an earlier open. */
  oursReopen: EngineSessionResult;
  agreement: Agreement;
}

export interface Agreement {
  /** Runs of ours compared with the reference (or, where it cannot read the file, its tree and context code fed by a bench reader). */
  compared: number;
  against: "reference" | typeof STREAMED_LABEL | "nothing";
  mismatches: string[];
}

export interface SessionBenchOptions {
  openRuns: number;
  appendRuns: number;
  appendCount: number;
  seed: number;
  /** A folder for reopen indexes (emptied here). */
  indexRoot: string;
  /** A file the reference cannot read into one string: no floor, no appends, one attempt by the reference. */
  large: boolean;
  log: (line: string) => void;
}

/** Where the reference cannot read the file, its own tree and context code check the results (ref-streamed.ts). */
export const STREAMED_LABEL = "the reference's tree and context code, fed by a bench line reader (it cannot read this file itself)";

function emptyEngineResult(error?: string): EngineSessionResult {
  return {
    available: error === undefined, error, openMs: NaN, openRunsMs: [], maxRssMb: NaN, maxRssAfterOpenMb: NaN, baselineRssMb: NaN, heapAfterOpenMb: NaN,
    externalAfterOpenMb: NaN, allSummariesMs: NaN, leafContextMs: NaN, leafContextRepeatMs: NaN, checkoutMs: NaN, checkoutMaxMs: NaN,
    checkoutRepeatMs: NaN, appendMs: NaN, appendRunsMs: [],
  };
}

/** The runs of one engine so far, or why it stopped. */
interface EngineRuns {
  impl: Implementation;
  label: string;
  opens: OpenResult[];
  appends: AppendResult[];
  error?: MeasurementFailed;
}

/** Runs one measurement for an engine unless it already failed; a failure is recorded, not thrown. */
async function attempt(runs: EngineRuns, work: () => Promise<void>, log: (line: string) => void): Promise<void> {
  if (runs.error) return;
  try {
    await work();
  } catch (error) {
    if (!(error instanceof MeasurementFailed)) throw error;
    runs.error = error;
    log(`  ${runs.label}: ${error.unavailable ? "unavailable" : "FAILED"}: ${error.message.split("\n")[0]}`);
  }
}

function toEngineResult(runs: EngineRuns): EngineSessionResult {
  if (runs.opens.length === 0) return emptyEngineResult(runs.error?.message ?? "not measured");
  const result = aggregate(runs.opens, runs.appends);
  return runs.error ? { ...result, error: runs.error.message } : result;
}

function aggregate(opens: OpenResult[], appends: AppendResult[]): EngineSessionResult {
  const perRun = (pick: (o: OpenResult) => number) => median(opens.map(pick));
  const targetMedian = (pick: (c: OpenResult["checkouts"][number]) => number) => perRun((o) => median(o.checkouts.map(pick)));
  return {
    available: true,
    openMs: perRun((o) => o.openMs),
    openRunsMs: opens.map((o) => o.openMs),
    maxRssMb: perRun((o) => o.afterCheckouts.maxRssMb),
    maxRssAfterOpenMb: perRun((o) => o.afterOpen.maxRssMb),
    baselineRssMb: perRun((o) => o.baseline.maxRssMb),
    heapAfterOpenMb: perRun((o) => o.afterOpen.heapMb),
    externalAfterOpenMb: perRun((o) => o.afterOpen.externalMb),
    allSummariesMs: perRun((o) => o.allSummariesMs ?? NaN),
    leafContextMs: perRun((o) => o.leafContextMs),
    leafContextRepeatMs: perRun((o) => o.leafContextRepeatMs),
    checkoutMs: targetMedian((c) => c.ms),
    checkoutMaxMs: perRun((o) => Math.max(...o.checkouts.map((c) => c.ms))),
    checkoutRepeatMs: targetMedian((c) => c.repeatMs),
    appendMs: median(appends.map((a) => a.appendMs)),
    appendRunsMs: appends.map((a) => a.appendMs),
    indexUse: opens[opens.length - 1]!.indexUse,
    last: opens[opens.length - 1],
    append: appends[appends.length - 1],
  };
}

/** What one run resolved, against what the reference resolved: every difference, named. */
function differences(expected: OpenResult, actual: OpenResult, label: string): string[] {
  const out: string[] = [];
  if (expected.treeDigest !== actual.treeDigest || expected.treeRoots !== actual.treeRoots) {
    out.push(`${label}: tree differs (${expected.treeNodes} nodes / ${expected.treeRoots} roots expected, ${actual.treeNodes} / ${actual.treeRoots})`);
  }
  if (expected.leafDigest !== actual.leafDigest || expected.leafId !== actual.leafId) {
    out.push(`${label}: leaf context differs (leaf ${expected.leafId}, ${expected.leafMessages} messages expected; leaf ${actual.leafId}, ${actual.leafMessages})`);
  }
  expected.checkouts.forEach((c, i) => {
    const o = actual.checkouts[i];
    if (!o || o.digest !== c.digest) out.push(`${label}: context after checkout of ${c.id} differs (${c.messages} messages expected, ${o?.messages ?? "none"})`);
  });
  return out;
}

/**
 * Runs the floor and the engines in alternation (floor, ref, ours, ours again; then the other
 * way round, ...) so that load from other processes on a shared machine falls on all alike.
 */
export async function benchSession(file: string, meta: SessionMeta, opts: SessionBenchOptions): Promise<SessionBenchResult> {
  opts.log(`${meta.entries.toLocaleString("en-US")} entries (${(meta.bytes / 1e6).toFixed(1)} MB, ${meta.targets.length} checkout targets)`);
  const targets = meta.targets.map((t) => t.id);
  const floors: FloorResult[] = [];
  const ref: EngineRuns = { impl: "ref", label: "ref", opens: [], appends: [] };
  const ours: EngineRuns = { impl: "ours", label: "ours", opens: [], appends: [] };
  const reopen: EngineRuns = { impl: "ours", label: "ours reopen", opens: [], appends: [] };
  fs.rmSync(opts.indexRoot, { recursive: true, force: true });
  const warmIndex = path.join(opts.indexRoot, "warm");
  await attempt(reopen, async () => {
    const primed = await runChild({ kind: "prime", file, indexDir: warmIndex });
    opts.log(`  ours: reopen index prepared (${primed.indexUse})`);
  }, opts.log);
  for (let run = 0; run < opts.openRuns; run++) {
    if (!opts.large) {
      const floor = await runChild({ kind: "floor", file });
      floors.push(floor);
      opts.log(`  floor #${run + 1}: ${floor.readParseMs.toFixed(0)} ms, RSS ${floor.afterParse.maxRssMb.toFixed(0)} MB`);
    }
    const order: [EngineRuns, string | undefined][] = [[ref, undefined], [ours, path.join(opts.indexRoot, `first-${run}`)], [reopen, warmIndex]];
    if (run % 2 === 1) order.reverse();
    for (const [engine, indexDir] of order) {
      // The reference reads the whole file into one string: past V8's limit it fails; one attempt says so.
      if (engine === ref && opts.large && run > 0) continue;
      await attempt(engine, async () => {
        const result = await runChild({ kind: "open", impl: engine.impl, file, targets, indexDir });
        engine.opens.push(result);
        opts.log(`  ${engine.label} open #${run + 1}: ${result.openMs.toFixed(0)} ms, RSS ${result.afterOpen.maxRssMb.toFixed(0)} MB, ` +
          `checkout+context ${median(result.checkouts.map((c) => c.ms)).toFixed(1)} ms${result.indexUse ? ` (index ${result.indexUse})` : ""}`);
      }, opts.log);
    }
  }
  if (!opts.large) {
    for (let run = 0; run < opts.appendRuns; run++) {
      for (const engine of run % 2 === 0 ? [ref, ours] : [ours, ref]) {
        await attempt(engine, async () => {
          const result = await runChild({ kind: "append", impl: engine.impl, file, count: opts.appendCount, seed: opts.seed + run });
          if (result.linesAdded !== result.count) {
            throw new MeasurementFailed(`appended ${result.count} messages but the file grew by ${result.linesAdded} lines`, false);
          }
          engine.appends.push(result);
          opts.log(`  ${engine.label} append #${run + 1}: ${result.appendMs.toFixed(1)} ms`);
        }, opts.log);
      }
    }
  }
  // Every run of ours against the reference's first run (and the reference's runs against each other).
  let streamed: OpenResult | undefined;
  if (!ref.opens[0] && opts.large) {
    try {
      streamed = await runChild({ kind: "open", impl: "ref-streamed", file, targets });
      opts.log(`  reference semantics through a bench line reader: leaf ${streamed.leafId}, ${streamed.treeNodes} tree nodes (untimed, to check results)`);
    } catch (error) {
      opts.log(`  reference semantics through a bench line reader: failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  }
  // Only the reference's own code is a yardstick: without it nothing is compared, and the run fails
  // (Arbor compared with itself would agree whatever it computed).
  const expected = ref.opens[0] ?? streamed;
  const mismatches: string[] = [];
  if (!expected) mismatches.push(`no reference result to compare with: ${ref.error?.message.split("\n")[0] ?? "the reference did not run"}${opts.large ? "; its streamed reading failed too" : ""}`);
  if (expected) {
    ref.opens.slice(1).forEach((o, i) => mismatches.push(...differences(expected, o, `ref run ${i + 2}`)));
    ours.opens.forEach((o, i) => mismatches.push(...differences(expected, o, `ours run ${i + 1}`)));
    reopen.opens.forEach((o, i) => mismatches.push(...differences(expected, o, `ours reopen run ${i + 1}`)));
    for (const [label, runs] of [["ours", ours], ["ours reopen", reopen]] as const) {
      if (runs.error && !runs.error.unavailable) mismatches.push(`${label} failed: ${runs.error.message.split("\n")[0]}`);
    }
  }
  const compared = ours.opens.length + reopen.opens.length;
  return {
    entries: meta.entries,
    bytes: meta.bytes,
    file,
    targets: meta.targets.length,
    floor: floors.length
      ? {
          readParseMs: median(floors.map((f) => f.readParseMs)),
          runsMs: floors.map((f) => f.readParseMs),
          maxRssMb: median(floors.map((f) => f.afterParse.maxRssMb)),
          heapMb: median(floors.map((f) => f.afterParse.heapMb)),
        }
      : undefined,
    ref: toEngineResult(ref),
    ours: toEngineResult(ours),
    oursReopen: toEngineResult(reopen),
    agreement: { compared, against: !expected ? "nothing" : ref.opens[0] ? "reference" : STREAMED_LABEL, mismatches },
  };
}
