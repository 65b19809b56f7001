/** Live tail (another process appends) and the one-writer lock across processes. */
import * as assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, writeFileSync, utimesSync } from "node:fs";
import { resolve } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { type SessionChange, SessionManager } from "../../src/core/session/session-manager";
import { lockPathFor } from "../../src/core/session/writer-lock";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir, waitFor } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

const MANAGER_JS = resolve(__dirname, "../../src/core/session/session-manager.js");
const HOLDER_JS = resolve(__dirname, "../../../test/support/lock-holder.js");

function startHolder(file: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [HOLDER_JS, MANAGER_JS, file], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolvePromise, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolvePromise({ child, line: out.trim() });
    });
    child.on("error", reject);
    child.on("exit", (code) => (out.includes("\n") ? undefined : reject(new Error(`holder exited ${code}`))));
  });
}

describe("live sessions", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  let file: string;
  before(async () => (pi = await loadReference()));
  beforeEach(async () => {
    tmp = makeTempDir();
    const sm = await SessionManager.create("/w", { sessionDir: tmp.dir });
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    await sm.close();
    file = sm.getSessionFile()!;
  });
  afterEach(() => tmp.cleanup());

  it("picks up what Pi appends, reading only the new bytes, and follows its leaf", async () => {
    const viewer = await SessionManager.open(file, { readOnly: true });
    const seen: SessionChange[] = [];
    // What a listener of "entries" reads as the leaf: the appended entries' leaf (the tree follows it).
    const leafOnEntries: (string | null)[] = [];
    viewer.onDidChange((c) => {
      seen.push(c);
      if (c.kind === "entries") leafOnEntries.push(viewer.getLeafId());
    });
    const tail = viewer.startLiveTail();
    const pi1 = pi.SessionManager.open(file);
    const id = pi1.appendMessage(user("typed in pi's terminal"));
    await waitFor(() => viewer.hasEntry(id), "the appended message");
    assert.deepEqual(leafOnEntries, [id], "the leaf has moved when the entries arrive");
    assert.ok(seen.findIndex((c) => c.kind === "leaf") > seen.findIndex((c) => c.kind === "entries"), "then the leaf change fires");
    pi1.appendLabelChange(id, "live");
    await waitFor(() => viewer.hasEntry(id) && viewer.getLabel(id) === "live", "the appended entries");
    assert.equal(viewer.getLeafId(), pi1.getLeafId());
    const added = seen.filter((c): c is Extract<SessionChange, { kind: "entries" }> => c.kind === "entries").flatMap((c) => c.entries);
    assert.deepEqual(added.map((s) => s.id), pi1.getEntries().slice(2).map((e: { id: string }) => e.id), "only the new entries arrive as increments");
    assert.ok(added.every((s) => s.line > 3));
    assert.ok(seen.some((c) => c.kind === "labels"));
    tail.dispose();
    await viewer.close();
  });

  it("waits for a line that is still being written", async () => {
    const viewer = await SessionManager.open(file, { readOnly: true });
    viewer.startLiveTail();
    const line = JSON.stringify({ type: "message", id: "abcdef12", parentId: viewer.getLeafId(), timestamp: new Date().toISOString(), message: user("slow writer") });
    appendFileSync(file, line.slice(0, 25));
    await viewer.catchUp();
    assert.equal(viewer.hasEntry("abcdef12"), false);
    assert.deepEqual(viewer.getProblems(), []);
    appendFileSync(file, `${line.slice(25)}\n`);
    await waitFor(() => viewer.hasEntry("abcdef12"), "the completed line");
    assert.equal(viewer.getLeafId(), "abcdef12");
    await viewer.close();
  });

  it("reads a file that was replaced (rewritten by Pi) anew", async () => {
    const viewer = await SessionManager.open(file, { readOnly: true });
    let reset = false;
    viewer.onDidChange((c) => (reset ||= c.kind === "reset"));
    const text = (await import("node:fs")).readFileSync(file, "utf8");
    writeFileSync(`${file}.tmp`, text + JSON.stringify({ type: "custom", customType: "x", id: "12345678", parentId: null, timestamp: new Date().toISOString() }) + "\n");
    (await import("node:fs")).renameSync(`${file}.tmp`, file);
    await viewer.catchUp();
    assert.ok(reset);
    assert.ok(viewer.hasEntry("12345678"));
    await viewer.close();
  });

  it("lets only one Arbor process write; the second gets a clear refusal or a read-only view", async () => {
    const { child, line } = await startHolder(file);
    try {
      assert.match(line, /^held /);
      await assert.rejects(SessionManager.open(file), (e: unknown) => e instanceof SessionError && e.code === "locked" && /another Arbor window/.test(e.message));
      const view = await SessionManager.open(file, { whenLocked: "read-only" });
      assert.equal(view.isReadOnly(), true);
      assert.match(view.getReadOnlyReason()!, /pid \d+/);
      assert.throws(() => view.appendMessage(user("x")), (e: unknown) => e instanceof SessionError && e.code === "read-only");
      await view.close();
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    // the holder crashed (killed): its lock does not hold the session forever
    const sm = await SessionManager.open(file);
    assert.equal(sm.isReadOnly(), false);
    sm.appendMessage(user("after the crash"));
    await sm.close();
  });

  it("a second process is refused while this one holds the session", async () => {
    const sm = await SessionManager.open(file);
    const holder = spawn(process.execPath, [HOLDER_JS, MANAGER_JS, file], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    holder.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => holder.once("exit", r));
    assert.equal(code, 3);
    assert.match(out, /refused locked/);
    await sm.close();
  });

  it("takes over a lock whose heartbeat stopped (a holder on another host)", async () => {
    writeFileSync(lockPathFor(file), JSON.stringify({ pid: 999999, host: "elsewhere", token: "t", since: "then", holder: "arbor" }));
    const old = new Date(Date.now() - 120_000);
    utimesSync(lockPathFor(file), old, old);
    // Another machine's clock proves nothing here: the heartbeat is watched until it has not changed for staleMs.
    const sm = await SessionManager.open(file, { lock: { staleMs: 300, judgeWaitMs: 2_000 } });
    assert.equal(sm.isReadOnly(), false);
    await sm.close();
  });

  it("a writer whose lock was taken over stops writing instead of interleaving", async () => {
    const sm = await SessionManager.open(file);
    writeFileSync(lockPathFor(file), JSON.stringify({ pid: 1, host: "elsewhere", token: "intruder", since: "now", holder: "arbor" }));
    const errors: Error[] = [];
    sm.onDidChange((c) => c.kind === "error" && errors.push(c.error));
    sm.appendMessage(user("must not be written"));
    await assert.rejects(sm.flush(), (e: unknown) => e instanceof SessionError && e.code === "locked");
    assert.ok(!(await import("node:fs")).readFileSync(file, "utf8").includes("must not be written"));
    assert.ok(errors.length >= 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(sm.isReadOnly(), true, "the window becomes a read-only view");
  });
});
