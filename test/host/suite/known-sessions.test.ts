/**
 * Commands that take a path (issue 9.6, and 9.5 for Resume Session): another extension or a command
 * URI can pass anything, so Arbor acts only on session files in the sessions folders it knows, and
 * refuses at once, with a clear error and no lock file, whatever is not a regular file.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import * as vscode from "vscode";
import { arborApi, hooks, messagesShownBy, samples, type HostApi } from "./host-helpers";

describe("commands that take a path act only on known session files (issue 9.6, 9.5)", function () {
  this.timeout(60_000);
  let api: HostApi;
  let outside: string;
  let outsideFile: string;
  const made: string[] = [];

  before(async () => {
    api = await arborApi();
    outside = mkdtempSync(join(tmpdir(), "arbor-outside-"));
    outsideFile = join(outside, basename(samples().mainFile));
    copyFileSync(samples().mainFile, outsideFile);
  });

  after(() => {
    for (const path of made) rmSync(path, { force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  /** Runs a command that must be refused: one error, nothing opened, no lock file beside `path`. */
  async function refused(command: string, arg: unknown, path: string, why: RegExp): Promise<void> {
    const before = hooks(api).currentSession?.getSessionFile();
    const shown = await messagesShownBy(() => vscode.commands.executeCommand(command, arg));
    assert.equal(shown.errors.length, 1, `${command} showed one error (got ${JSON.stringify(shown)})`);
    assert.match(shown.errors[0]!, why);
    assert.equal(hooks(api).currentSession?.getSessionFile(), before, "the open session did not change");
    assert.equal(existsSync(`${path}.lock`), false, "no lock file was created");
  }

  const node = (path: string) => ({ info: { path, name: "forged", firstMessage: "x", id: "x", cwd: "/", labels: [] }, forks: [] });

  it("refuses a session file outside the sessions folders, whichever command gets it", async () => {
    const content = readFileSync(outsideFile, "utf8");
    await refused("arbor.resumeSession", outsideFile, outsideFile, /only on session files in its sessions folders/);
    await refused("arbor.sessions.resume", node(outsideFile), outsideFile, /only on session files/);
    await refused("arbor.sessions.fork", node(outsideFile), outsideFile, /only on session files/);
    await refused("arbor.sessions.delete", node(outsideFile), outsideFile, /only on session files/);
    await refused("arbor.sessions.rename", node(outsideFile), outsideFile, /only on session files/);
    assert.equal(readFileSync(outsideFile, "utf8"), content, "the file is untouched");
  });

  it("refuses a way out of the sessions folder: '..', a symbolic link, a file that is not .jsonl", async () => {
    const dir = dirname(samples().mainFile);
    const climbing = `${dir}/${relative(dir, outsideFile)}`;
    assert.match(climbing, /\/\.\.\//);
    await refused("arbor.resumeSession", climbing, outsideFile, /only on session files/);
    const link = join(dir, "2026-01-05T00-00-00-000Z_link-out.jsonl");
    symlinkSync(outsideFile, link);
    made.push(link);
    await refused("arbor.sessions.delete", node(link), link, /only on session files/);
    assert.ok(existsSync(outsideFile), "the link's target is still there");
    await refused("arbor.resumeSession", join(dir, "notes.txt"), join(dir, "notes.txt"), /only on session files/);
    await refused("arbor.resumeSession", "relative/path.jsonl", "relative/path.jsonl", /absolute/);
    await refused("arbor.resumeSession", 42, "42", /required/);
  });

  it("refuses a FIFO or a folder named like a session at once, without opening it", async () => {
    const dir = dirname(samples().mainFile);
    const fifo = join(dir, "2026-01-06T00-00-00-000Z_fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    made.push(fifo);
    // A read of a FIFO with no writer never returns: the command must not even open it.
    await refused("arbor.resumeSession", fifo, fifo, /FIFO/);
    await refused("arbor.sessions.resume", node(fifo), fifo, /FIFO/);
    const folder = join(dir, "2026-01-07T00-00-00-000Z_folder.jsonl");
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(folder));
    try {
      await refused("arbor.resumeSession", folder, folder, /directory/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("still opens a session file in the sessions folder", async () => {
    const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.resumeSession", samples().mainFile));
    assert.deepEqual(shown.errors, []);
    assert.equal(hooks(api).currentSession?.getSessionFile(), samples().mainFile);
  });
});
