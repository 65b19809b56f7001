/**
 * Paths that are not session files (issue 9.5, 9.6): FIFOs, devices and folders are refused at once
 * by every command-line command, by opening and by discovery, with no lock file left; commands that
 * act for the user accept only files in the known sessions folders. Each command runs as a real
 * process with a time limit, so a read that hangs on a FIFO fails the test instead of hanging it.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { assertKnownSessionFile, assertRegularFile, knownSessionFolders } from "../../src/core/session/session-file-check";
import { makeTempDir } from "../support/temp-dir";

const CLI = resolve(__dirname, "../../src/cli/arbor.js");
const DISCOVERY = resolve(__dirname, "../../src/core/session/session-discovery.js");
const SAMPLE = resolve(__dirname, "../../../test/fixtures/sample-session.jsonl");
/** Far longer than any of these takes; only a hang reaches it. */
const HANG_GUARD_MS = 30_000;

function arbor(args: string[]): { code: number | null; stderr: string; signal: NodeJS.Signals | null } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: HANG_GUARD_MS });
  return { code: r.status, stderr: r.stderr, signal: r.signal };
}

async function refusal(run: () => Promise<unknown>): Promise<SessionError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof SessionError, String(err));
    return err;
  }
  assert.fail("it was accepted");
}

describe("paths that are not session files", function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let fifo: string;
  let folder: string;
  before(() => {
    tmp = makeTempDir();
    fifo = join(tmp.dir, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    folder = join(tmp.dir, "folder.jsonl");
    mkdirSync(folder);
  });
  after(() => tmp.cleanup());

  it("every CLI command that takes a file refuses a FIFO, /dev/zero and a folder at once, with one line and no lock file", () => {
    const commands = [["tree"], ["tree", "--json"], ["context"], ["check"], ["export", "--format", "md", "--out", "-"], ["label", "@", "some-id", "text"], ["fork", "@", "some-id"]];
    for (const [target, kind] of [[fifo, /FIFO/], ["/dev/zero", /character device/], [folder, /directory/]] as const) {
      for (const command of commands) {
        const args = command.includes("@") ? command.map((a) => (a === "@" ? target : a)) : [command[0]!, target, ...command.slice(1)];
        const r = arbor(args);
        assert.equal(r.signal, null, `arbor ${args.join(" ")} hung`);
        assert.notEqual(r.code, 0, `arbor ${args.join(" ")} succeeded`);
        const lines = r.stderr.trim().split("\n");
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0]!, kind, `arbor ${args.join(" ")}`);
        assert.match(lines[0]!, /not a session file/);
      }
    }
    assert.deepEqual(readdirSync(tmp.dir).sort(), ["folder.jsonl", "pipe.jsonl"], "no lock file, nothing written");
  });

  it("arbor ls and discovery skip a FIFO named .jsonl without opening it", () => {
    const dir = join(tmp.dir, "sessions");
    mkdirSync(dir);
    const real = join(dir, "2026-01-01T00-00-00-000Z_a.jsonl");
    copyFileSync(SAMPLE, real);
    execFileSync("mkfifo", [join(dir, "2026-12-31T00-00-00-000Z_fifo.jsonl")]);
    const ls = spawnSync(process.execPath, [CLI, "ls", "--dir", dir, "--json"], { encoding: "utf8", timeout: HANG_GUARD_MS });
    assert.equal(ls.signal, null, "arbor ls hung");
    assert.equal(ls.status, 0, ls.stderr);
    assert.deepEqual((JSON.parse(ls.stdout) as { path: string }[]).map((s) => s.path), [real]);
    const script = `require(${JSON.stringify(DISCOVERY)}).findMostRecentSession(${JSON.stringify(dir)}).then((p) => process.stdout.write(String(p)))`;
    const found = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: HANG_GUARD_MS });
    assert.equal(found.signal, null, "discovery hung on the FIFO");
    assert.equal(found.stdout, real);
  });

  it("assertRegularFile names what it found", async () => {
    assert.equal((await refusal(() => assertRegularFile(fifo))).code, "not-a-file");
    assert.match((await refusal(() => assertRegularFile("/dev/zero"))).message, /character device/);
    assert.match((await refusal(() => assertRegularFile(folder))).message, /directory/);
    assert.equal((await refusal(() => assertRegularFile(join(tmp.dir, "missing.jsonl")))).code, "not-found");
    assert.ok((await assertRegularFile(SAMPLE)).isFile());
  });

  describe("known sessions folders", () => {
    let agentDir: string;
    let explicit: string;
    let inRoot: string;
    let inExplicit: string;
    before(() => {
      agentDir = join(tmp.dir, "agent");
      explicit = join(tmp.dir, "flat");
      mkdirSync(join(agentDir, "sessions", "--work-app--"), { recursive: true });
      mkdirSync(explicit);
      inRoot = join(agentDir, "sessions", "--work-app--", "2026-01-01T00-00-00-000Z_a.jsonl");
      inExplicit = join(explicit, "2026-01-01T00-00-00-000Z_b.jsonl");
      copyFileSync(SAMPLE, inRoot);
      copyFileSync(SAMPLE, inExplicit);
    });

    it("accepts a session file in a workspace folder of the sessions root, or in the explicit folder", async () => {
      assert.equal(await assertKnownSessionFile(inRoot, knownSessionFolders({ agentDir, env: {} })), inRoot);
      assert.equal(await assertKnownSessionFile(inExplicit, knownSessionFolders({ agentDir, sessionDir: explicit, env: {} })), inExplicit);
    });

    it("accepts them through a symbolic link to the agent folder too", async () => {
      const link = join(tmp.dir, "agent-link");
      symlinkSync(agentDir, link);
      const viaLink = join(link, "sessions", "--work-app--", "2026-01-01T00-00-00-000Z_a.jsonl");
      assert.equal(await assertKnownSessionFile(viaLink, knownSessionFolders({ agentDir, env: {} })), viaLink);
      assert.equal(await assertKnownSessionFile(inRoot, knownSessionFolders({ agentDir: link, env: {} })), inRoot);
    });

    it("refuses anything else: other folders, the root itself, deeper folders, '..', links out, other names, non-strings", async () => {
      const folders = knownSessionFolders({ agentDir, env: {} });
      const outside = join(tmp.dir, "outside.jsonl");
      copyFileSync(SAMPLE, outside);
      const atRoot = join(agentDir, "sessions", "x.jsonl");
      copyFileSync(SAMPLE, atRoot);
      mkdirSync(join(agentDir, "sessions", "--work-app--", "deeper"));
      const deeper = join(agentDir, "sessions", "--work-app--", "deeper", "x.jsonl");
      copyFileSync(SAMPLE, deeper);
      const linkOut = join(agentDir, "sessions", "--work-app--", "link-out.jsonl");
      symlinkSync(outside, linkOut);
      const notJsonl = join(agentDir, "sessions", "--work-app--", "notes.txt");
      writeFileSync(notJsonl, "{}\n");
      const climbing = `${join(agentDir, "sessions", "--work-app--")}/../../../outside.jsonl`;
      for (const path of [outside, atRoot, deeper, linkOut, notJsonl, climbing, inExplicit]) {
        const err = await refusal(() => assertKnownSessionFile(path, folders));
        assert.equal(err.code, "outside-sessions", path);
        assert.match(err.message, /only on session files in its sessions folders/);
      }
      for (const bad of [undefined, 42, "", "relative/x.jsonl", { path: inRoot }]) {
        assert.equal((await refusal(() => assertKnownSessionFile(bad, folders))).code, "outside-sessions");
      }
      assert.ok(existsSync(outside));
    });

    it("refuses a FIFO in a sessions folder as not a file", async () => {
      const pipe = join(agentDir, "sessions", "--work-app--", "pipe.jsonl");
      execFileSync("mkfifo", [pipe]);
      assert.equal((await refusal(() => assertKnownSessionFile(pipe, knownSessionFolders({ agentDir, env: {} })))).code, "not-a-file");
    });
  });
});
