/**
 * Writes the benchmark's session files with the reference package's own SessionManager, seeded
 * and deterministic, and caches them under `.tmp/bench/` by (generator version, seed, size) so
 * that repeated bench runs skip generation.
 *
 *   node out/test/bench/generate.js --seed 1 --size 10000     one session of 10,000 entries
 *   node out/test/bench/generate.js --seed 1 --listing        the folder of 200 sessions
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { installDeterministicEnvironment, SimulatedClock } from "./deterministic-env";
import { loadReferencePackage, RefSessionManagerClass } from "./reference";
import { Rng } from "./rng";
import { AgentStats, CheckoutTarget, SimulatedAgent } from "./simulated-agent";

/** Bump when the generated content changes, so that stale caches are not reused. */
export const GENERATOR_VERSION = 1;
/** The working directory recorded in generated headers. */
export const BENCH_CWD = "/work/app";
export const LISTING_SESSIONS = 200;

const DAY = 86_400_000;
const EPOCH_2025_03_01 = Date.UTC(2025, 2, 1);

export interface SessionMeta {
  generatorVersion: number;
  seed: number;
  entries: number;
  bytes: number;
  lines: number;
  leafId: string | null;
  targets: CheckoutTarget[];
  stats: Omit<AgentStats, "targets" | "leafId">;
  generatedInMs: number;
}

export interface ListingMeta {
  generatorVersion: number;
  seed: number;
  sessions: number;
  entries: number;
  bytes: number;
  largestEntries: number;
  generatedInMs: number;
}

/** The repository root (the folder with Arbor's package.json), found from this file's location. */
export function findRepoRoot(): string {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: string }).name === "arbor") {
      return dir;
    }
  }
  throw new Error(`Cannot find Arbor's package.json above ${__dirname}`);
}

export function benchTmpDir(): string {
  return path.join(findRepoRoot(), ".tmp", "bench");
}

export function sessionCachePaths(seed: number, entries: number): { file: string; meta: string } {
  const stem = path.join(benchTmpDir(), "sessions", `g${GENERATOR_VERSION}-s${seed}-n${entries}`);
  return { file: `${stem}.jsonl`, meta: `${stem}.meta.json` };
}

export function listingCachePaths(seed: number): { dir: string; meta: string } {
  const stem = path.join(benchTmpDir(), "listing", `g${GENERATOR_VERSION}-s${seed}`);
  return { dir: stem, meta: `${stem}.meta.json` };
}

/** The cached metadata, or undefined when the cache is missing or incomplete. */
export function readCachedMeta<T>(metaPath: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(metaPath, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** A UUIDv7-shaped session id whose time part is the session's start. */
function sessionIdAt(rng: Rng, ms: number): string {
  const time = ms.toString(16).padStart(12, "0");
  const h = rng.hex(20);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${h.slice(0, 3)}-${"89ab"[rng.int(0, 3)]}${h.slice(3, 6)}-${h.slice(6, 18)}`;
}

/** Writes one session of `entries` entries into `dir` (Pi's file naming) and returns its path and stats. */
function writeSession(SessionManager: RefSessionManagerClass, rng: Rng, clock: SimulatedClock, dir: string,
  startMs: number, entries: number): { file: string; stats: AgentStats } {
  clock.set(startMs);
  const sm = SessionManager.create(BENCH_CWD, dir);
  sm.newSession({ id: sessionIdAt(rng, startMs) });
  const stats = new SimulatedAgent(sm, rng.fork(1), clock, entries).run();
  const file = sm.getSessionFile();
  if (file === undefined || !fs.existsSync(file)) {
    throw new Error(`The reference SessionManager did not write a file for a session of ${entries} entries`);
  }
  return { file, stats };
}

function countLines(file: string): number {
  const buffer = fs.readFileSync(file);
  let lines = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) {
    lines++;
  }
  return lines;
}

/**
 * Writes one session of `entries` entries to `target` (replacing it) and returns its metadata.
 * Same seed and size, same bytes.
 */
export async function generateSession(seed: number, entries: number, target: string): Promise<SessionMeta> {
  const started = performance.now();
  const SessionManager = await loadReferencePackage();
  const rng = new Rng(seed * 1_000_003 + entries);
  const startMs = EPOCH_2025_03_01 + rng.int(0, 30) * DAY;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const workDir = fs.mkdtempSync(path.join(path.dirname(target), "gen-"));
  const env = installDeterministicEnvironment(rng.fork(2), startMs);
  try {
    const { file, stats } = writeSession(SessionManager, rng, env.clock, workDir, startMs, entries);
    fs.renameSync(file, target);
    const lines = countLines(target);
    if (lines !== entries + 1) {
      throw new Error(`Generated ${target} has ${lines} lines, expected ${entries + 1} (header + entries)`);
    }
    const { targets, leafId, ...rest } = stats;
    return {
      generatorVersion: GENERATOR_VERSION, seed, entries, bytes: fs.statSync(target).size, lines, leafId, targets,
      stats: rest, generatedInMs: Math.round(performance.now() - started),
    };
  } finally {
    env.dispose();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** Generates (or reuses) the cached session of `entries` entries. */
export async function ensureSession(seed: number, entries: number, regenerate = false): Promise<{ file: string; meta: SessionMeta }> {
  const paths = sessionCachePaths(seed, entries);
  const cached = readCachedMeta<SessionMeta>(paths.meta);
  if (!regenerate && cached && fs.existsSync(paths.file)) {
    return { file: paths.file, meta: cached };
  }
  fs.rmSync(paths.meta, { force: true });
  const meta = await generateSession(seed, entries, paths.file);
  // The meta file is written last: its presence marks a complete cache entry.
  fs.writeFileSync(paths.meta, JSON.stringify(meta, null, 2));
  return { file: paths.file, meta };
}

/** Entry counts of the listing folder: most sessions small, some medium, a few large. */
function listingSizes(rng: Rng): number[] {
  return Array.from({ length: LISTING_SESSIONS }, (_, i) =>
    i < 4 ? rng.int(6_000, 12_000) : i < 20 ? rng.int(800, 2_500) : rng.skewedInt(10, 400));
}

/** Generates (or reuses) the folder of 200 sessions used by the listing benchmark. */
export async function ensureListingFolder(seed: number, regenerate = false): Promise<{ dir: string; meta: ListingMeta }> {
  const paths = listingCachePaths(seed);
  const cached = readCachedMeta<ListingMeta>(paths.meta);
  if (!regenerate && cached && fs.existsSync(paths.dir)) {
    return { dir: paths.dir, meta: cached };
  }
  const started = performance.now();
  const SessionManager = await loadReferencePackage();
  const rng = new Rng(seed * 7_919 + 200);
  const env = installDeterministicEnvironment(rng.fork(2), EPOCH_2025_03_01);
  fs.rmSync(paths.meta, { force: true });
  fs.rmSync(paths.dir, { recursive: true, force: true });
  fs.mkdirSync(paths.dir, { recursive: true });
  try {
    let entries = 0;
    for (const size of listingSizes(rng)) {
      const startMs = EPOCH_2025_03_01 + rng.int(0, 90 * DAY);
      writeSession(SessionManager, rng, env.clock, paths.dir, startMs, size);
      entries += size;
    }
    const files = fs.readdirSync(paths.dir).filter((name) => name.endsWith(".jsonl"));
    if (files.length !== LISTING_SESSIONS) {
      throw new Error(`Generated ${files.length} sessions in ${paths.dir}, expected ${LISTING_SESSIONS}`);
    }
    const meta: ListingMeta = {
      generatorVersion: GENERATOR_VERSION, seed, sessions: files.length, entries,
      bytes: files.reduce((sum, name) => sum + fs.statSync(path.join(paths.dir, name)).size, 0),
      largestEntries: Math.max(...listingSizes(new Rng(seed * 7_919 + 200))),
      generatedInMs: Math.round(performance.now() - started),
    };
    fs.writeFileSync(paths.meta, JSON.stringify(meta, null, 2));
    return { dir: paths.dir, meta };
  } finally {
    env.dispose();
  }
}

function readFlag(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<void> {
  const seed = Number(readFlag(args, "--seed") ?? "1");
  const size = readFlag(args, "--size");
  const regenerate = args.includes("--regen");
  if (!Number.isInteger(seed)) {
    throw new Error(`--seed must be an integer, got ${readFlag(args, "--seed")}`);
  }
  fs.mkdirSync(benchTmpDir(), { recursive: true });
  if (args.includes("--listing")) {
    const { dir, meta } = await ensureListingFolder(seed, regenerate);
    console.log(`listing folder ${dir}: ${meta.sessions} sessions, ${meta.entries} entries, ${(meta.bytes / 1e6).toFixed(1)} MB`);
  }
  if (size !== undefined) {
    const entries = Number(size);
    if (!Number.isInteger(entries) || entries < 10) {
      throw new Error(`--size must be an integer of at least 10, got ${size}`);
    }
    const { file, meta } = await ensureSession(seed, entries, regenerate);
    console.log(`session ${file}: ${meta.entries} entries, ${(meta.bytes / 1e6).toFixed(1)} MB, ${meta.targets.length} checkout targets`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : String(error));
    process.exitCode = 1;
  });
}
