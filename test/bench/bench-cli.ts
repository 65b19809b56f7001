/**
 * The command line as a user runs it: `arbor tree`, `arbor tree --json` and `arbor context` as
 * whole processes (the bundled dist/cli.js), wall time from spawn to exit and peak RSS, first with
 * an empty cache (the reopen index is built and saved within the run) and again with the index
 * (and, for the text tree, the descriptions a first drawing saved beside it).
 * Beside them, the reference's open + getTree as one process. The outputs are checked against
 * what the reference resolves on the same file.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { findRepoRoot } from "./generate";
import { digestOf, median } from "./measure";

export interface ProcessRun {
  wallMs: number;
  maxRssMb: number;
  code: number;
  stdoutFile: string;
  stderr: string;
}

export interface CliSeries {
  label: string;
  available: boolean;
  error?: string;
  wallMs: number;
  maxRssMb: number;
  runsMs: number[];
}

export interface CliBenchResult {
  entries: number;
  bytes: number;
  /** The reference's open + getTree, one process. */
  ref: CliSeries;
  ours: CliSeries[];
  mismatches: string[];
  /** What our outputs were checked against. */
  checkedAgainst: string;
}

interface RefDigests {
  entries: number;
  leafId: string | null;
  treeDigest: string;
  leafDigest: string;
  afterReadyMs: number;
  /** Peak RSS when the tree was ready (before the digests). */
  readyRssKb: number;
}

/** Runs `node [--require rss-reporter] script args` with stdout to a file; times it from spawn to exit. */
function runProcess(script: string, args: string[], env: NodeJS.ProcessEnv, scratch: string, name: string, nodeArgs: string[] = []): Promise<ProcessRun> {
  const rssFile = path.join(scratch, `${name}.rss.json`);
  const stdoutFile = path.join(scratch, `${name}.out`);
  const out = fs.openSync(stdoutFile, "w");
  const reporter = path.join(__dirname, "rss-reporter.js");
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, "--require", reporter, script, ...args], { env: { ...env, ARBOR_BENCH_RSS: rssFile }, stdio: ["ignore", out, "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      fs.closeSync(out);
      let maxRssMb = NaN;
      try {
        maxRssMb = (JSON.parse(fs.readFileSync(rssFile, "utf8")) as { maxRssKb: number }).maxRssKb / 1024;
      } catch {
        // no report: the process died before its exit handler
      }
      resolve({ wallMs, maxRssMb, code: code ?? -1, stdoutFile, stderr });
    });
  });
}

function series(label: string, runs: ProcessRun[], adjustMs: (r: ProcessRun) => number = () => 0, rssMb: (r: ProcessRun) => number = (r) => r.maxRssMb): CliSeries {
  const ok = runs.filter((r) => r.code === 0);
  if (ok.length === 0) return { label, available: false, error: runs[0]?.stderr.trim().split("\n")[0] ?? "not run", wallMs: NaN, maxRssMb: NaN, runsMs: [] };
  return {
    label,
    available: true,
    wallMs: median(ok.map((r) => r.wallMs - adjustMs(r))),
    maxRssMb: median(ok.map(rssMb)),
    runsMs: ok.map((r) => r.wallMs - adjustMs(r)),
  };
}

export interface CliBenchOptions {
  runs: number;
  /** A file the reference cannot open: it is tried once. */
  large: boolean;
  scratch: string;
  log: (line: string) => void;
}

/** The CLI case for one session file. */
export async function benchCli(file: string, entries: number, bytes: number, opts: CliBenchOptions): Promise<CliBenchResult> {
  const cli = path.join(findRepoRoot(), "dist", "cli.js");
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: the bench builds it first (npm run bench)`);
  const refScript = path.join(__dirname, "ref-open-tree.js");
  fs.rmSync(opts.scratch, { recursive: true, force: true });
  fs.mkdirSync(opts.scratch, { recursive: true });
  const baseEnv = { ...process.env };
  const warmCache = path.join(opts.scratch, "warm-cache");
  const commands: { label: string; args: string[] }[] = [
    { label: "arbor tree", args: ["tree", file] },
    { label: "arbor tree --json", args: ["tree", file, "--json"] },
    { label: "arbor context", args: ["context", file] },
  ];
  const refRuns: ProcessRun[] = [];
  const cold = new Map<string, ProcessRun[]>(commands.map((c) => [c.label, []]));
  const warm = new Map<string, ProcessRun[]>(commands.map((c) => [c.label, []]));
  // The warm series reads an index made once, untimed, and the tree text saved by a first drawing.
  await runProcess(cli, ["tree", file, "--json", "--limit", "1"], { ...baseEnv, XDG_CACHE_HOME: warmCache }, opts.scratch, "prime");
  await runProcess(cli, ["tree", file], { ...baseEnv, XDG_CACHE_HOME: warmCache }, opts.scratch, "prime-text");
  opts.log(`command line, ${entries.toLocaleString("en-US")} entries`);
  for (let run = 0; run < opts.runs; run++) {
    if (!opts.large || run === 0) {
      const r = await runProcess(refScript, [file], baseEnv, opts.scratch, `ref-${run}`);
      refRuns.push(r);
      opts.log(`  ref open + getTree #${run + 1}: ${r.code === 0 ? `${r.wallMs.toFixed(0)} ms, peak ${r.maxRssMb.toFixed(0)} MB` : `failed: ${r.stderr.trim().split("\n")[0]}`}`);
    }
    for (const c of commands) {
      const coldCache = path.join(opts.scratch, `cold-${run}-${cold.get(c.label)!.length}`);
      const a = await runProcess(cli, c.args, { ...baseEnv, XDG_CACHE_HOME: coldCache }, opts.scratch, `cold-${c.label.replace(/\W+/g, "_")}-${run}`);
      cold.get(c.label)!.push(a);
      fs.rmSync(coldCache, { recursive: true, force: true });
      const b = await runProcess(cli, c.args, { ...baseEnv, XDG_CACHE_HOME: warmCache }, opts.scratch, `warm-${c.label.replace(/\W+/g, "_")}-${run}`);
      warm.get(c.label)!.push(b);
      opts.log(`  ${c.label} #${run + 1}: first ${a.wallMs.toFixed(0)} ms / ${a.maxRssMb.toFixed(0)} MB, again ${b.wallMs.toFixed(0)} ms / ${b.maxRssMb.toFixed(0)} MB`);
    }
  }
  // Results: every run of ours against the reference's digests (or its tree and context code fed by a bench reader).
  const mismatches: string[] = [];
  const refOk = refRuns.find((r) => r.code === 0);
  let expected = refOk ? (JSON.parse(fs.readFileSync(refOk.stdoutFile, "utf8")) as RefDigests) : undefined;
  let checkedAgainst = expected ? "the reference" : "nothing: neither the reference nor its streamed reading gave a result";
  if (!expected && opts.large) {
    // The reference's tree and context code on entries read by the bench (ref-streamed.ts): results only.
    const r = await runProcess(refScript, [file, "--stream"], baseEnv, opts.scratch, "ref-streamed", ["--max-old-space-size=16384"]);
    if (r.code === 0) {
      expected = JSON.parse(fs.readFileSync(r.stdoutFile, "utf8")) as RefDigests;
      checkedAgainst = "the reference's tree and context code, fed by a bench line reader (it cannot read this file itself)";
    } else {
      opts.log(`  reference semantics through a bench line reader failed: ${r.stderr.trim().split("\n")[0]}`);
    }
  }
  // Our runs agreeing with each other prove nothing about the results: without the reference, the run fails.
  if (!expected) mismatches.push(`no reference result to compare the command line's output with (${refRuns[0]?.stderr.trim().split("\n")[0] ?? "the reference did not run"})`);
  let baseline: { tree?: string; context?: string } = {};
  for (const [phase, map] of [["first", cold], ["again", warm]] as const) {
    for (const c of commands) {
      for (const [i, r] of map.get(c.label)!.entries()) {
        const where = `${c.label} (${phase}, run ${i + 1})`;
        if (r.code !== 0) {
          mismatches.push(`${where} failed: ${r.stderr.trim().split("\n")[0]}`);
          continue;
        }
        if (c.label === "arbor tree --json") {
          const doc = JSON.parse(fs.readFileSync(r.stdoutFile, "utf8")) as { entries: { id: string }[] };
          const digest = digestOf(doc.entries.map((e) => e.id).join(","));
          if (expected ? digest !== expected.treeDigest : (baseline.tree ??= digest) !== digest) mismatches.push(`${where}: the tree differs`);
        } else if (c.label === "arbor context") {
          const ctx = JSON.parse(fs.readFileSync(r.stdoutFile, "utf8")) as { messages: unknown; model: unknown; thinkingLevel: unknown };
          const digest = digestOf({ messages: ctx.messages, model: ctx.model, thinkingLevel: ctx.thinkingLevel });
          if (expected ? digest !== expected.leafDigest : (baseline.context ??= digest) !== digest) mismatches.push(`${where}: the context differs`);
        } else {
          const lines = countLines(r.stdoutFile);
          if (lines < entries) mismatches.push(`${where}: drew ${lines} lines for ${entries} entries`);
        }
      }
    }
  }
  baseline = {};
  const ours: CliSeries[] = [];
  for (const c of commands) {
    ours.push(series(`${c.label} (first, index built)`, cold.get(c.label)!));
    ours.push(series(`${c.label} (again, index reused)`, warm.get(c.label)!));
  }
  const digests = (r: ProcessRun): RefDigests | undefined => {
    try {
      return JSON.parse(fs.readFileSync(r.stdoutFile, "utf8")) as RefDigests;
    } catch {
      return undefined;
    }
  };
  // The reference's wall time and peak are counted up to its tree being ready (its digests are bench work).
  const ref = series("ref open + getTree", refRuns, (r) => digests(r)?.afterReadyMs ?? 0, (r) => {
    const kb = digests(r)?.readyRssKb;
    return kb === undefined ? r.maxRssMb : kb / 1024;
  });
  fs.rmSync(opts.scratch, { recursive: true, force: true });
  return { entries, bytes, ref, ours, mismatches, checkedAgainst };
}

function countLines(file: string): number {
  const buf = fs.readFileSync(file);
  let n = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
