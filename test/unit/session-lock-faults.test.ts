/**
 * Issue 9 point 4: the writer lock under real faults. A read-only folder (EROFS on a read-only
 * mount, EACCES for an unprivileged process) opens as a read-only view; a full disk (ENOSPC on a
 * tiny tmpfs) leaves no empty lock file; racing takers of an abandoned lock end with exactly one
 * holder; two paths to one file share one lock; a holder on another machine whose clock runs ahead
 * or behind is judged by its heartbeat as seen here, not by its clock. Mounts are used where the
 * machine allows them, otherwise the same faults are injected at the file-system seam.
 */
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { SessionManager } from "../../src/core/session/session-manager";
import { lockPathFor, WriterLock } from "../../src/core/session/writer-lock";
import { bindMount, fillUp, injectFault, mountTmpfs, remountReadOnly, unmount } from "../support/fs-faults";
import { makeTempDir } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

const MANAGER_JS = resolve(__dirname, "../../src/core/session/session-manager.js");
const LOCK_JS = resolve(__dirname, "../../src/core/session/writer-lock.js");

function sessionText(): string {
  const header = { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-0000000000f1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };
  const a = { type: "message", id: "c0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: user("q") };
  const b = { type: "message", id: "c0000002", parentId: "c0000001", timestamp: "2026-01-01T00:00:02.000Z", message: assistant("a") };
  return `${[header, a, b].map((l) => JSON.stringify(l)).join("\n")}\n`;
}

const lockLeftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes(".lock"));

describe("the writer lock under real faults (issue 9.4)", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  const mounts: string[] = [];
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => {
    for (const m of mounts.splice(0)) unmount(m);
    tmp.cleanup();
  });

  it("a session on a read-only mount (EROFS) opens as a read-only view and leaves no lock", async function () {
    const dir = join(tmp.dir, "ro");
    mkdirSync(dir);
    let file = join(dir, "s.jsonl");
    let restore: (() => void) | undefined;
    if (mountTmpfs(dir, 256)) {
      mounts.push(dir);
      writeFileSync(file, sessionText());
      assert.ok(remountReadOnly(dir), "remount read-only");
    } else {
      file = join(dir, "s.jsonl");
      writeFileSync(file, sessionText());
      restore = await injectFault((p) => p.startsWith(dir), { code: "EROFS" });
    }
    try {
      const sm = await SessionManager.open(file);
      assert.equal(sm.isReadOnly(), true);
      assert.match(sm.getReadOnlyReason()!, /EROFS/);
      assert.equal(sm.getEntryCount(), 2, "the entries are all there to read");
      assert.throws(() => sm.appendMessage(user("x")), (e: unknown) => e instanceof SessionError && e.code === "read-only");
      await sm.close();
      assert.deepEqual(lockLeftovers(dir), []);
    } finally {
      restore?.();
    }
  });

  it("a folder the process may not write (EACCES) opens as a read-only view and leaves no lock", async () => {
    const dir = join(tmp.dir, "noaccess");
    mkdirSync(dir);
    const file = join(dir, "s.jsonl");
    writeFileSync(file, sessionText());
    if (process.getuid?.() === 0) {
      // Root ignores permission bits: the check runs as the unprivileged user, in its own process.
      chmodSync(tmp.dir, 0o755);
      chmodSync(dir, 0o755);
      const script = `require(${JSON.stringify(MANAGER_JS)}).SessionManager.open(${JSON.stringify(file)}).then(async (sm) => {
        const out = { readOnly: sm.isReadOnly(), reason: sm.getReadOnlyReason(), entries: sm.getEntryCount() };
        await sm.close(); console.log(JSON.stringify(out));
      }, (e) => console.log(JSON.stringify({ error: e.code + ": " + e.message })));`;
      const r = spawnSync(process.execPath, ["-e", script], { uid: 65534, gid: 65534, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { readOnly?: boolean; reason?: string; entries?: number; error?: string };
      assert.equal(out.error, undefined, out.error);
      assert.equal(out.readOnly, true);
      assert.match(out.reason!, /EACCES/);
      assert.equal(out.entries, 2);
    } else {
      chmodSync(dir, 0o555);
      try {
        const sm = await SessionManager.open(file);
        assert.equal(sm.isReadOnly(), true);
        assert.match(sm.getReadOnlyReason()!, /EACCES/);
        await sm.close();
      } finally {
        chmodSync(dir, 0o755);
      }
    }
    assert.deepEqual(lockLeftovers(dir), []);
  });

  it("a full disk (ENOSPC) leaves no empty lock file behind, and the session opens read-only", async () => {
    const dir = join(tmp.dir, "full");
    mkdirSync(dir);
    const file = join(dir, "s.jsonl");
    let restore: (() => void) | undefined;
    if (mountTmpfs(dir, 64)) {
      mounts.push(dir);
      writeFileSync(file, sessionText());
      await fillUp(join(dir, "filler"));
    } else {
      writeFileSync(file, sessionText());
      restore = await injectFault((p) => p.startsWith(dir) && p.includes(".lock"), { code: "ENOSPC", allowBytes: 0 });
    }
    try {
      const sm = await SessionManager.open(file);
      assert.equal(sm.isReadOnly(), true);
      assert.match(sm.getReadOnlyReason()!, /No space left/);
      await sm.close();
      assert.deepEqual(lockLeftovers(dir), [], "no lock file, no temp file");
      assert.equal(await WriterLock.inspect(file), undefined);
    } finally {
      restore?.();
    }
  });

  it("racing takers of an abandoned lock end with exactly one holder, round after round", async () => {
    const file = join(tmp.dir, "race.jsonl");
    writeFileSync(file, sessionText());
    const dead = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    const deadPid = Number(dead.stdout.trim());
    // Each taker reports, then stays alive (so a winner's lock is not abandoned) until all have reported.
    const takerScript = `const { WriterLock } = require(${JSON.stringify(LOCK_JS)});
      WriterLock.acquire(${JSON.stringify(file)}, { heartbeatMs: 60000 }).then(
        () => console.log("won"),
        (e) => console.log(e.code === "locked" ? "lost" : "error " + e.message));
      setInterval(() => undefined, 1000);`;
    for (let round = 0; round < 4; round++) {
      writeFileSync(lockPathFor(file), JSON.stringify({ pid: deadPid, host: hostname(), token: `stale${round}`, since: "then", holder: "arbor" }));
      const children = Array.from({ length: 5 }, () => spawn(process.execPath, ["-e", takerScript], { stdio: ["ignore", "pipe", "inherit"] }));
      const outcomes = await Promise.all(
        children.map(
          (c) =>
            new Promise<string>((done) => {
              let out = "";
              c.stdout!.on("data", (d: Buffer) => {
                out += d.toString();
                if (out.includes("\n")) done(out.trim());
              });
              c.once("exit", () => done(out.trim() || "exited"));
            }),
        ),
      );
      for (const c of children) c.kill("SIGKILL");
      await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once("exit", r)))));
      assert.deepEqual(outcomes.filter((o) => o !== "won" && o !== "lost"), [], `round ${round}: ${outcomes.join(", ")}`);
      assert.equal(outcomes.filter((o) => o === "won").length, 1, `round ${round}: exactly one holder, got ${outcomes.join(", ")}`);
      assert.deepEqual(lockLeftovers(tmp.dir).filter((n) => n !== "race.jsonl.lock"), [], "no takeover guard or temp file left");
    }
  });

  it("two paths to one file (a symlink, a bind-mounted folder) share one lock", async () => {
    const realDir = join(tmp.dir, "real");
    mkdirSync(realDir);
    const file = join(realDir, "s.jsonl");
    writeFileSync(file, sessionText());
    const link = join(tmp.dir, "link.jsonl");
    symlinkSync(file, link);
    const first = await SessionManager.open(link);
    assert.equal(first.isReadOnly(), false);
    await assert.rejects(SessionManager.open(file), (e: unknown) => e instanceof SessionError && e.code === "locked");
    const viewer = await SessionManager.open(file, { whenLocked: "read-only" });
    assert.equal(viewer.isReadOnly(), true);
    await viewer.close();
    await first.close();
    const bound = join(tmp.dir, "bound");
    mkdirSync(bound);
    if (bindMount(realDir, bound)) {
      mounts.push(bound);
      const a = await SessionManager.open(join(bound, "s.jsonl"));
      await assert.rejects(SessionManager.open(file), (e: unknown) => e instanceof SessionError && e.code === "locked");
      await a.close();
    }
  });

  describe("a holder on another machine, judged by its heartbeat as seen here", () => {
    const remote = { pid: 4242, host: "build-box.elsewhere", since: "then", holder: "arbor" };
    let timer: NodeJS.Timeout | undefined;
    afterEach(() => clearInterval(timer));

    for (const [what, skewMs] of [["behind", -3_600_000], ["ahead", 3_600_000]] as const) {
      it(`whose clock runs an hour ${what}: alive while its heartbeat changes, taken over once it stops`, async () => {
        const file = join(tmp.dir, `skew-${what}.jsonl`);
        writeFileSync(file, sessionText());
        const lock = lockPathFor(file);
        writeFileSync(lock, JSON.stringify({ ...remote, token: `remote-${what}` }));
        // The remote heartbeat stamps the lock with the remote machine's clock.
        const beat = () => {
          const t = new Date(Date.now() + skewMs);
          utimesSync(lock, t, t);
        };
        beat();
        timer = setInterval(beat, 40);
        const opts = { staleMs: 400, judgeWaitMs: 1_200 };
        await assert.rejects(WriterLock.acquire(file, opts), (e: unknown) => e instanceof SessionError && e.code === "locked", "a live remote lock is not stale");
        clearInterval(timer);
        // (a beat may have landed after the last look: let that look grow older than staleMs first)
        await new Promise((r) => setTimeout(r, 500));
        const taken = await WriterLock.acquire(file, opts);
        assert.notEqual((await WriterLock.inspect(file))?.token, `remote-${what}`);
        await taken.release();
        assert.equal(existsSync(lock), false);
      });
    }

    it("without watching, a first look at a silent remote lock does not take it", async () => {
      const file = join(tmp.dir, "first-look.jsonl");
      writeFileSync(file, sessionText());
      writeFileSync(lockPathFor(file), JSON.stringify({ ...remote, token: "remote-first" }));
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(lockPathFor(file), old, old);
      const sm = await SessionManager.open(file, { whenLocked: "read-only", lock: { staleMs: 300 } });
      assert.equal(sm.isReadOnly(), true, "an old-looking mtime alone proves nothing across machines");
      await sm.close();
      await new Promise((r) => setTimeout(r, 350));
      // This process has now seen it silent for longer than staleMs: the next open takes it over.
      const again = await SessionManager.open(file, { lock: { staleMs: 300 } });
      assert.equal(again.isReadOnly(), false);
      await again.close();
    });
  });
});
