import { promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import * as path from "node:path";
import type { Git } from "./git";

/** What one capture of a folder into an index found. */
export interface CaptureResult {
  /** The tree of the folder as it is now. */
  tree: string;
  /** Paths `git add` staged (new or changed) or removed, relative to the folder. */
  touched: string[];
  /** Nested repositories found (relative, "/"-separated), including ones already known. */
  nested: string[];
}

/** Parses `git add -v` output: "add 'p'" and "remove 'p'" lines. */
function parseAdded(stdout: string): { paths: string[]; gitlinks: string[] } {
  const paths: string[] = [];
  const gitlinks: string[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^(?:add|remove) '(.*)'$/.exec(line);
    if (!m) continue;
    // A nested repository is staged as a gitlink, which git prints with a trailing slash.
    if (m[1].endsWith("/")) gitlinks.push(m[1].slice(0, -1));
    else paths.push(m[1]);
  }
  return { paths, gitlinks };
}

/** Nested repositories git refused to stage because they have no commit yet. */
function parseUncommitted(stderr: string): string[] {
  const found: string[] = [];
  for (const m of stderr.matchAll(/^error: '(.*)\/' does not have a commit checked out$/gm)) found.push(m[1]);
  return found;
}

function excludePathspec(p: string): string {
  return `:(exclude,literal)${p}`;
}

async function hasGit(dir: string): Promise<boolean> {
  return fs.lstat(path.join(dir, ".git")).then(
    () => true,
    () => false,
  );
}

/**
 * Captures the folder `workTree` into `indexFile` and writes its tree. Files inside nested
 * repositories are captured too, as plain files: git would only record a nested repository as a
 * link to a commit the shadow repository does not have, so each nested one is captured into an
 * index of its own (recursively) and its tree grafted in under its folder. The nested `.git`
 * folders themselves are never read as repositories, renamed or written.
 */
export async function captureFolder(git: Git, workTree: string, indexFile: string, knownNested: readonly string[], depth = 0): Promise<CaptureResult> {
  let nested = [...knownNested];
  // Nested repositories that are gone (or lost their .git) are captured as plain folders again.
  const still = await Promise.all(nested.map((n) => hasGit(path.join(workTree, n))));
  for (const [i, n] of nested.entries()) if (!still[i]) await dropNested(indexFile, n);
  nested = nested.filter((_, i) => still[i]);
  const touched: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const args = ["add", "--all", "--verbose", "--ignore-errors", "--", ".", ...nested.map(excludePathspec)];
    const result = await git.run(args, { workTree, indexFile, allowFailure: true });
    const { paths, gitlinks } = parseAdded(result.stdout.toString("utf8"));
    const found = [...gitlinks, ...parseUncommitted(result.stderr)].filter((n) => !nested.includes(n));
    touched.push(...paths);
    if (result.code !== 0 && found.length === 0) {
      throw new Error(`git add failed: ${result.stderr.trim().split("\n").slice(-3).join(" ")}`);
    }
    if (found.length === 0) break;
    if (attempt > 3) throw new Error(`nested repositories keep appearing: ${found.join(", ")}`);
    nested.push(...found);
    // The gitlinks git just staged give way to the nested folders' own files below.
    await git.run(["rm", "--cached", "-f", "-r", "-q", "--ignore-unmatch", "--", ...gitlinks], { workTree, indexFile });
  }
  for (const sub of nested) {
    touched.push(...(await graftNested(git, workTree, indexFile, sub, depth)));
  }
  const tree = (await git.text(["write-tree"], { workTree, indexFile })).trim();
  return { tree, touched, nested: nested.sort() };
}

/** Captures one nested repository's files and puts them into the outer index under its folder. */
async function graftNested(git: Git, workTree: string, indexFile: string, sub: string, depth: number): Promise<string[]> {
  if (depth > 8) return [];
  const subIndex = nestedIndex(indexFile, sub);
  const inner = await captureFolder(git, path.join(workTree, ...sub.split("/")), subIndex, await readNestedList(subIndex), depth + 1);
  await fs.writeFile(`${subIndex}.nested.json`, JSON.stringify(inner.nested));
  // Unchanged since the last graft: the outer index already holds exactly these entries.
  const grafted = await fs.readFile(`${subIndex}.grafted`, "utf8").catch(() => "");
  if (grafted === inner.tree) return [];
  await git.run(["rm", "--cached", "-f", "-r", "-q", "--ignore-unmatch", "--", sub], { workTree, indexFile });
  await git.run(["read-tree", `--prefix=${sub}/`, inner.tree], { workTree, indexFile });
  await fs.writeFile(`${subIndex}.grafted`, inner.tree);
  return inner.touched.map((p) => `${sub}/${p}`);
}

/** The index file of a nested repository's capture, beside the outer one. */
function nestedIndex(indexFile: string, sub: string): string {
  return `${indexFile}.nested-${createHash("sha1").update(sub).digest("hex").slice(0, 16)}`;
}

/** Forgets a nested repository's capture (it became a plain folder, or went away). */
async function dropNested(indexFile: string, sub: string): Promise<void> {
  const base = nestedIndex(indexFile, sub);
  await Promise.all([base, `${base}.nested.json`, `${base}.grafted`].map((f) => fs.rm(f, { force: true })));
}

async function readNestedList(subIndex: string): Promise<string[]> {
  try {
    const list = JSON.parse(await fs.readFile(`${subIndex}.nested.json`, "utf8")) as unknown;
    return Array.isArray(list) ? list.filter((n): n is string => typeof n === "string") : [];
  } catch {
    return [];
  }
}
