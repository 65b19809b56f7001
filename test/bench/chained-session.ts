/**
 * Sessions for a workspace, from the benchmark's reference-written sessions (generate.ts): one copied
 * with its header's cwd set to the workspace, and one of `copies` copies chained into a single
 * session (issue 10's 1,000,000-entry case: ten copies of the 100,000-entry session). In a chained
 * copy every id is renamed (8 hex digits, unique across the file), the first root of each copy hangs
 * under the last entry of the copy before it, and times move on by the span of one copy, so the
 * file reads as one long, branched session that Pi's loader takes as it is.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const ID_FIELDS = ["id", "parentId", "targetId", "firstKeptEntryId", "fromId"] as const;

/** Rewrites a session file line by line into `target`; `entry` may change each entry (in place). */
async function rewrite(source: string, target: string, header: (h: Record<string, unknown>) => void, entry: (e: Record<string, unknown>, copy: number) => void, copies: number): Promise<{ lastId: string | null }> {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const out = fs.createWriteStream(partial);
  const write = (line: string) => (out.write(line) ? Promise.resolve() : new Promise<void>((resolve) => out.once("drain", () => resolve())));
  let lastId: string | null = null;
  for (let copy = 0; copy < copies; copy++) {
    const lines = readline.createInterface({ input: fs.createReadStream(source), crlfDelay: Infinity });
    let first = true;
    for await (const text of lines) {
      if (!text.trim()) continue;
      const value = JSON.parse(text) as Record<string, unknown>;
      if (first) {
        first = false;
        if (value.type === "session") {
          if (copy === 0) {
            header(value);
            await write(`${JSON.stringify(value)}\n`);
          }
          continue;
        }
      }
      entry(value, copy);
      if (typeof value.id === "string") lastId = value.id;
      await write(`${JSON.stringify(value)}\n`);
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  fs.renameSync(partial, target);
  return { lastId };
}

/** A copy of `source` whose header names `cwd` (so a workspace opened there lists and resumes it). */
export async function sessionForWorkspace(source: string, target: string, cwd: string): Promise<string> {
  if (!fs.existsSync(target)) await rewrite(source, target, (h) => (h.cwd = cwd), () => undefined, 1);
  return target;
}

/** The span of times in a session file (ms), to move each chained copy past the one before. */
function timeSpan(source: string): number {
  const text = fs.readFileSync(source, "utf8");
  let min = Infinity;
  let max = -Infinity;
  for (const m of text.matchAll(/"timestamp":"([^"]+)"/g)) {
    const t = Date.parse(m[1]!);
    if (Number.isNaN(t)) continue;
    if (t < min) min = t;
    if (t > max) max = t;
  }
  return Number.isFinite(max - min) ? max - min + 60_000 : 86_400_000;
}

/**
 * `copies` copies of `source` chained into one session at `target` (made once, then reused while
 * the file is there), with its header naming `cwd`.
 */
export async function chainedSession(source: string, target: string, copies: number, cwd: string): Promise<string> {
  if (fs.existsSync(target)) return target;
  const span = timeSpan(source);
  const renamed = new Map<string, string>();
  const used = new Set<string>();
  let previousLeaf: string | null = null;
  let lastOfCopy: string | null = null;
  let currentCopy = -1;
  const rename = (id: string, copy: number): string => {
    if (copy === 0) return id;
    const key = `${copy}:${id}`;
    let out = renamed.get(key);
    if (out === undefined) {
      let h = 2166136261 ^ copy;
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
      do {
        out = (h >>> 0).toString(16).padStart(8, "0");
        h = Math.imul(h ^ 0x9e3779b9, 16777619);
      } while (used.has(out));
      used.add(out);
      renamed.set(key, out);
    }
    return out;
  };
  const shift = (iso: unknown, copy: number): unknown => (typeof iso === "string" && copy > 0 ? new Date(Date.parse(iso) + copy * span).toISOString() : iso);
  await rewrite(source, target, (h) => (h.cwd = cwd), (e, copy) => {
    if (copy !== currentCopy) {
      previousLeaf = lastOfCopy;
      currentCopy = copy;
    }
    // Ids of the first copy are kept; later copies must not reuse them.
    if (copy === 0 && typeof e.id === "string") used.add(e.id);
    for (const field of ID_FIELDS) {
      const v = e[field];
      if (typeof v === "string" && v !== "root") e[field] = rename(v, copy);
    }
    if (copy > 0 && e.parentId === null && previousLeaf !== null) e.parentId = previousLeaf;
    e.timestamp = shift(e.timestamp, copy);
    const message = e.message as { timestamp?: unknown } | undefined;
    if (message && typeof message.timestamp === "number" && copy > 0) message.timestamp += copy * span;
    if (typeof e.id === "string") lastOfCopy = e.id;
  }, copies);
  return target;
}
