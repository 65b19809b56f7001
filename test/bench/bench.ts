/**
 * `npm run bench`: Arbor's session engine and command line against the reference implementation
 * (`@mariozechner/pi-coding-agent@0.73.1`) on generated sessions of 10,000, 100,000 and 1,000,000
 * entries (the last one chained from copies of the 100,000-entry session, which the reference
 * cannot open) and a folder of 200 sessions. Prints tables (absolute times, ratios ours/ref, the
 * parse floor, the machine's cores and load, PASS/MISSED on the targets; --strict exits non-zero on a MISSED one) and writes
 * bench-results/session-bench.json. Any result that differs from the reference's fails the run.
 *
 *   node --expose-gc out/test/bench/bench.js [--size 10000[,100000,1000000]] [--seed 1] [--runs N]
 *                                            [--skip-list] [--only-list] [--skip-cli] [--regen] [--strict]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { benchCli, type CliBenchResult } from "./bench-cli";
import { benchListing, ListingBenchResult } from "./bench-list";
import { benchSession, SessionBenchResult } from "./bench-session";
import { ensureChainedSession } from "./chain";
import { runGenerator } from "./child-runner";
import { benchTmpDir, findRepoRoot, listingCachePaths, ListingMeta, readCachedMeta, sessionCachePaths, SessionMeta } from "./generate";
import { parseBenchArgs } from "./bench-args";
import { allMismatches, judgeTargets, renderReport, type MachineLoad } from "./report";

/** Past this size a file cannot be one JavaScript string: the reference cannot open it. */
const STRING_LIMIT_BYTES = 512 * 1024 * 1024;
/** The largest size is built from copies of this one. */
const CHAIN_BASE = 100_000;

async function ensureSessionFile(seed: number, entries: number, regenerate: boolean): Promise<{ file: string; meta: SessionMeta }> {
  if (entries > CHAIN_BASE && entries % CHAIN_BASE === 0) {
    const copies = entries / CHAIN_BASE;
    console.log(`preparing a session of ${entries.toLocaleString("en-US")} entries: ${copies} chained copies of the ${CHAIN_BASE.toLocaleString("en-US")}-entry session...`);
    return ensureChainedSession(seed, CHAIN_BASE, copies, regenerate);
  }
  const paths = sessionCachePaths(seed, entries);
  let meta = regenerate ? undefined : readCachedMeta<SessionMeta>(paths.meta);
  if (!meta || !fs.existsSync(paths.file)) {
    console.log(`generating a session of ${entries.toLocaleString("en-US")} entries (seed ${seed}) with the reference SessionManager...`);
    await runGenerator(["--seed", String(seed), "--size", String(entries), ...(regenerate ? ["--regen"] : [])]);
    meta = readCachedMeta<SessionMeta>(paths.meta);
  }
  if (!meta) throw new Error(`the generator did not leave ${paths.meta}`);
  return { file: paths.file, meta };
}

async function ensureListing(seed: number, regenerate: boolean): Promise<{ dir: string; meta: ListingMeta }> {
  const paths = listingCachePaths(seed);
  let meta = regenerate ? undefined : readCachedMeta<ListingMeta>(paths.meta);
  if (!meta || !fs.existsSync(paths.dir)) {
    console.log(`generating the listing folder of 200 sessions (seed ${seed})...`);
    await runGenerator(["--seed", String(seed), "--listing", ...(regenerate ? ["--regen"] : [])]);
    meta = readCachedMeta<ListingMeta>(paths.meta);
  }
  if (!meta) throw new Error(`the generator did not leave ${paths.meta}`);
  return { dir: paths.dir, meta };
}

/** Runs `work` and notes the machine's load (1-minute average) before and after it. */
async function underLoad<T>(loads: Map<string, MachineLoad>, key: string, work: () => Promise<T>): Promise<T> {
  const before = os.loadavg()[0]!;
  const result = await work();
  loads.set(key, { cpus: os.cpus().length, before, after: os.loadavg()[0]! });
  return result;
}

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  const started = performance.now();
  const log = (line: string) => console.log(line);
  const loads = new Map<string, MachineLoad>();
  const loadBefore = os.loadavg();
  log(`machine: ${os.cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} (1, 5, 15 min)`);
  if (loadBefore[0]! > os.cpus().length * 0.5) {
    log("note: the machine is busy: absolute times will be noisy; the engines run alternately so that the ratios suffer less");
  }
  const sessions: SessionBenchResult[] = [];
  const cli: CliBenchResult[] = [];
  const scratch = path.join(benchTmpDir(), "scratch");
  for (const size of options.sessions || options.cli ? options.sizes : []) {
    const { file, meta } = await ensureSessionFile(options.seed, size, options.regenerate);
    const large = meta.bytes > STRING_LIMIT_BYTES;
    if (options.sessions) {
      // Big files: fewer runs, to stay within a few minutes on a 2-core machine.
      const runs = options.runs ?? (size > 20_000 ? 3 : 5);
      sessions.push(await underLoad(loads, `session-${meta.entries}`, () =>
        // Appends are short (tens of ms) and a collection can land in any one of them: more runs for their median.
        benchSession(file, meta, { openRuns: runs, appendRuns: Math.max(runs, 7), appendCount: 1_000, seed: options.seed, indexRoot: path.join(scratch, "index"), large, log })));
    }
    if (options.cli && size >= 100_000) {
      const runs = options.runs ?? 3;
      cli.push(await underLoad(loads, `cli-${meta.entries}`, () => benchCli(file, meta.entries, meta.bytes, { runs, large, scratch: path.join(scratch, "cli"), log })));
    }
  }
  let listing: ListingBenchResult | undefined;
  if (options.list) {
    const { dir, meta } = await ensureListing(options.seed, options.regenerate);
    const runs = options.runs ?? 5;
    listing = await underLoad(loads, "listing", () => benchListing(dir, meta, { runs, coldRuns: Math.min(runs, 3), log }));
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  const verdicts = judgeTargets(sessions, listing, cli);
  console.log(`\nSession engine benchmark: Arbor vs @mariozechner/pi-coding-agent 0.73.1 (seed ${options.seed}, node ${process.version}, ` +
    `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB)\n`);
  console.log(renderReport({ sessions, cli, listing, verdicts, loads }));
  const loadAfter = os.loadavg();
  console.log(`\nload average (1 min) before ${loadBefore[0]!.toFixed(1)}, after ${loadAfter[0]!.toFixed(1)} on ${os.cpus().length} cores`);
  const mismatches = allMismatches({ sessions, cli, listing });
  const outDir = path.join(findRepoRoot(), "bench-results");
  fs.mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, "session-bench.json");
  const report = {
    date: new Date().toISOString(),
    machine: { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemGb: os.totalmem() / 2 ** 30,
      loadAverageBefore: loadBefore, loadAverageAfter: loadAfter, loads: Object.fromEntries(loads) },
    reference: "@mariozechner/pi-coding-agent@0.73.1",
    options,
    elapsedSeconds: (performance.now() - started) / 1000,
    targets: verdicts,
    mismatches,
    sessions,
    cli,
    listing,
  };
  fs.writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), outFile)} (${report.elapsedSeconds.toFixed(0)} s)`);
  if (mismatches.length > 0) {
    console.error(`\nFAILED: ${mismatches.length} result${mismatches.length === 1 ? "" : "s"} differ from the reference's (see above); the numbers above do not count`);
    process.exitCode = 1;
  }
  const missed = verdicts.filter((v) => v.status === "MISSED");
  if (missed.length > 0) {
    console.log(`\n${missed.length} target${missed.length === 1 ? "" : "s"} MISSED${options.strict ? " (--strict: failing the run)" : ""}`);
    if (options.strict) process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : String(error));
  process.exitCode = 1;
});
