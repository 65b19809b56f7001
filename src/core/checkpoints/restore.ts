import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { readBlobs } from "./blobs";
import type { Git } from "./git";
import { splitNul } from "./git";
import { diffTrees, type FileChange } from "./tree-diff";

/** What a restore does to one path: rewrites it, removes it (created since), or brings it back. */
export type RestoreAction = "changed" | "removed" | "back";

/** One path a restore touches. */
export interface RestoreStep {
  path: string;
  action: RestoreAction;
  change: FileChange;
}

/** A restore worked out before anything is written, so it can be shown, asked about and tested. */
export interface RestorePlan {
  /** The snapshot of the workspace taken while planning: what "Undo File Restore" goes back to. */
  from: string;
  /** The snapshot the workspace is made equal to. */
  to: string;
  steps: RestoreStep[];
  counts: Record<RestoreAction, number>;
  /** Paths of `steps` open with unsaved changes (relative, "/"-separated). */
  unsaved: string[];
  /** Paths the snapshot has that are ignored now: left alone. */
  ignored: string[];
}

/** How a restore went. */
export interface RestoreReport {
  ok: boolean;
  from: string;
  to: string;
  /** Paths written or removed (all of the plan when `ok`). */
  done: string[];
  counts: Record<RestoreAction, number>;
  /** The files that could not be written, and why. */
  failed: { path: string; error: string }[];
  /** After a failure: whether every file already written was put back as it was. */
  rolledBack?: boolean;
  /** Files that could not be put back after a failure. */
  rollbackFailed?: { path: string; error: string }[];
}

/** "Restored 12 files: 3 changed, 1 removed, 8 back". */
export function describeRestore(counts: Record<RestoreAction, number>): string {
  const total = counts.changed + counts.removed + counts.back;
  const parts = [`${counts.changed} changed`, `${counts.removed} removed`, `${counts.back} back`];
  return `Restored ${total} ${total === 1 ? "file" : "files"}: ${parts.join(", ")}`;
}

/** Works out a restore from tree `from` (the workspace now) to tree `to`. */
export async function planRestore(git: Git, workspace: string, from: string, to: string, dirty: readonly string[]): Promise<RestorePlan> {
  const changes = (await diffTrees(git, from, to)).filter((c) => c.oldMode !== "160000" && c.newMode !== "160000");
  const back = changes.filter((c) => c.kind === "added").map((c) => c.path);
  const ignored = new Set(back.length > 0 ? await ignoredOf(git, workspace, back) : []);
  const steps: RestoreStep[] = [];
  const counts: Record<RestoreAction, number> = { changed: 0, removed: 0, back: 0 };
  for (const change of changes) {
    if (ignored.has(change.path)) continue;
    const action: RestoreAction = change.kind === "added" ? "back" : change.kind === "deleted" ? "removed" : "changed";
    steps.push({ path: change.path, action, change });
    counts[action]++;
  }
  const touched = new Set(steps.map((s) => s.path));
  const unsaved = dirty.map((d) => relativePath(workspace, d)).filter((d): d is string => d !== undefined && touched.has(d));
  return { from, to, steps, counts, unsaved, ignored: [...ignored].sort() };
}

function relativePath(workspace: string, file: string): string | undefined {
  const rel = path.isAbsolute(file) ? path.relative(workspace, file) : file;
  if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join("/");
}

async function ignoredOf(git: Git, workspace: string, paths: readonly string[]): Promise<string[]> {
  const result = await git.run(["check-ignore", "-z", "--stdin", "--no-index"], { workTree: workspace, input: `${paths.join("\0")}\0`, allowFailure: true });
  return splitNul(result.stdout);
}

/** How many files are written at once. */
const BATCH = 16;

/** A file as a tree holds it: its mode and blob, or nothing. */
interface Side {
  mode: string;
  blob: string;
}

/**
 * Applies a plan: removals first (deepest first), then writes. Every write goes to a temp file
 * beside the target and is renamed over it; symlinks are made as links; the executable bit follows
 * the mode. No write goes through a symlinked folder. A failure stops the restore, and every path
 * already done is put back from `plan.from`.
 */
export async function applyRestore(git: Git, workspace: string, plan: RestorePlan): Promise<RestoreReport> {
  const ordered = [...plan.steps.filter((s) => s.action === "removed").reverse(), ...plan.steps.filter((s) => s.action !== "removed")];
  const blobs = await readBlobs(git, ordered.map((s) => s.change.newBlob).filter((b) => b !== ""));
  const done: RestoreStep[] = [];
  const report: RestoreReport = { ok: true, from: plan.from, to: plan.to, done: [], counts: plan.counts, failed: [] };
  // Removals, then writes, each in small parallel batches (paths differ; folders are made as needed).
  const removals = ordered.filter((s) => s.action === "removed");
  const writes = ordered.filter((s) => s.action !== "removed");
  for (const group of [removals, writes]) {
    for (let i = 0; i < group.length && report.ok; i += BATCH) {
      await Promise.all(
        group.slice(i, i + BATCH).map(async (step) => {
          try {
            await putFile(workspace, step.path, step.change.newBlob === "" ? undefined : { mode: step.change.newMode, blob: step.change.newBlob }, blobs);
            done.push(step);
          } catch (error) {
            // A failed step left its path as it was (the temp file is removed, the rename never happened).
            report.ok = false;
            report.failed.push({ path: step.path, error: (error as Error).message });
          }
        }),
      );
    }
    if (!report.ok) break;
  }
  if (report.ok) {
    report.done = done.map((s) => s.path);
    return report;
  }
  const old = await readBlobs(git, done.map((s) => s.change.oldBlob).filter((b) => b !== ""));
  const rollbackFailed: { path: string; error: string }[] = [];
  for (const step of [...done].reverse()) {
    try {
      await putFile(workspace, step.path, step.change.oldBlob === "" ? undefined : { mode: step.change.oldMode, blob: step.change.oldBlob }, old);
    } catch (error) {
      rollbackFailed.push({ path: step.path, error: (error as Error).message });
    }
  }
  report.rolledBack = rollbackFailed.length === 0;
  if (rollbackFailed.length > 0) report.rollbackFailed = rollbackFailed;
  return report;
}

/** Makes `rel` in the workspace what `side` says (undefined: no file). */
async function putFile(workspace: string, rel: string, side: Side | undefined, blobs: Map<string, Buffer>): Promise<void> {
  const target = path.join(workspace, ...rel.split("/"));
  await assertNoLinkedFolder(workspace, rel);
  const existing = await fs.lstat(target).catch(() => undefined);
  if (!side) {
    if (existing && !existing.isDirectory()) await fs.unlink(target);
    await removeEmptyParents(workspace, path.dirname(target));
    return;
  }
  const bytes = blobs.get(side.blob);
  if (!bytes) throw new Error(`The snapshot's copy of ${rel} is missing from the checkpoint store.`);
  // A folder where the file goes (only empty folders are left after the removals) gives way.
  if (existing?.isDirectory()) await fs.rmdir(target);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temp = path.join(path.dirname(target), `.arbor-restore-${randomBytes(6).toString("hex")}`);
  try {
    if (side.mode === "120000") {
      await fs.symlink(bytes.toString("utf8"), temp);
    } else {
      const executable = side.mode === "100755";
      // A changed file keeps its other permission bits; only the executable bits follow the snapshot.
      const base = existing?.isFile() ? existing.mode & 0o666 : 0o644;
      const mode = executable ? base | ((base & 0o444) >> 2) : base;
      await fs.writeFile(temp, bytes, { mode });
      await fs.chmod(temp, mode);
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Refuses a path whose folder is reached through a symlink (which could point out of the workspace). */
async function assertNoLinkedFolder(workspace: string, rel: string): Promise<void> {
  const parts = rel.split("/").slice(0, -1);
  let current = workspace;
  for (const part of parts) {
    current = path.join(current, part);
    const stat = await fs.lstat(current).catch(() => undefined);
    if (!stat) return;
    if (stat.isSymbolicLink()) throw new Error(`${rel} is inside a symlinked folder; it is left alone.`);
  }
}

async function removeEmptyParents(workspace: string, dir: string): Promise<void> {
  while (dir.length > workspace.length && dir.startsWith(workspace)) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
    dir = path.dirname(dir);
  }
}

/**
 * Whether every path a plan touches is still as the plan's undo point has it (so nothing written
 * since the plan would be overwritten unrecorded). One `git hash-object` run for the regular files.
 */
export async function stepsUnchanged(git: Git, workspace: string, plan: RestorePlan): Promise<boolean> {
  const hashed: { file: string; blob: string }[] = [];
  for (const step of plan.steps) {
    const { oldMode, oldBlob } = step.change;
    const full = path.join(workspace, ...step.path.split("/"));
    const stat = await fs.lstat(full).catch(() => undefined);
    if (oldBlob === "") {
      if (stat && !stat.isDirectory()) return false;
      continue;
    }
    if (!stat) return false;
    if (oldMode === "120000") {
      if (!stat.isSymbolicLink()) return false;
      const target = await fs.readlink(full);
      const id = (await git.text(["hash-object", "--stdin"], { input: target })).trim();
      if (id !== oldBlob) return false;
      continue;
    }
    if (!stat.isFile() || (process.platform !== "win32" && (stat.mode & 0o100 ? "100755" : "100644") !== oldMode)) return false;
    hashed.push({ file: full, blob: oldBlob });
  }
  if (hashed.length === 0) return true;
  const ids = (await git.text(["hash-object", "--no-filters", "--stdin-paths"], { input: `${hashed.map((h) => h.file).join("\n")}\n` })).trim().split("\n");
  return ids.every((id, i) => id === hashed[i].blob);
}
