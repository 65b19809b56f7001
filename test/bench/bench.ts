/**
 * `npm run bench`: Arbor's session engine against the reference implementation
 * (`@mariozechner/pi-coding-agent@0.73.1`) on generated sessions of 10,000 and 100,000 entries
 * and a folder of 200 sessions. Prints a table (absolute times, ratios ours/ref, the parse floor,
 * PASS/MISS on the targets) and writes bench-results/session-bench.json.
 *
 *   node --expose-gc out/test/bench/bench.js [--size 10000[,100000]] [--seed 1] [--runs N]
 *                                            [--skip-list] [--only-list] [--regen]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { benchListing, ListingBenchResult } from "./bench-list";
import { benchSession, SessionBenchResult } from "./bench-session";
import { runGenerator } from "./child-runner";
import { findRepoRoot, listingCachePaths, ListingMeta, readCachedMeta, sessionCachePaths, SessionMeta } from "./generate";
import { parseBenchArgs } from "./bench-args";
import { judgeTargets, renderReport } from "./report";

async function ensureSessionFile(seed: number, entries: number, regenerate: boolean): Promise<{ file: string; meta: SessionMeta }> {
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

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  const started = performance.now();
  const log = (line: string) => console.log(line);
  const loadBefore = os.loadavg();
  if (loadBefore[0] > os.cpus().length * 0.5) {
    log(`note: the machine is busy (load average ${loadBefore[0].toFixed(1)} on ${os.cpus().length} CPUs): absolute times will be noisy; ` +
      "ours and ref run alternately so that the ratios suffer less");
  }
  const sessions: SessionBenchResult[] = [];
  if (options.sessions) {
    for (const size of options.sizes) {
      const { file, meta } = await ensureSessionFile(options.seed, size, options.regenerate);
      // Big files: fewer runs, to stay within a few minutes on a 2-core machine.
      const runs = options.runs ?? (size > 20_000 ? 3 : 5);
      sessions.push(await benchSession(file, meta, { openRuns: runs, appendRuns: runs, appendCount: 1_000, seed: options.seed, log }));
    }
  }
  let listing: ListingBenchResult | undefined;
  if (options.list) {
    const { dir, meta } = await ensureListing(options.seed, options.regenerate);
    const runs = options.runs ?? 5;
    listing = await benchListing(dir, meta, { runs, coldRuns: Math.min(runs, 3), log });
  }
  const verdicts = judgeTargets(sessions, listing);
  console.log(`\nSession engine benchmark: Arbor vs @mariozechner/pi-coding-agent 0.73.1 (seed ${options.seed}, node ${process.version}, ` +
    `${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB)\n`);
  console.log(renderReport(sessions, listing, verdicts));
  const loadAfter = os.loadavg();
  console.log(`\nload average (1 min) before ${loadBefore[0].toFixed(1)}, after ${loadAfter[0].toFixed(1)} on ${os.cpus().length} CPUs`);
  const outDir = path.join(findRepoRoot(), "bench-results");
  fs.mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, "session-bench.json");
  const report = {
    date: new Date().toISOString(),
    machine: { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemGb: os.totalmem() / 2 ** 30,
      loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
    reference: "@mariozechner/pi-coding-agent@0.73.1",
    options,
    elapsedSeconds: (performance.now() - started) / 1000,
    targets: verdicts,
    sessions,
    listing,
  };
  fs.writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), outFile)} (${report.elapsedSeconds.toFixed(0)} s)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
