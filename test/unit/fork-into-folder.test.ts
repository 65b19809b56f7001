/**
 * A fork for another window (Fork from Here into a new git worktree): the session file it writes
 * (the new cwd in its header, the path up to the fork point, linked to its parent, its lock
 * released), the window's own session left as it was, session_before_fork asked, and the record
 * the new window takes at start-up.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { forkCancelled, forkPoint, writeFolderFork } from "../../src/core/runtime/fork-into-folder";
import { rememberPendingOpen, takePendingOpen } from "../../src/core/session/pending-open";
import { SessionManager } from "../../src/core/session/session-manager";
import { lockPathFor } from "../../src/core/session/writer-lock";
import { makeTempDir } from "../support/temp-dir";
import { assertPiReadsSame, makeKit, readLines, startRuntime, type AgentKit } from "./agent-harness.test";
import { reply } from "../support/scripted-openai-server";

describe("fork into another folder (for a new window)", function () {
  this.timeout(30_000);
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("writes the path up to the fork point as a new session working in the other folder, and leaves the window's session as it is", async () => {
    const runtime = await startRuntime(kit);
    kit.server.script(reply.text("second answer"));
    await runtime.session.prompt("second question");
    const source = runtime.session.sessionManager;
    await source.flush();
    const before = readLines(source.getSessionFile()!);
    const user2 = source.getEntries().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("second question"))!;
    const point = forkPoint(source, user2.id, "before");
    assert.equal(point.leafId, user2.parentId);
    assert.equal(point.selectedText, "second question");
    assert.throws(() => forkPoint(source, source.getLeafId()!, "before"), /needs a user message/);
    assert.deepEqual(forkPoint(source, source.getLeafId()!, "at"), { leafId: source.getLeafId() });

    const worktree = join(kit.root, "work-fork");
    mkdirSync(worktree);
    const sessionDir = join(kit.root, "sessions-fork");
    const fork = await writeFolderFork(source, point.leafId, { cwd: worktree, sessionDir });
    assert.ok(fork.file, "the path holds a reply: the file is written");
    assert.equal(existsSync(lockPathFor(fork.file)), false, "the lock is released for the new window");
    const lines = readLines(fork.file);
    assert.equal(lines[0]!.cwd, worktree);
    assert.equal(lines[0]!.parentSession, source.getSessionFile());
    const opened = await SessionManager.open(fork.file);
    try {
      assert.equal(opened.getCwd(), worktree);
      assert.equal(opened.getLeafId(), point.leafId);
      assert.deepEqual(opened.buildSessionContext(), source.buildSessionContext(point.leafId));
      await assertPiReadsSame(fork.file, opened.buildSessionContext());
    } finally {
      await opened.close();
    }
    assert.equal(runtime.session.sessionManager, source, "the window's session is still current");
    assert.deepEqual(readLines(source.getSessionFile()!), before, "and its file unchanged");
    await runtime.dispose();
  });

  it("writes no file for a path without a reply; an extension can cancel the fork", async () => {
    const runtime = await startRuntime(kit);
    const source = runtime.session.sessionManager;
    const user1 = source.getEntries().find((e) => e.type === "message" && e.message.role === "user")!;
    const sessionDir = join(kit.root, "sessions-empty");
    const point = forkPoint(source, user1.id, "before");
    const fork = await writeFolderFork(source, point.leafId, { cwd: kit.cwd, sessionDir });
    assert.equal(fork.file, undefined);
    assert.deepEqual(existsSync(sessionDir) ? readdirSync(sessionDir).filter((f) => f.endsWith(".jsonl")) : [], []);

    const seen: string[] = [];
    assert.equal(await forkCancelled(runtime, user1.id, "before"), false);
    runtime.extensions.register({ name: "veto", handlers: { session_before_fork: (e) => (seen.push(`${e.entryId} ${e.position}`), { cancel: true }) } });
    assert.equal(await forkCancelled(runtime, user1.id, "before"), true);
    assert.deepEqual(seen, [`${user1.id} before`]);
    await runtime.dispose();
  });
});

describe("the record a new window of a folder takes at start-up", () => {
  it("is taken once, by the folder it names (also through a link to it), and a damaged one is dropped", async () => {
    const tmp = makeTempDir("arbor-pending-");
    try {
      const storage = join(tmp.dir, "storage");
      const folder = join(tmp.dir, "project-fork");
      const other = join(tmp.dir, "other");
      mkdirSync(folder);
      mkdirSync(other);
      symlinkSync(folder, join(tmp.dir, "link"));
      await rememberPendingOpen(storage, { folder, cwd: join(folder, "src"), file: "/s/a.jsonl", editText: "try again" });
      assert.equal(await takePendingOpen(storage, other), undefined);
      assert.deepEqual(await takePendingOpen(storage, join(tmp.dir, "link")), { folder, cwd: join(folder, "src"), file: "/s/a.jsonl", editText: "try again" });
      assert.equal(await takePendingOpen(storage, folder), undefined, "taken once");
      await rememberPendingOpen(storage, { folder, cwd: folder });
      assert.deepEqual(await takePendingOpen(storage, folder), { folder, cwd: folder });
      await rememberPendingOpen(storage, { folder, cwd: folder });
      const [name] = readdirSync(join(storage, "pending-open"));
      writeFileSync(join(storage, "pending-open", name!), "{not json");
      assert.equal(await takePendingOpen(storage, folder), undefined);
      assert.deepEqual(readdirSync(join(storage, "pending-open")), [], "nothing is left behind");
    } finally {
      tmp.cleanup();
    }
  });
});
