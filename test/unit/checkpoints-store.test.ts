/**
 * Checkpoints, the store: real git on temporary workspaces. Every kind of change a turn can make is
 * snapshotted and restored byte for byte; the workspace's own repository is left exactly as it was.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { CheckpointStore, describeRestore } from "../../src/core/checkpoints";
import { spawnSync } from "node:child_process";
import { describeTree, fingerprint, makeUserRepo, userGit, writeFiles } from "../support/checkpoint-fixtures";
import { fillUp, mountTmpfs, unmount } from "../support/fs-faults";
import { makeTempDir } from "../support/temp-dir";

describe("checkpoints: store", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let ws: string;
  let storage: string;
  let marker: string;
  let store: CheckpointStore;
  beforeEach(async () => {
    tmp = makeTempDir("arbor-ckpt-");
    ws = path.join(tmp.dir, "ws");
    storage = path.join(tmp.dir, "storage");
    marker = path.join(tmp.dir, "hook-ran");
    makeUserRepo(ws, marker);
    store = await CheckpointStore.open({ gitPath: "git", storageDir: storage, workspace: ws, maxFileBytes: 64 * 1024, excludes: ["*.secret"] });
  });
  afterEach(() => tmp.cleanup());

  const file = (rel: string) => path.join(ws, rel);
  async function restore(id: string, dirty: string[] = []) {
    const plan = await store.plan(id, dirty);
    return { plan, report: await store.apply(plan) };
  }

  it("keeps the shadow repository in the storage folder, none in the workspace", async () => {
    await store.snapshot();
    assert.ok(store.paths.gitDir.startsWith(storage));
    assert.deepEqual(fs.readdirSync(ws).sort(), [".git", ".gitignore", "README.md", "src"]);
    assert.ok(fs.existsSync(path.join(store.paths.gitDir, "HEAD")));
  });

  it("snapshots writes, deletes, renames, mode changes, symlinks and binary files, and restores each", async () => {
    fs.symlinkSync("README.md", file("link-inside"));
    writeFiles(ws, { "bin.dat": Buffer.from([0, 1, 2, 255, 0, 10, 13]), "tool.sh": "#!/bin/sh\necho hi\n", "old-name.txt": "rename me\n" });
    const a = await store.snapshot();
    const atA = describeTree(ws);

    writeFiles(ws, { "README.md": "hello, changed\n", "new/deep/file.txt": "created\n", "bin.dat": Buffer.from([9, 9, 0, 9]) });
    fs.unlinkSync(file("src/app.js"));
    fs.renameSync(file("old-name.txt"), file("new-name.txt"));
    fs.chmodSync(file("tool.sh"), 0o755);
    fs.unlinkSync(file("link-inside"));
    fs.symlinkSync("new-name.txt", file("link-inside"));
    fs.symlinkSync(path.join(tmp.dir, "outside.txt"), file("link-outside"));
    fs.writeFileSync(path.join(tmp.dir, "outside.txt"), "outside\n");
    const b = await store.snapshot();
    assert.equal(b.changed, true);
    assert.deepEqual(b.summary.added.sort(), ["link-outside", "new-name.txt", "new/deep/file.txt"]);
    assert.deepEqual(b.summary.deleted.sort(), ["old-name.txt", "src/app.js"]);
    assert.deepEqual(b.summary.modified.sort(), ["README.md", "bin.dat", "link-inside", "tool.sh"]);
    const atB = describeTree(ws);

    const { plan, report } = await restore(a.id);
    assert.equal(report.ok, true);
    assert.deepEqual(plan.counts, { changed: 4, removed: 3, back: 2 });
    assert.equal(describeRestore(plan.counts), "Restored 9 files: 4 changed, 3 removed, 2 back");
    assert.deepEqual(describeTree(ws), atA);
    assert.equal(fs.existsSync(file("new")), false, "folders left empty by the restore are removed");
    assert.equal(fs.readFileSync(path.join(tmp.dir, "outside.txt"), "utf8"), "outside\n", "a link's target outside is not touched");

    await restore(b.id);
    assert.deepEqual(describeTree(ws), atB);
    assert.equal(fs.readlinkSync(file("link-outside")), path.join(tmp.dir, "outside.txt"), "the link is a link again");
    assert.equal(fs.statSync(file("tool.sh")).mode & 0o111, 0o111, "the executable bit is back");
  });

  it("never touches the workspace's repository: HEAD, refs, index, stash, config and hooks", async () => {
    const before = fingerprint(path.join(ws, ".git"));
    const log = userGit(ws, "log", "--all", "--format=%H %D");
    const stash = userGit(ws, "stash", "list");
    const a = await store.snapshot();
    writeFiles(ws, { "src/app.js": "console.log(4);\n", "x.txt": "x\n" });
    await store.snapshot();
    await restore(a.id);
    await store.diff(a.id, (await store.snapshot()).id);
    await store.prune([a.id]);
    assert.deepEqual(fingerprint(path.join(ws, ".git")), before);
    assert.equal(userGit(ws, "log", "--all", "--format=%H %D"), log);
    assert.equal(userGit(ws, "stash", "list"), stash);
    assert.equal(fs.existsSync(marker), false, "no hook and no fsmonitor of the user's ran");
  });

  it("ignores the user's global config and GIT_* variables (no fsmonitor, no other repository)", async () => {
    const global = path.join(tmp.dir, "global.gitconfig");
    fs.writeFileSync(global, `[core]\n\tfsmonitor = ${path.join(ws, ".git", "hooks", "pre-commit")}\n\tautocrlf = true\n`);
    const saved = { ...process.env };
    process.env.GIT_CONFIG_GLOBAL = global;
    process.env.GIT_DIR = path.join(ws, ".git");
    process.env.GIT_INDEX_FILE = path.join(ws, ".git", "index");
    try {
      const before = fingerprint(path.join(ws, ".git"));
      writeFiles(ws, { "crlf.txt": "a\r\nb\n" });
      const snap = await store.snapshot();
      assert.deepEqual(fingerprint(path.join(ws, ".git")), before);
      assert.equal((await store.readFile(snap.id, "crlf.txt"))?.toString("utf8"), "a\r\nb\n");
    } finally {
      process.env = saved;
    }
    assert.equal(fs.existsSync(marker), false);
  });

  it("stores the bytes of a file whatever .gitattributes asks for", async () => {
    writeFiles(ws, { ".gitattributes": "* text eol=crlf\n*.txt filter=lfs ident\n", "a.txt": "$Id$\nline\n", "b.md": "one\ntwo\r\n" });
    const a = await store.snapshot();
    assert.equal((await store.readFile(a.id, "a.txt"))?.toString("utf8"), "$Id$\nline\n");
    writeFiles(ws, { "a.txt": "other\n", "b.md": "other\n" });
    await restore(a.id);
    assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "$Id$\nline\n");
    assert.equal(fs.readFileSync(file("b.md"), "utf8"), "one\ntwo\r\n");
  });

  it("reports an unchanged workspace as unchanged, with the same id", async () => {
    const a = await store.snapshot();
    const b = await store.snapshot();
    assert.equal(b.changed, false);
    assert.equal(b.id, a.id);
    assert.deepEqual(b.counts, { added: 0, modified: 0, deleted: 0 });
  });

  it("never touches ignored files: neither the .gitignore's nor the setting's", async () => {
    writeFiles(ws, { "debug.log": "log 1\n", "build/out.js": "built 1\n", "key.secret": "s1\n", "kept.txt": "k1\n" });
    const a = await store.snapshot();
    assert.equal(await store.readFile(a.id, "debug.log"), undefined);
    assert.equal(await store.readFile(a.id, "key.secret"), undefined);
    writeFiles(ws, { "debug.log": "log 2\n", "build/out.js": "built 2\n", "key.secret": "s2\n", "kept.txt": "k2\n" });
    await store.snapshot();
    await restore(a.id);
    assert.equal(fs.readFileSync(file("kept.txt"), "utf8"), "k1\n");
    assert.equal(fs.readFileSync(file("debug.log"), "utf8"), "log 2\n");
    assert.equal(fs.readFileSync(file("build/out.js"), "utf8"), "built 2\n");
    assert.equal(fs.readFileSync(file("key.secret"), "utf8"), "s2\n");
  });

  it("leaves alone a file the snapshot has but that is ignored now, and says so", async () => {
    writeFiles(ws, { "notes.tmp": "in the snapshot\n" });
    const a = await store.snapshot();
    fs.unlinkSync(file("notes.tmp"));
    writeFiles(ws, { ".gitignore": "*.log\nbuild/\n*.tmp\n" });
    await store.snapshot();
    writeFiles(ws, { "notes.tmp": "ignored now\n" });
    const { plan } = await restore(a.id);
    assert.deepEqual(plan.ignored, ["notes.tmp"]);
    assert.equal(fs.readFileSync(file("notes.tmp"), "utf8"), "ignored now\n");
  });

  it("captures nested repositories' files without touching their .git, with or without a commit", async () => {
    const committed = path.join(ws, "libs", "done");
    fs.mkdirSync(committed, { recursive: true });
    userGit(committed, "init", "-q");
    writeFiles(committed, { "a.txt": "a1\n", ".gitignore": "*.o\n", "x.o": "object\n" });
    userGit(committed, "add", "-A");
    userGit(committed, "commit", "-q", "-m", "c");
    const fresh = path.join(ws, "fresh");
    fs.mkdirSync(fresh);
    userGit(fresh, "init", "-q");
    writeFiles(fresh, { "f.txt": "f1\n" });
    const nestedBefore = [fingerprint(path.join(committed, ".git")), fingerprint(path.join(fresh, ".git"))];

    const a = await store.snapshot();
    assert.equal((await store.readFile(a.id, "libs/done/a.txt"))?.toString(), "a1\n");
    assert.equal((await store.readFile(a.id, "fresh/f.txt"))?.toString(), "f1\n");
    assert.equal(await store.readFile(a.id, "libs/done/x.o"), undefined, "the nested .gitignore holds");
    writeFiles(ws, { "libs/done/a.txt": "a2\n", "fresh/g.txt": "g\n" });
    fs.unlinkSync(path.join(fresh, "f.txt"));
    const b = await store.snapshot();
    assert.deepEqual(b.summary.modified, ["libs/done/a.txt"]);
    assert.deepEqual(b.summary.added, ["fresh/g.txt"]);
    assert.deepEqual(b.summary.deleted, ["fresh/f.txt"]);
    assert.equal((await store.snapshot()).changed, false, "nested files unchanged: no change");

    await restore(a.id);
    assert.equal(fs.readFileSync(path.join(committed, "a.txt"), "utf8"), "a1\n");
    assert.equal(fs.readFileSync(path.join(fresh, "f.txt"), "utf8"), "f1\n");
    assert.equal(fs.existsSync(path.join(fresh, "g.txt")), false);
    assert.deepEqual([fingerprint(path.join(committed, ".git")), fingerprint(path.join(fresh, ".git"))], nestedBefore);
    assert.ok(fs.existsSync(path.join(committed, ".git")) && fs.existsSync(path.join(fresh, ".git")), "nothing renamed");
  });

  it("leaves out files over the size limit, says so, and never touches them on restore", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "big.bin": Buffer.alloc(100 * 1024, 7), "small.txt": "s\n" });
    const b = await store.snapshot();
    assert.deepEqual(b.skipped, [{ path: "big.bin", bytes: 100 * 1024 }]);
    assert.equal(await store.readFile(b.id, "big.bin"), undefined);
    assert.deepEqual(b.summary.added, ["small.txt"]);
    await restore(a.id);
    assert.equal(fs.existsSync(file("small.txt")), false);
    assert.equal(fs.statSync(file("big.bin")).size, 100 * 1024, "the skipped file is left alone");
    fs.truncateSync(file("big.bin"), 10);
    const c = await store.snapshot();
    assert.deepEqual(c.skipped, []);
    assert.deepEqual(c.summary.added, ["big.bin"], "under the limit again, it is captured");
  });

  it("names the unsaved files among those a restore would change", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "README.md": "edited\n", "other.txt": "o\n" });
    const plan = await store.plan(a.id, [file("README.md"), file("untouched-by-restore.txt"), "other.txt"]);
    assert.deepEqual(plan.unsaved.sort(), ["README.md", "other.txt"]);
  });

  it("undo puts back the state from before the restore, including edits never snapshotted", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "README.md": "work in progress\n", "fresh.txt": "fresh\n" });
    const before = describeTree(ws);
    const { report } = await restore(a.id);
    assert.equal(fs.readFileSync(file("README.md"), "utf8"), "hello\n");
    const undone = await store.undo(report);
    assert.equal(undone.ok, true);
    assert.deepEqual(describeTree(ws), before);
  });

  it("an edit made between plan and apply to a file the restore writes is kept in the undo point", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "README.md": "planned over\n" });
    const plan = await store.plan(a.id);
    writeFiles(ws, { "README.md": "typed while the question was open\n" });
    const report = await store.apply(plan);
    assert.equal(fs.readFileSync(file("README.md"), "utf8"), "hello\n");
    assert.equal((await store.readFile(report.from, "README.md"))?.toString(), "typed while the question was open\n");
    await store.undo(report);
    assert.equal(fs.readFileSync(file("README.md"), "utf8"), "typed while the question was open\n");
  });

  it("lists added, modified and deleted files with line counts", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "README.md": "hello\nmore\nlines\n", "img.bin": Buffer.from([0, 0, 1]) });
    fs.unlinkSync(file("src/app.js"));
    const b = await store.snapshot();
    const changes = await store.diff(a.id, b.id);
    const byPath = Object.fromEntries(changes.map((c) => [c.path, [c.kind, c.linesAdded, c.linesDeleted]]));
    assert.deepEqual(byPath, { "README.md": ["modified", 2, 0], "img.bin": ["added", undefined, undefined], "src/app.js": ["deleted", 0, 1] });
  });

  it("prunes snapshots no session refers to and keeps the others restorable", async () => {
    const a = await store.snapshot();
    writeFiles(ws, { "big-ish.txt": "x".repeat(50_000) });
    const b = await store.snapshot();
    writeFiles(ws, { "big-ish.txt": "y".repeat(50_000) });
    const c = await store.snapshot();
    assert.deepEqual((await store.list()).sort(), [a.id, b.id, c.id].sort());
    const result = await store.prune([a.id]);
    assert.equal(result.removed, 1, "b goes; a is kept and c is the last");
    assert.equal(await store.has(b.id), false);
    assert.ok(result.bytesAfter > 0);
    await restore(a.id);
    assert.equal(fs.existsSync(file("big-ish.txt")), false);
  });
  it("a locked file midway: reports it and puts back everything already written", async function () {
    writeFiles(ws, { "a-first.txt": "a1\n", "z-locked.txt": "z1\n" });
    const a = await store.snapshot();
    writeFiles(ws, { "a-first.txt": "a2\n", "m-created.txt": "m\n", "z-locked.txt": "z2\n" });
    fs.unlinkSync(file("README.md"));
    const before = describeTree(ws);
    // An immutable file cannot be replaced, even by root.
    if (spawnSync("chattr", ["+i", file("z-locked.txt")]).status !== 0) this.skip();
    try {
      const { report } = await restore(a.id);
      assert.equal(report.ok, false);
      assert.deepEqual(report.failed.map((f) => f.path), ["z-locked.txt"]);
      assert.equal(report.rolledBack, true);
      assert.deepEqual(describeTree(ws), before, "every file is as it was before the restore");
    } finally {
      spawnSync("chattr", ["-i", file("z-locked.txt")]);
    }
  });

  it("a full disk midway: reports it and puts back everything already written", async function () {
    const small = path.join(tmp.dir, "small");
    fs.mkdirSync(small);
    if (!mountTmpfs(small, 2048)) this.skip();
    try {
      // The filler sits beside the workspace on the same small disk, out of the restore's reach.
      const inner = path.join(small, "ws");
      fs.mkdirSync(inner);
      const tight = await CheckpointStore.open({ gitPath: "git", storageDir: storage, workspace: inner });
      writeFiles(inner, { "a.txt": "a1\n", "big.txt": "b".repeat(600_000) });
      const a = await tight.snapshot();
      // Removing this first frees room for a.txt but not for big.txt.
      writeFiles(inner, { "a.txt": "a2\n", "big.txt": "small now\n", "0-created.bin": Buffer.alloc(400_000, 1) });
      const before = describeTree(inner);
      await fillUp(path.join(small, "filler"));
      const report = await tight.apply(await tight.plan(a.id));
      assert.equal(report.ok, false);
      // Writes run in small parallel batches: a.txt, written beside big.txt, may fail too when
      // big.txt's partial write takes the last free page first.
      const failed = report.failed.map((f) => f.path);
      assert.ok(failed.includes("big.txt"), `failed: ${failed.join(", ")}`);
      assert.ok(failed.every((p) => p === "big.txt" || p === "a.txt"), `failed: ${failed.join(", ")}`);
      assert.deepEqual(report.done, []);
      for (const f of report.failed) assert.match(f.error, /ENOSPC/);
      assert.equal(report.rolledBack, true);
      assert.deepEqual(describeTree(inner), before);
    } finally {
      unmount(small);
    }
  });
});
