/**
 * "Fork with its files, into a new git worktree", the core: real git on temporary repositories. The
 * worktree holds the snapshot's files exactly (deletions relative to HEAD, binary files, symlinks,
 * the executable bit), and the user's repository changes by the new worktree and branch only.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { branchNameProblem, CheckpointStore, defaultBranchName, findUserRepo, forkIntoWorktree, UserRepoGit, worktreeFolderFor, type UserRepo } from "../../src/core/checkpoints";
import { describeTree, fingerprint, makeUserRepo, userGit, writeFiles } from "../support/checkpoint-fixtures";
import { makeTempDir } from "../support/temp-dir";

/** `.git` as it was, without what a new worktree on `branch` adds (its admin folder, the branch and its log). */
function withoutNewWorktree(print: Record<string, string>, branch: string): Record<string, string> {
  const added = [`refs/heads/${branch}`, `logs/refs/heads/${branch}`];
  const parentsOf = (p: string) => p.split("/").slice(0, -1).map((_, i, a) => `${a.slice(0, i + 1).join("/")}/`);
  const addedFolders = new Set(["worktrees/", ...added.flatMap(parentsOf).filter((f) => !["refs/", "refs/heads/", "logs/", "logs/refs/", "logs/refs/heads/"].includes(f))]);
  return Object.fromEntries(Object.entries(print).filter(([p]) => !p.startsWith("worktrees/") && !added.includes(p) && !addedFolders.has(p)));
}

describe("checkpoints: fork into a new git worktree", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let ws: string;
  let marker: string;
  let store: CheckpointStore;
  let git: UserRepoGit;
  beforeEach(async () => {
    tmp = makeTempDir("arbor-wtfork-");
    ws = path.join(tmp.dir, "project");
    marker = path.join(tmp.dir, "hook-ran");
    makeUserRepo(ws, marker);
    store = await CheckpointStore.open({ gitPath: "git", storageDir: path.join(tmp.dir, "storage"), workspace: ws, excludes: ["*.secret"] });
    git = new UserRepoGit("git", store.paths.hooksDir);
  });
  afterEach(() => tmp.cleanup());

  const file = (rel: string) => path.join(ws, rel);
  async function repo(folder = ws): Promise<UserRepo> {
    const found = await findUserRepo(git, folder);
    assert.ok(found, "the folder is in a repository with a commit");
    return found;
  }

  it("writes the entry's files into a new worktree on a new branch; the user's repository and work tree stay as they were", async () => {
    // A file HEAD tracks although it is ignored (added with -f): the snapshot leaves it out, the fork keeps HEAD's.
    writeFiles(ws, { "build/tracked.txt": "forced into the repository\n" });
    userGit(ws, "add", "-f", "build/tracked.txt");
    userGit(ws, "commit", "-q", "-m", "second");
    // The entry's state: changes, a deletion relative to HEAD, binary, symlinks, the executable bit, an ignored file.
    writeFiles(ws, { "README.md": "hello, at the entry\n", "new/deep/file.txt": "created\n", "bin.dat": Buffer.from([0, 1, 2, 255, 0, 10, 13]), "tool.sh": "#!/bin/sh\necho hi\n", "debug.log": "ignored\n", "key.secret": "excluded by the setting\n" });
    fs.chmodSync(file("tool.sh"), 0o755);
    fs.symlinkSync("README.md", file("link-inside"));
    fs.symlinkSync(path.join(tmp.dir, "outside.txt"), file("link-outside"));
    fs.unlinkSync(file("src/app.js"));
    const atEntry = await store.snapshot();
    const expected = describeTree(ws);
    delete expected["debug.log"];
    delete expected["key.secret"];
    // The user goes on working: the fork takes the entry's files, not these.
    writeFiles(ws, { "README.md": "hello, later\n", "later.txt": "later\n" });
    const userTreeBefore = describeTree(ws);
    const gitBefore = fingerprint(path.join(ws, ".git"));
    const r = await repo();
    const headBefore = r.head;
    // The test's own commits above ran the repository's hooks; from here on nothing may.
    fs.rmSync(marker, { force: true });

    const branch = await defaultBranchName(git, r, "Try the other way", "a1b2c3d4e5");
    assert.equal(branch, "arbor/try-the-other-way-a1b2c3d4");
    const root = await worktreeFolderFor(r, branch);
    assert.equal(root, path.join(tmp.dir, "project-try-the-other-way-a1b2c3d4"));
    const made = await forkIntoWorktree({ git, repo: r, store, snapshot: atEntry.id, branch, root });

    assert.equal(fs.existsSync(marker), false, "no hook and no fsmonitor program ran");
    assert.equal(made.folder, root);
    assert.deepEqual(describeTree(root), expected, "the worktree holds exactly the entry's files");
    assert.equal(fs.readlinkSync(path.join(root, "link-outside")), path.join(tmp.dir, "outside.txt"), "a link pointing outside stays a link");
    assert.equal(fs.statSync(path.join(root, "tool.sh")).mode & 0o111, 0o111, "the executable bit");
    assert.equal(fs.existsSync(path.join(root, "src/app.js")), false, "deleted at the entry, deleted in the fork");
    assert.equal(fs.readFileSync(path.join(root, "build/tracked.txt"), "utf8"), "forced into the repository\n", "HEAD's ignored file is kept");
    assert.equal(made.fromHead, 1);
    assert.equal(userGit(root, "rev-parse", "--abbrev-ref", "HEAD").trim(), branch);
    assert.equal(userGit(root, "rev-parse", "HEAD").trim(), headBefore);
    const status = userGit(root, "-c", "core.fsmonitor=false", "status", "--porcelain", "--untracked-files=all").split("\n").filter(Boolean).sort();
    assert.deepEqual(status, [" D src/app.js", " M README.md", "?? bin.dat", "?? link-inside", "?? link-outside", "?? new/deep/file.txt", "?? tool.sh"], "the worktree's index is HEAD: git status shows what the fork carries");

    assert.deepEqual(describeTree(ws), userTreeBefore, "the user's work tree is untouched");
    assert.deepEqual(withoutNewWorktree(fingerprint(path.join(ws, ".git")), branch), gitBefore, "HEAD, index, refs, stash, config: byte for byte as before");
    assert.equal(userGit(ws, "rev-parse", "HEAD").trim(), headBefore);
    assert.deepEqual(userGit(ws, "worktree", "list", "--porcelain").split("\n").filter((l) => l.startsWith("worktree ")), [`worktree ${ws}`, `worktree ${root}`]);
  });

  it("gives a branch and a folder that do not exist yet, and says why a typed name cannot be used", async () => {
    const r = await repo();
    userGit(ws, "branch", "arbor/fork-e1");
    fs.mkdirSync(path.join(tmp.dir, "project-fork-e1"));
    const branch = await defaultBranchName(git, r, undefined, "e1");
    assert.equal(branch, "arbor/fork-e1-2");
    assert.equal(await worktreeFolderFor(r, "arbor/fork-e1"), path.join(tmp.dir, "project-fork-e1-2"));
    assert.match((await branchNameProblem(git, r, "feature")) ?? "", /already exists/);
    assert.match((await branchNameProblem(git, r, "a..b")) ?? "", /not a valid branch name/);
    assert.match((await branchNameProblem(git, r, "-x")) ?? "", /cannot start with '-'/);
    assert.match((await branchNameProblem(git, r, "")) ?? "", /cannot be empty/);
    assert.equal(await branchNameProblem(git, r, "arbor/new-idea"), undefined);
    // A fork into a folder taken meanwhile, or with a branch that exists, is refused before git runs.
    const snap = await store.snapshot();
    const taken = path.join(tmp.dir, "taken");
    writeFiles(taken, { "x.txt": "x\n" });
    await assert.rejects(forkIntoWorktree({ git, repo: r, store, snapshot: snap.id, branch: "arbor/taken", root: taken }), /already exists/);
    assert.equal(userGit(ws, "branch", "--list", "arbor/taken").trim(), "");
    await assert.rejects(forkIntoWorktree({ git, repo: r, store, snapshot: snap.id, branch: "feature", root: path.join(tmp.dir, "free") }), /already exists/);
    assert.equal(fs.existsSync(path.join(tmp.dir, "free")), false);
    await assert.rejects(forkIntoWorktree({ git, repo: r, store, snapshot: "0".repeat(40), branch: "arbor/none", root: path.join(tmp.dir, "none") }), /no snapshot/);
    assert.equal(userGit(ws, "branch", "--list", "arbor/none").trim(), "");
  });

  it("a workspace folder inside the repository: its files from the snapshot, the rest of the repository from HEAD", async () => {
    const sub = path.join(ws, "src");
    const subStore = await CheckpointStore.open({ gitPath: "git", storageDir: path.join(tmp.dir, "storage"), workspace: sub });
    writeFiles(sub, { "app.js": "console.log('entry');\n", "extra.js": "extra\n" });
    const snap = await subStore.snapshot();
    const r = await repo(sub);
    assert.equal(r.prefix, "src");
    const root = await worktreeFolderFor(r, "arbor/sub");
    const made = await forkIntoWorktree({ git, repo: r, store: subStore, snapshot: snap.id, branch: "arbor/sub", root });
    assert.equal(made.folder, path.join(root, "src"));
    assert.deepEqual(describeTree(made.folder), describeTree(sub));
    assert.equal(fs.readFileSync(path.join(root, "README.md"), "utf8"), "hello\n", "outside the workspace folder: HEAD's files");
  });

  it("finds no repository outside git or without a commit", async () => {
    const plain = path.join(tmp.dir, "plain");
    fs.mkdirSync(plain);
    assert.equal(await findUserRepo(git, plain), undefined);
    const empty = path.join(tmp.dir, "empty");
    fs.mkdirSync(empty);
    userGit(empty, "init", "-q");
    assert.equal(await findUserRepo(git, empty), undefined);
  });
});
