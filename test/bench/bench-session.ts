/**
 * The per-session measurements: the parse floor, open + tree, context resolution, checkouts and
 * appends, for both engines, each run in its own process, aggregated as medians.
 */
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
  /** Peak RSS of the process right after open + tree (median over runs). */
  maxRssMb: number;
  /** RSS of the same process before opening (runtime + the engine's code). */
  baselineRssMb: number;
  heapAfterOpenMb: number;
  externalAfterOpenMb: number;
  leafContextMs: number;
  leafContextRepeatMs: number;
  /** Median over runs of the median over checkout targets (branch + buildSessionContext, first visit). */
  checkoutMs: number;
  checkoutMaxMs: number;
  checkoutRepeatMs: number;
  appendMs: number;
  appendRunsMs: number[];
  /** From the last open run, to compare the engines. */
  last?: OpenResult;
  append?: AppendResult;
}

export interface SessionBenchResult {
  entries: number;
  bytes: number;
  file: string;
  targets: number;
  floor: { readParseMs: number; runsMs: number[]; maxRssMb: number; heapMb: number };
  ref: EngineSessionResult;
  ours: EngineSessionResult;
  agreement: Agreement | undefined;
}

export interface Agreement {
  tree: boolean;
  leafContext: boolean;
  checkoutContexts: { same: number; total: number };
  notes: string[];
}

export interface SessionBenchOptions {
  openRuns: number;
  appendRuns: number;
  appendCount: number;
  seed: number;
  log: (line: string) => void;
}

function emptyEngineResult(error?: string): EngineSessionResult {
  return {
    available: error === undefined, error, openMs: NaN, openRunsMs: [], maxRssMb: NaN, baselineRssMb: NaN, heapAfterOpenMb: NaN,
    externalAfterOpenMb: NaN, leafContextMs: NaN, leafContextRepeatMs: NaN, checkoutMs: NaN, checkoutMaxMs: NaN,
    checkoutRepeatMs: NaN, appendMs: NaN, appendRunsMs: [],
  };
}

/** The runs of one engine so far, or why it stopped. */
interface EngineRuns {
  impl: Implementation;
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
    log(`  ${runs.impl}: ${error.unavailable ? "unavailable" : "FAILED"}: ${error.message.split("\n")[0]}`);
  }
}

function toEngineResult(runs: EngineRuns): EngineSessionResult {
  if (runs.opens.length === 0) return emptyEngineResult(runs.error?.message ?? "not measured");
  const result = aggregate(runs.opens, runs.appends);
  return runs.error ? { ...result, error: runs.error.message } : result;
}

function aggregate(opens: OpenResult[], appends: AppendResult[]): EngineSessionResult {
  const perRun = (pick: (o: OpenResult) => number) => median(opens.map(pick));
  const targetMedian = (pick: (c: OpenResult["checkouts"][number]) => number) =>
    perRun((o) => median(o.checkouts.map(pick)));
  return {
    available: true,
    openMs: perRun((o) => o.openMs),
    openRunsMs: opens.map((o) => o.openMs),
    maxRssMb: perRun((o) => o.afterOpen.maxRssMb),
    baselineRssMb: perRun((o) => o.baseline.maxRssMb),
    heapAfterOpenMb: perRun((o) => o.afterOpen.heapMb),
    externalAfterOpenMb: perRun((o) => o.afterOpen.externalMb),
    leafContextMs: perRun((o) => o.leafContextMs),
    leafContextRepeatMs: perRun((o) => o.leafContextRepeatMs),
    checkoutMs: targetMedian((c) => c.ms),
    checkoutMaxMs: perRun((o) => Math.max(...o.checkouts.map((c) => c.ms))),
    checkoutRepeatMs: targetMedian((c) => c.repeatMs),
    appendMs: median(appends.map((a) => a.appendMs)),
    appendRunsMs: appends.map((a) => a.appendMs),
    last: opens[opens.length - 1],
    append: appends[appends.length - 1],
  };
}

/** Whether both engines saw the same tree and resolved the same contexts (a sanity check on what is timed). */
function compare(ref: OpenResult, ours: OpenResult): Agreement {
  const notes: string[] = [];
  const tree = ref.treeDigest === ours.treeDigest && ref.treeRoots === ours.treeRoots;
  if (!tree) {
    notes.push(`tree differs: ref ${ref.treeNodes} nodes / ${ref.treeRoots} roots, ours ${ours.treeNodes} / ${ours.treeRoots}`);
  }
  const leafContext = ref.leafDigest === ours.leafDigest && ref.leafId === ours.leafId;
  if (!leafContext) {
    notes.push(`leaf context differs: ref leaf ${ref.leafId} ${ref.leafMessages} messages, ours leaf ${ours.leafId} ${ours.leafMessages}`);
  }
  let same = 0;
  ref.checkouts.forEach((c, i) => {
    const o = ours.checkouts[i];
    if (o && o.digest === c.digest) {
      same++;
    } else {
      notes.push(`context after checkout of ${c.id} differs: ref ${c.messages} messages, ours ${o?.messages ?? "none"}`);
    }
  });
  return { tree, leafContext, checkoutContexts: { same, total: ref.checkouts.length }, notes };
}

/**
 * Runs the floor and both engines in alternation (floor, ref, ours; then floor, ours, ref; ...)
 * so that load from other processes on a shared machine falls on both engines alike.
 */
export async function benchSession(file: string, meta: SessionMeta, opts: SessionBenchOptions): Promise<SessionBenchResult> {
  opts.log(`${meta.entries.toLocaleString("en-US")} entries (${(meta.bytes / 1e6).toFixed(1)} MB, ${meta.targets.length} checkout targets)`);
  const targets = meta.targets.map((t) => t.id);
  const floors: FloorResult[] = [];
  const ref: EngineRuns = { impl: "ref", opens: [], appends: [] };
  const ours: EngineRuns = { impl: "ours", opens: [], appends: [] };
  for (let run = 0; run < opts.openRuns; run++) {
    const floor = await runChild({ kind: "floor", file });
    floors.push(floor);
    opts.log(`  floor #${run + 1}: ${floor.readParseMs.toFixed(0)} ms, RSS ${floor.afterParse.maxRssMb.toFixed(0)} MB`);
    for (const engine of run % 2 === 0 ? [ref, ours] : [ours, ref]) {
      await attempt(engine, async () => {
        const result = await runChild({ kind: "open", impl: engine.impl, file, targets });
        engine.opens.push(result);
        opts.log(`  ${engine.impl} open #${run + 1}: ${result.openMs.toFixed(0)} ms, RSS ${result.afterOpen.maxRssMb.toFixed(0)} MB, ` +
          `checkout+context ${median(result.checkouts.map((c) => c.ms)).toFixed(1)} ms`);
      }, opts.log);
    }
  }
  for (let run = 0; run < opts.appendRuns; run++) {
    for (const engine of run % 2 === 0 ? [ref, ours] : [ours, ref]) {
      await attempt(engine, async () => {
        const result = await runChild({ kind: "append", impl: engine.impl, file, count: opts.appendCount, seed: opts.seed + run });
        if (result.linesAdded !== result.count) {
          throw new MeasurementFailed(`appended ${result.count} messages but the file grew by ${result.linesAdded} lines`, false);
        }
        engine.appends.push(result);
        opts.log(`  ${engine.impl} append #${run + 1}: ${result.appendMs.toFixed(1)} ms`);
      }, opts.log);
    }
  }
  const refResult = toEngineResult(ref);
  const oursResult = toEngineResult(ours);
  return {
    entries: meta.entries,
    bytes: meta.bytes,
    file,
    targets: meta.targets.length,
    floor: {
      readParseMs: median(floors.map((f) => f.readParseMs)),
      runsMs: floors.map((f) => f.readParseMs),
      maxRssMb: median(floors.map((f) => f.afterParse.maxRssMb)),
      heapMb: median(floors.map((f) => f.afterParse.heapMb)),
    },
    ref: refResult,
    ours: oursResult,
    agreement: refResult.last && oursResult.last ? compare(refResult.last, oursResult.last) : undefined,
  };
}
