import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { Git } from "./git";

/** Where one workspace folder's checkpoints live, all inside Arbor's storage. */
export interface ShadowPaths {
  /** The folder of this workspace's shadow repository. */
  root: string;
  /** GIT_DIR. */
  gitDir: string;
  /** The index of the workspace snapshot. */
  indexFile: string;
  /** Our excludes: the setting's patterns and the large files left out. */
  excludesFile: string;
  /** An empty folder for core.hooksPath. */
  hooksDir: string;
  /** What the store remembers between runs (state.json). */
  stateFile: string;
}

/** What the store remembers between runs. */
export interface ShadowState {
  version: 1;
  /** The last snapshot's tree. */
  last?: string;
  /** Nested repositories (folders with their own `.git`), relative, "/"-separated. */
  nested: string[];
  /** Files left out for their size: path → size in bytes when last seen. */
  skipped: Record<string, number>;
}

/** The empty tree's id (git's SHA-1 object format, which `git init` here always uses). */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/**
 * The shadow folder for a workspace folder: one per folder (by its real path), under
 * `<storage>/checkpoints/`, never inside the workspace.
 */
export function shadowPaths(storageDir: string, workspace: string): ShadowPaths {
  const key = createHash("sha256").update(path.resolve(workspace)).digest("hex").slice(0, 16);
  const root = path.join(storageDir, "checkpoints", key);
  return {
    root,
    gitDir: path.join(root, "git"),
    indexFile: path.join(root, "index"),
    excludesFile: path.join(root, "exclude"),
    hooksDir: path.join(root, "no-hooks"),
    stateFile: path.join(root, "state.json"),
  };
}

/**
 * Attributes that win over any `.gitattributes` in the workspace: stored bytes are the file's bytes
 * (no line-ending conversion, no filter, no ident expansion, no re-encoding), whatever it asks for.
 */
const NEUTRAL_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n";

/** Creates the shadow repository if it is not there; returns the seam that works in it. */
export async function openShadowRepo(paths: ShadowPaths, gitPath: string, workspace: string): Promise<Git> {
  const git = new Git({ gitPath, gitDir: paths.gitDir, hooksDir: paths.hooksDir, excludesFile: paths.excludesFile });
  await fs.mkdir(paths.hooksDir, { recursive: true });
  const exists = await fs.stat(path.join(paths.gitDir, "HEAD")).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await fs.mkdir(paths.gitDir, { recursive: true });
    // `init` with GIT_DIR set creates exactly that folder; no template (no sample hooks).
    await git.run(["init", "--quiet", "--bare", `--template=${paths.hooksDir}`, "--object-format=sha1"]);
    await git.run(["config", "core.bare", "false"]);
    await git.run(["config", "core.logAllRefUpdates", "false"]);
    await fs.writeFile(path.join(paths.root, "workspace.txt"), `${path.resolve(workspace)}\n`);
  }
  await fs.mkdir(path.join(paths.gitDir, "info"), { recursive: true });
  await fs.writeFile(path.join(paths.gitDir, "info", "attributes"), NEUTRAL_ATTRIBUTES);
  await fs.appendFile(paths.excludesFile, "");
  return git;
}

/** Reads the state; a missing or damaged file is a fresh start (the repository keeps the snapshots). */
export async function readState(paths: ShadowPaths): Promise<ShadowState> {
  try {
    const parsed = JSON.parse(await fs.readFile(paths.stateFile, "utf8")) as Partial<ShadowState>;
    return {
      version: 1,
      last: typeof parsed.last === "string" ? parsed.last : undefined,
      nested: Array.isArray(parsed.nested) ? parsed.nested.filter((n) => typeof n === "string") : [],
      skipped: parsed.skipped && typeof parsed.skipped === "object" ? parsed.skipped : {},
    };
  } catch {
    return { version: 1, nested: [], skipped: {} };
  }
}

/** Writes the state through a temp file, so a crash leaves the old one or the new one. */
export async function writeState(paths: ShadowPaths, state: ShadowState): Promise<void> {
  const temp = `${paths.stateFile}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(state));
  await fs.rename(temp, paths.stateFile);
}

/** The excludes file: the setting's patterns, then each skipped large file anchored to the root. */
export async function writeExcludes(paths: ShadowPaths, patterns: readonly string[], skipped: readonly string[]): Promise<void> {
  const lines = ["# Written by Arbor: what checkpoints leave out besides .gitignore.", ...patterns, ...skipped.map((p) => `/${escapePattern(p)}`)];
  await fs.writeFile(paths.excludesFile, `${lines.join("\n")}\n`);
}

/** A path as a gitignore pattern that matches only itself. */
function escapePattern(p: string): string {
  return p.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`);
}

/** The id of a snapshot is its tree; a ref per snapshot keeps it from git's pruning. */
export function snapshotRef(tree: string): string {
  return `refs/arbor/snapshots/${tree}`;
}

/**
 * Keeps a snapshot by writing its ref as a loose ref file (what `update-ref` would write for a new
 * ref in the files backend), which spares a git run on every turn.
 */
export async function keepSnapshot(paths: ShadowPaths, tree: string): Promise<void> {
  const file = path.join(paths.gitDir, ...snapshotRef(tree).split("/"));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${tree}\n`);
}
