import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import type { CheckpointStore } from "./checkpoint-store";
import { Git, splitNul } from "./git";
import { branchNameProblem, type UserRepo, type UserRepoGit } from "./user-repo";

/** A worktree made for a fork: where it is and what it checked out. */
export interface ForkWorktree {
  /** The new worktree's top folder. */
  root: string;
  /** Where the workspace folder's files went: `root` joined with the repository prefix. */
  folder: string;
  branch: string;
  /** Files of HEAD the snapshot left out because they are ignored there, taken from HEAD instead. */
  fromHead: number;
}

/**
 * Makes a new worktree on a new branch at the repository's HEAD, then writes the snapshot's files
 * into it: the workspace folder's files as they were at the snapshot (changed, created and deleted
 * files relative to HEAD, binary files, symlinks as links, the executable bit), the rest of the
 * repository (outside the workspace folder) and HEAD's files the snapshot ignores as HEAD has them.
 * The worktree's index is HEAD, so `git status` there shows what the fork carries.
 *
 * In the user's repository this adds the worktree's administrative folder and the branch, and
 * nothing else: no checkout in the current work tree, no index, stash, config or other ref change,
 * no hook (`--no-checkout` runs no post-checkout; the hooks folder is empty). A failure removes the
 * worktree and the branch again.
 */
export async function forkIntoWorktree(options: { git: UserRepoGit; repo: UserRepo; store: CheckpointStore; snapshot: string; branch: string; root: string }): Promise<ForkWorktree> {
  const { git, repo, store, snapshot, branch, root } = options;
  if (!(await store.has(snapshot))) throw new Error(`There is no snapshot ${snapshot} in this workspace's checkpoints.`);
  const problem = await branchNameProblem(git, repo, branch);
  if (problem) throw new Error(problem);
  if (await exists(root)) throw new Error(`The folder ${root} already exists; the worktree needs a new one.`);
  try {
    await git.run(repo.toplevel, ["worktree", "add", "--quiet", "--no-checkout", "-b", branch, "--", root, repo.head]);
    const fromHead = await materialise(git, repo, store, snapshot, root);
    return { root, folder: repo.prefix ? path.join(root, ...repo.prefix.split("/")) : root, branch, fromHead };
  } catch (error) {
    await removeWorktree(git, repo, root, branch);
    throw error;
  }
}

/** Undoes `forkIntoWorktree`: the worktree folder, its administrative folder and the branch. */
export async function removeWorktree(git: UserRepoGit, repo: UserRepo, root: string, branch: string): Promise<void> {
  await git.run(repo.toplevel, ["worktree", "remove", "--force", "--force", "--", root], { allowFailure: true });
  await fs.rm(root, { recursive: true, force: true });
  await git.run(repo.toplevel, ["worktree", "prune"], { allowFailure: true });
  await git.run(repo.toplevel, ["branch", "-D", "--", branch], { allowFailure: true });
}

/** The shadow repository's git with the worktree's folder as its work tree. */
function shadowGit(store: CheckpointStore, gitPath: string): Git {
  return new Git({ gitPath, gitDir: store.paths.gitDir, hooksDir: store.paths.hooksDir, excludesFile: store.paths.excludesFile });
}

async function materialise(git: UserRepoGit, repo: UserRepo, store: CheckpointStore, snapshot: string, root: string): Promise<number> {
  const folder = repo.prefix ? path.join(root, ...repo.prefix.split("/")) : root;
  await fs.mkdir(folder, { recursive: true });
  // The snapshot's files, written by git from the shadow repository through an index of their own.
  const shadow = shadowGit(store, git.gitPath);
  const index = path.join(store.paths.root, `fork-index-${randomBytes(6).toString("hex")}`);
  try {
    await shadow.run(["read-tree", snapshot], { indexFile: index, workTree: folder });
    await shadow.run(["checkout-index", "--all", "--force"], { indexFile: index, workTree: folder });
  } finally {
    await fs.rm(index, { force: true });
  }
  // The worktree's own index (in its administrative folder) holds HEAD: the fork's changes show as changes.
  await git.run(root, ["read-tree", "HEAD"]);
  const fromHead = await headFilesToKeep(git, shadow, repo, snapshot, root, folder);
  if (fromHead.length > 0) await git.run(root, ["checkout-index", "--force", "-z", "--stdin"], { input: fromHead.map((p) => `${p}\0`).join("") });
  await git.run(root, ["update-index", "-q", "--refresh"], { allowFailure: true });
  return fromHead.length;
}

/**
 * HEAD's paths the fork takes from HEAD: those outside the workspace folder (not the snapshot's
 * business) and those the snapshot leaves out because they are ignored (by the snapshot's own
 * `.gitignore` files or Arbor's excludes). HEAD's other paths missing from the snapshot were
 * deleted at that point and stay deleted.
 */
async function headFilesToKeep(git: UserRepoGit, shadow: Git, repo: UserRepo, snapshot: string, root: string, folder: string): Promise<string[]> {
  const head = splitNul((await git.run(root, ["ls-files", "-z"])).stdout);
  const inSnapshot = new Set(splitNul((await shadow.run(["ls-tree", "-r", "-z", "--name-only", "--full-tree", snapshot])).stdout));
  const snapshotFolders = new Set<string>();
  for (const p of inSnapshot) for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) snapshotFolders.add(p.slice(0, i));
  const keep: string[] = [];
  const missing: { head: string; rel: string }[] = [];
  const under = repo.prefix ? `${repo.prefix}/` : "";
  for (const p of head) {
    if (!p.startsWith(under)) {
      keep.push(p);
      continue;
    }
    const rel = p.slice(under.length);
    if (inSnapshot.has(rel) || snapshotFolders.has(rel)) continue;
    // A file where the snapshot has a file at one of its parent folders cannot be written.
    if (parents(rel).some((f) => inSnapshot.has(f))) continue;
    missing.push({ head: p, rel });
  }
  if (missing.length === 0) return keep;
  const ignored = new Set(
    splitNul((await shadow.run(["check-ignore", "--no-index", "-z", "--stdin"], { workTree: folder, input: missing.map((m) => `${m.rel}\0`).join(""), allowFailure: true })).stdout),
  );
  for (const m of missing) if (ignored.has(m.rel)) keep.push(m.head);
  return keep;
}

function parents(rel: string): string[] {
  const out: string[] = [];
  for (let i = rel.indexOf("/"); i >= 0; i = rel.indexOf("/", i + 1)) out.push(rel.slice(0, i));
  return out;
}

function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}
