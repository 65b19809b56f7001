import { promises as fs } from "node:fs";
import * as path from "node:path";
import { captureFolder } from "./capture";
import type { Git } from "./git";
import { applyRestore, planRestore, stepsUnchanged, type RestorePlan, type RestoreReport } from "./restore";
import { EMPTY_TREE, keepSnapshot, openShadowRepo, readState, shadowPaths, snapshotRef, writeExcludes, writeState, type ShadowPaths, type ShadowState } from "./shadow-repo";
import { diffTrees, summarize, type ChangeSummary, type FileChange } from "./tree-diff";

/** Default size over which a file is left out of snapshots (10 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** What a store needs from its host. */
export interface CheckpointStoreOptions {
  /** The user's git. */
  gitPath: string;
  /** Arbor's storage folder (VS Code: the extension's global storage); the shadow repository goes under it. */
  storageDir: string;
  /** The workspace folder the session works in: the shadow repository's work tree. */
  workspace: string;
  /** Files larger than this are left out, and the snapshot says so. */
  maxFileBytes?: number;
  /** Extra gitignore patterns (a setting), on top of the workspace's `.gitignore` files. */
  excludes?: readonly string[];
}

/** One snapshot's outcome. */
export interface Snapshot {
  /** The snapshot's id (its tree). */
  id: string;
  /** The snapshot before it, when there was one. */
  previous?: string;
  /** False when the workspace equals the previous snapshot (nothing new was stored). */
  changed: boolean;
  /** Paths changed since the previous snapshot (cut at 200 paths) and exact counts. */
  summary: ChangeSummary;
  counts: { added: number; modified: number; deleted: number };
  /** Files left out for their size, with their sizes. */
  skipped: { path: string; bytes: number }[];
}

/**
 * The checkpoints of one workspace folder: snapshots of its files in a shadow repository in Arbor's
 * storage, diffs between them, and planned, undoable restores. The workspace's own repository is
 * never opened. Operations run one at a time (they share one index).
 */
export class CheckpointStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly git: Git,
    readonly paths: ShadowPaths,
    readonly workspace: string,
    private state: ShadowState,
    private readonly options: CheckpointStoreOptions,
  ) {}

  /** Opens (creating when needed) the store of `options.workspace`. */
  static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
    const workspace = await fs.realpath(options.workspace);
    const paths = shadowPaths(options.storageDir, workspace);
    const git = await openShadowRepo(paths, options.gitPath, workspace);
    const state = await readState(paths);
    const store = new CheckpointStore(git, paths, workspace, state, options);
    await writeExcludes(paths, options.excludes ?? [], Object.keys(state.skipped));
    return store;
  }

  /** The user's git this store runs. */
  get gitPath(): string {
    return this.options.gitPath;
  }

  /** The last snapshot's id, if any. */
  get lastId(): string | undefined {
    return this.state.last;
  }

  /**
   * Snapshots the workspace. Unchanged since the last snapshot: nothing is stored and `changed` is
   * false (the cost is git's check of the files' stat data). Large files are left out and listed.
   */
  snapshot(): Promise<Snapshot> {
    return this.serial(() => this.takeSnapshot());
  }

  private async takeSnapshot(): Promise<Snapshot> {
    const max = this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const skipped = await this.recheckSkipped(max);
    let capture = await captureFolder(this.git, this.workspace, this.paths.indexFile, this.state.nested);
    const large = await this.findLarge(capture.touched, max);
    if (large.length > 0) {
      for (const file of large) skipped[file.path] = file.bytes;
      await writeExcludes(this.paths, this.options.excludes ?? [], Object.keys(skipped));
      await this.git.run(["rm", "--cached", "-f", "-q", "--ignore-unmatch", "--", ...large.map((f) => `:(literal)${f.path}`)], { workTree: this.workspace, indexFile: this.paths.indexFile });
      capture = { ...capture, tree: (await this.git.text(["write-tree"], { workTree: this.workspace, indexFile: this.paths.indexFile })).trim() };
    }
    const previous = this.state.last;
    const changed = capture.tree !== previous;
    const changes = changed ? await diffTrees(this.git, previous ?? EMPTY_TREE, capture.tree) : [];
    if (changed) await keepSnapshot(this.paths, capture.tree);
    const nestedChanged = capture.nested.join("\0") !== this.state.nested.join("\0");
    const skippedChanged = JSON.stringify(skipped) !== JSON.stringify(this.state.skipped);
    if (changed || nestedChanged || skippedChanged) {
      this.state = { ...this.state, last: capture.tree, nested: capture.nested, skipped };
      await writeState(this.paths, this.state);
    }
    const { counts, ...summary } = summarize(changes);
    return {
      id: capture.tree,
      previous,
      changed,
      summary,
      counts,
      skipped: Object.entries(skipped).map(([p, bytes]) => ({ path: p, bytes })),
    };
  }

  /** Skipped files that shrank under the limit or went away are captured again. */
  private async recheckSkipped(max: number): Promise<Record<string, number>> {
    const skipped = { ...this.state.skipped };
    let dropped = false;
    for (const file of Object.keys(skipped)) {
      const stat = await fs.lstat(path.join(this.workspace, file)).catch(() => undefined);
      if (!stat || stat.size <= max) {
        delete skipped[file];
        dropped = true;
      } else skipped[file] = stat.size;
    }
    if (dropped) await writeExcludes(this.paths, this.options.excludes ?? [], Object.keys(skipped));
    return skipped;
  }

  private async findLarge(touched: readonly string[], max: number): Promise<{ path: string; bytes: number }[]> {
    const large: { path: string; bytes: number }[] = [];
    for (const file of touched) {
      const stat = await fs.lstat(path.join(this.workspace, file)).catch(() => undefined);
      if (stat?.isFile() && stat.size > max && !this.state.nested.some((n) => file.startsWith(`${n}/`))) large.push({ path: file, bytes: stat.size });
    }
    return large;
  }

  /** The file changes from snapshot `from` to snapshot `to`, with line counts. */
  diff(from: string, to: string): Promise<FileChange[]> {
    return this.serial(() => diffTrees(this.git, from, to, true));
  }

  /** A file's bytes in a snapshot, or undefined when the snapshot has no such file. */
  async readFile(id: string, file: string): Promise<Buffer | undefined> {
    const result = await this.git.run(["cat-file", "blob", `${id}:${file}`], { allowFailure: true });
    return result.code === 0 ? result.stdout : undefined;
  }

  /** Whether the snapshot is stored. */
  async has(id: string): Promise<boolean> {
    if (!/^[0-9a-f]{40}$/.test(id)) return false;
    const result = await this.git.run(["cat-file", "-t", id], { allowFailure: true });
    return result.code === 0 && result.stdout.toString("utf8").trim() === "tree";
  }

  /**
   * Plans making the workspace equal to snapshot `id`: snapshots the workspace first (the undo
   * point), then lists what would change, which of those paths have unsaved editors (`dirty`,
   * absolute or relative paths from the host), and what is left alone because it is ignored.
   */
  plan(id: string, dirty: readonly string[] = []): Promise<RestorePlan> {
    return this.serial(async () => {
      if (!(await this.has(id))) throw new Error(`There is no snapshot ${id} in this workspace's checkpoints.`);
      const before = await this.takeSnapshot();
      return planRestore(this.git, this.workspace, before.id, id, dirty);
    });
  }

  /**
   * Applies a plan. A failure midway puts back every file already written from the undo point and
   * reports which files failed. The report's `from` is the undo point (see `undo`).
   */
  apply(plan: RestorePlan): Promise<RestoreReport> {
    return this.serial(async () => {
      // A path the restore would write that changed while the user read the question: snapshot
      // again, so that edit is part of the undo point too. Other files the restore leaves alone.
      let current = plan;
      if (!(await stepsUnchanged(this.git, this.workspace, plan))) {
        const now = await this.takeSnapshot();
        current = await planRestore(this.git, this.workspace, now.id, plan.to, plan.unsaved);
      }
      const report = await applyRestore(this.git, this.workspace, current);
      if (report.ok) {
        // The workspace is the target now; the next snapshot finds it unchanged unless it changes.
        this.state = { ...this.state, last: current.to };
        await writeState(this.paths, this.state);
      }
      return report;
    });
  }

  /** Puts the workspace back as it was before `report`'s restore (itself undoable in turn). */
  async undo(report: Pick<RestoreReport, "from">, dirty: readonly string[] = []): Promise<RestoreReport> {
    return this.apply(await this.plan(report.from, dirty));
  }

  /**
   * Removes every snapshot not in `keep` (snapshots that no session refers to any more) and the
   * objects only they used. The last snapshot is always kept.
   */
  prune(keep: Iterable<string>): Promise<{ removed: number; bytesBefore: number; bytesAfter: number }> {
    return this.serial(async () => {
      const keepSet = new Set(keep);
      if (this.state.last) keepSet.add(this.state.last);
      const bytesBefore = await this.storageBytes();
      const refs = (await this.git.text(["for-each-ref", "--format=%(refname)", "refs/arbor/snapshots/"])).split("\n").filter((r) => r !== "");
      const drop = refs.filter((r) => !keepSet.has(r.slice(r.lastIndexOf("/") + 1)));
      if (drop.length > 0) await this.git.run(["update-ref", "--stdin"], { input: drop.map((r) => `delete ${r}\n`).join("") });
      await this.git.run(["gc", "--quiet", "--prune=now"], { workTree: this.workspace, indexFile: this.paths.indexFile });
      return { removed: drop.length, bytesBefore, bytesAfter: await this.storageBytes() };
    });
  }

  /** The ids of all stored snapshots. */
  async list(): Promise<string[]> {
    const refs = await this.git.text(["for-each-ref", "--format=%(refname)", "refs/arbor/snapshots/"]);
    return refs
      .split("\n")
      .filter((r) => r !== "")
      .map((r) => r.slice(r.lastIndexOf("/") + 1));
  }

  /** Bytes this workspace's checkpoints take on disk. */
  async storageBytes(): Promise<number> {
    return folderBytes(this.paths.root);
  }

  /** The ref that keeps a snapshot (for tools that look into the shadow repository). */
  static refOf(id: string): string {
    return snapshotRef(id);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else total += (await fs.lstat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
