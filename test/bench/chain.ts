/**
 * The bench's largest session: copies of a reference-written session chained into one file (the
 * first entry of each copy continues from the last entry of the copy before). Copy 0 is the
 * reference's file as written; later copies get fresh 8-hex ids (derived deterministically, never
 * clashing) in every field that names an entry. Key order and layout stay the reference's.
 *
 *   node out/test/bench/chain.js --seed 1 --base 100000 --copies 10
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { benchTmpDir, ensureSession, GENERATOR_VERSION, readCachedMeta, type SessionMeta } from "./generate";

/** Fields that hold the id of another entry. */
const ID_FIELDS = ["parentId", "targetId", "firstKeptEntryId", "fromId"] as const;

export function chainedCachePaths(seed: number, base: number, copies: number): { file: string; meta: string } {
  const stem = path.join(benchTmpDir(), "sessions", `g${GENERATOR_VERSION}-s${seed}-n${base}x${copies}`);
  return { file: `${stem}.jsonl`, meta: `${stem}.meta.json` };
}

/** Writes `copies` chained copies of the base session to `target`; returns its metadata. */
function writeChained(baseFile: string, baseMeta: SessionMeta, copies: number, target: string): SessionMeta {
  const started = performance.now();
  const lines = fs.readFileSync(baseFile, "utf8").split("\n").filter((l) => l.length > 0);
  const [header, ...body] = lines;
  const originals = body.map((l) => (JSON.parse(l) as { id: string }).id);
  const used = new Set(originals);
  const tmp = `${target}.partial`;
  const fd = fs.openSync(tmp, "w");
  let pending: string[] = [header!];
  let pendingBytes = header!.length;
  const write = (line: string) => {
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes > 8 * 1024 * 1024) {
      fs.writeSync(fd, `${pending.join("\n")}\n`);
      pending = [];
      pendingBytes = 0;
    }
  };
  let previousLast: string | undefined;
  let lastMap = new Map<string, string>();
  try {
    for (let copy = 0; copy < copies; copy++) {
      const map = new Map<string, string>();
      if (copy > 0) {
        for (const id of originals) {
          let n = 0;
          let fresh: string;
          do fresh = createHash("sha1").update(`${copy}:${id}:${n++}`).digest("hex").slice(0, 8);
          while (used.has(fresh));
          used.add(fresh);
          map.set(id, fresh);
        }
      }
      let chained = false;
      for (const line of body) {
        if (copy === 0) {
          write(line);
          continue;
        }
        const entry = JSON.parse(line) as Record<string, unknown>;
        entry.id = map.get(entry.id as string);
        for (const field of ID_FIELDS) {
          const value = entry[field];
          if (typeof value === "string" && map.has(value)) entry[field] = map.get(value);
        }
        // The copy's first root continues the previous copy's last entry.
        if (!chained && entry.parentId === null) {
          entry.parentId = previousLast;
          chained = true;
        }
        write(JSON.stringify(entry));
      }
      previousLast = copy === 0 ? originals[originals.length - 1] : map.get(originals[originals.length - 1]!);
      lastMap = map;
    }
    if (pending.length) fs.writeSync(fd, `${pending.join("\n")}\n`);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, target);
  const entries = body.length * copies;
  const mapped = (id: string) => (copies > 1 ? lastMap.get(id)! : id);
  return {
    ...baseMeta,
    entries,
    bytes: fs.statSync(target).size,
    lines: entries + 1,
    leafId: baseMeta.leafId === null ? null : mapped(baseMeta.leafId),
    targets: baseMeta.targets.map((t) => ({ ...t, id: mapped(t.id), line: t.line + body.length * (copies - 1), depth: t.depth })),
    generatedInMs: Math.round(performance.now() - started),
  };
}

/** The cached chained session (made from the cached base session, which is made first if needed). */
export async function ensureChainedSession(seed: number, base: number, copies: number, regenerate = false): Promise<{ file: string; meta: SessionMeta }> {
  const paths = chainedCachePaths(seed, base, copies);
  const cached = readCachedMeta<SessionMeta>(paths.meta);
  if (!regenerate && cached && fs.existsSync(paths.file)) return { file: paths.file, meta: cached };
  const baseSession = await ensureSession(seed, base, regenerate);
  fs.rmSync(paths.meta, { force: true });
  const meta = writeChained(baseSession.file, baseSession.meta, copies, paths.file);
  fs.writeFileSync(paths.meta, JSON.stringify(meta, null, 2));
  return { file: paths.file, meta };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const flag = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  ensureChainedSession(flag("--seed", 1), flag("--base", 100_000), flag("--copies", 10), args.includes("--regen")).then(
    ({ file, meta }) => console.log(`session ${file}: ${meta.entries} entries, ${(meta.bytes / 1e6).toFixed(1)} MB`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack ?? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
