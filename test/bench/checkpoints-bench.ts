/**
 * `npm run bench:checkpoints`: the cost of a checkpoint on a 20,000-file workspace.
 * - snapshot after a turn that changed a few files, beside the floor: plain `git add -A && git
 *   write-tree` into a second index of a second bare repository over the same files;
 * - snapshot when nothing changed (the fast path);
 * - restore of 100 changed files (plan + apply, the pre-restore snapshot included);
 * - bytes stored per turn.
 * Medians of several runs; MISSED where a target is not met.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { CheckpointStore } from "../../src/core/checkpoints";

const FILES = Number(process.env.ARBOR_BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.ARBOR_BENCH_RUNS ?? 9);
const TURNS = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function makeWorkspace(root: string): void {
  const perDir = 100;
  for (let d = 0; d < FILES / perDir; d++) {
    const dir = path.join(root, `pkg${d % 20}`, `mod${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perDir; f++) {
      const lines = Array.from({ length: 20 + ((d * perDir + f) % 40) }, (_, i) => `export const v${i} = ${d * 1000 + f + i}; // file ${f}`);
      fs.writeFileSync(path.join(dir, `file${f}.ts`), `${lines.join("\n")}\n`);
    }
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\n");
}

function floorEnv(root: string, tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  return { ...env, GIT_DIR: path.join(tmp, "floor.git"), GIT_WORK_TREE: root, GIT_INDEX_FILE: path.join(tmp, "floor-index"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: os.devNull };
}

/** The floor: what git itself needs to record the workspace into a second index. */
function floorSnapshot(root: string, env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  execFileSync("git", ["-c", "core.bare=false", "add", "-A"], { cwd: root, env });
  execFileSync("git", ["-c", "core.bare=false", "write-tree"], { cwd: root, env });
  return performance.now() - t;
}

function changeFew(root: string, turn: number): void {
  for (let i = 0; i < 5; i++) {
    const file = path.join(root, "pkg3", `mod${3 + i * 20}`, `file${(turn * 7 + i) % 100}.ts`);
    fs.appendFileSync(file, `export const turn${turn}_${i} = ${turn};\n`);
  }
}

function verdict(ok: boolean): string {
  return ok ? "ok" : "MISSED";
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-ckpt-bench-"));
  try {
    const ws = path.join(tmp, "ws");
    fs.mkdirSync(ws);
    makeWorkspace(ws);
    const env = floorEnv(ws, tmp);
    execFileSync("git", ["init", "-q", "--bare", env.GIT_DIR as string], { env: { ...env, GIT_WORK_TREE: undefined, GIT_DIR: undefined } });
    const store = await CheckpointStore.open({ gitPath: "git", storageDir: path.join(tmp, "storage"), workspace: ws });
    let t = performance.now();
    await store.snapshot();
    const firstStore = performance.now() - t;
    t = performance.now();
    floorSnapshot(ws, env);
    const firstFloor = performance.now() - t;

    const ours: number[] = [];
    const floor: number[] = [];
    const unchanged: number[] = [];
    const bytesBefore = await store.storageBytes();
    for (let turn = 0; turn < Math.max(RUNS, TURNS); turn++) {
      changeFew(ws, turn);
      // Alternate which goes first, so that neither always finds the files' stat data cached.
      if (turn % 2 === 0) {
        t = performance.now();
        await store.snapshot();
        ours.push(performance.now() - t);
        floor.push(floorSnapshot(ws, env));
      } else {
        floor.push(floorSnapshot(ws, env));
        t = performance.now();
        await store.snapshot();
        ours.push(performance.now() - t);
      }
      t = performance.now();
      const same = await store.snapshot();
      unchanged.push(performance.now() - t);
      if (same.changed) throw new Error("an unchanged workspace was reported changed");
    }
    const bytesPerTurn = ((await store.storageBytes()) - bytesBefore) / Math.max(RUNS, TURNS);

    // Restore: 100 files changed since snapshot `base`; the restore takes them back.
    const base = await store.snapshot();
    const restoreTimes: number[] = [];
    for (let run = 0; run < Math.min(RUNS, 5); run++) {
      for (let i = 0; i < 100; i++) fs.appendFileSync(path.join(ws, "pkg5", `mod${5 + (i % 5) * 20}`, `file${i}.ts`), `// edit ${run}\n`);
      t = performance.now();
      const report = await store.apply(await store.plan(base.id));
      restoreTimes.push(performance.now() - t);
      if (!report.ok || report.counts.changed !== 100) throw new Error(`the restore did not restore 100 files: ${JSON.stringify(report.counts)}`);
    }

    const snap = median(ours);
    const fl = median(floor);
    const ratio = snap / fl;
    const restore = median(restoreTimes);
    const rows: [string, string, string][] = [
      ["first snapshot (all files)", `${firstStore.toFixed(0)} ms`, `floor ${firstFloor.toFixed(0)} ms`],
      ["snapshot, a turn changed 5 files", `${snap.toFixed(1)} ms`, `floor ${fl.toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.2x: ${verdict(ratio <= 1.2)}; <= 100 ms: ${verdict(snap <= 100)})`],
      ["snapshot, nothing changed", `${median(unchanged).toFixed(1)} ms`, `ratio to floor ${(median(unchanged) / fl).toFixed(2)}x`],
      ["restore of 100 changed files", `${restore.toFixed(1)} ms`, `target <= 300 ms: ${verdict(restore <= 300)}`],
      ["bytes stored per turn", `${Math.round(bytesPerTurn)} B`, `${FILES} files, 5 changed per turn`],
    ];
    console.log(`Checkpoints on ${FILES} files (medians of ${ours.length} turns, ${restoreTimes.length} restores)`);
    for (const [what, value, note] of rows) console.log(`  ${what.padEnd(34)} ${value.padStart(10)}   ${note}`);
    fs.mkdirSync("bench-results", { recursive: true });
    fs.writeFileSync(
      path.join("bench-results", "checkpoints-bench.json"),
      JSON.stringify({ files: FILES, snapshotMs: snap, floorMs: fl, ratio, unchangedMs: median(unchanged), restore100Ms: restore, bytesPerTurn, firstSnapshotMs: firstStore, firstFloorMs: firstFloor }, null, 2),
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
