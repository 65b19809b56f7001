/**
 * Tool safety, paths: no symbolic link (to a file or a folder, dangling or not, or swapped in while
 * a tool runs) and no hard link lets the file tools write outside the session's folder, or read
 * outside it. Each test puts something outside the folder and checks it is untouched.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openInside } from "../../src/core/agent/tools/confined-files";
import { createEditTool, createReadTool, createWriteTool } from "../../src/core/agent/tools";
import type { AgentTool, ToolContext, ToolOutcome } from "../../src/core/agent/tools/tool";
import { makeTempDir } from "../support/temp-dir";

describe("tool safety: paths and links", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let cwd: string;
  let outside: string;
  beforeEach(() => {
    tmp = makeTempDir("arbor-paths-");
    cwd = join(tmp.dir, "work");
    outside = join(tmp.dir, "outside");
    mkdirSync(cwd);
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "outside original\n");
  });
  afterEach(() => tmp.cleanup());

  const context = (): ToolContext => ({
    cwd,
    toolCallId: "t",
    signal: new AbortController().signal,
    limits: { maxLines: 2000, maxBytes: 50_000 },
    allowShell: true,
  });
  const run = (tool: AgentTool, args: Record<string, unknown>): Promise<ToolOutcome> => tool.execute(args, context());
  const outsideUntouched = () => {
    assert.deepEqual(readdirSync(outside), ["secret.txt"], "nothing was created outside");
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "outside original\n", "the outside file is unchanged");
  };
  const leadsOutside = /outside the session's working directory/;

  it("write refuses a symlinked file that points outside, and leaves the target unchanged", async () => {
    symlinkSync(join(outside, "secret.txt"), join(cwd, "notes.txt"));
    await assert.rejects(run(createWriteTool(), { path: "notes.txt", content: "pwned" }), leadsOutside);
    outsideUntouched();
  });

  it("write refuses a dangling link whose target would be created outside", async () => {
    symlinkSync(join(outside, "new-file.txt"), join(cwd, "dangling.txt"));
    await assert.rejects(run(createWriteTool(), { path: "dangling.txt", content: "pwned" }), leadsOutside);
    outsideUntouched();
  });

  it("write refuses a relative link that climbs out of the folder", async () => {
    mkdirSync(join(cwd, "docs"));
    symlinkSync("../../outside/secret.txt", join(cwd, "docs", "readme.md"));
    await assert.rejects(run(createWriteTool(), { path: "docs/readme.md", content: "pwned" }), leadsOutside);
    outsideUntouched();
  });

  it("write refuses a symlinked folder that points outside, also when it would create folders below it", async () => {
    symlinkSync(outside, join(cwd, "vendor"));
    await assert.rejects(run(createWriteTool(), { path: "vendor/secret.txt", content: "pwned" }), leadsOutside);
    await assert.rejects(run(createWriteTool(), { path: "vendor/new/deeper/file.txt", content: "pwned" }), leadsOutside);
    outsideUntouched();
  });

  it("write refuses a dangling folder link and creates nothing through it", async () => {
    symlinkSync(join(outside, "not-yet"), join(cwd, "build"));
    await assert.rejects(run(createWriteTool(), { path: "build/out.txt", content: "pwned" }));
    outsideUntouched();
  });

  it("edit refuses a symlinked file that points outside, and leaves it unchanged", async () => {
    symlinkSync(join(outside, "secret.txt"), join(cwd, "config.txt"));
    await assert.rejects(run(createEditTool(), { path: "config.txt", edits: [{ oldText: "original", newText: "pwned" }] }), leadsOutside);
    outsideUntouched();
  });

  it("read refuses a symlinked file or folder that points outside", async () => {
    symlinkSync(join(outside, "secret.txt"), join(cwd, "peek.txt"));
    symlinkSync(outside, join(cwd, "peekdir"));
    await assert.rejects(run(createReadTool(), { path: "peek.txt" }), leadsOutside);
    await assert.rejects(run(createReadTool(), { path: "peekdir/secret.txt" }), leadsOutside);
  });

  it("links that stay inside the folder are followed: the write lands on the link's target and the link stays", async () => {
    mkdirSync(join(cwd, "shared"));
    writeFileSync(join(cwd, "shared", "config.json"), "{}\n");
    symlinkSync("shared/config.json", join(cwd, "config.json"));
    symlinkSync("shared", join(cwd, "alias"));
    await run(createWriteTool(), { path: "config.json", content: '{"a":1}\n' });
    await run(createWriteTool(), { path: "alias/new.txt", content: "via folder link" });
    assert.equal(readFileSync(join(cwd, "shared", "config.json"), "utf8"), '{"a":1}\n');
    assert.equal(readFileSync(join(cwd, "shared", "new.txt"), "utf8"), "via folder link");
    const read = await run(createReadTool(), { path: "config.json" });
    assert.equal((read.content[0] as { text: string }).text, '{"a":1}\n');
    assert.ok(execFileSync("find", [cwd, "-maxdepth", "1", "-type", "l", "-name", "config.json"], { encoding: "utf8" }).trim() !== "", "the link is still a link");
  });

  it("a folder swapped for an outside link between the walk and the open cannot redirect the write", async () => {
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "src", "main.ts"), "old\n");
    const file = await openInside(cwd, "src/main.ts", "write", {
      // The walk has opened src; now an attacker moves it away and puts a link to outside in its place.
      beforeFinalOpen: () => {
        renameSync(join(cwd, "src"), join(cwd, "src-moved"));
        symlinkSync(outside, join(cwd, "src"));
        writeFileSync(join(outside, "main.ts"), "outside decoy\n");
      },
    });
    try {
      await file.handle.write("new\n", 0);
      await file.handle.truncate(4);
    } finally {
      await file.handle.close();
    }
    assert.equal(readFileSync(join(outside, "main.ts"), "utf8"), "outside decoy\n", "the write did not follow the swapped-in link");
    assert.equal(readFileSync(join(cwd, "src-moved", "main.ts"), "utf8"), "new\n", "it landed in the folder that was checked");
  });

  it("refuses to write a file with other hard links, whose other names may be outside", async function () {
    try {
      linkSync(join(outside, "secret.txt"), join(cwd, "hard.txt"));
    } catch {
      this.skip(); // the temp folder's file system does not do hard links
    }
    await assert.rejects(run(createWriteTool(), { path: "hard.txt", content: "pwned" }), /hard links/);
    await assert.rejects(run(createEditTool(), { path: "hard.txt", edits: [{ oldText: "original", newText: "pwned" }] }), /hard links/);
    outsideUntouched();
  });

  it("refuses a FIFO at once instead of blocking on it", async function () {
    try {
      execFileSync("mkfifo", [join(cwd, "pipe")]);
    } catch {
      this.skip();
    }
    await assert.rejects(run(createWriteTool(), { path: "pipe", content: "x" }), /not a regular file/);
    await assert.rejects(run(createReadTool(), { path: "pipe" }), /not a regular file/);
  });

  it("paths that climb out with .. or name another folder are refused before anything is opened", async () => {
    await assert.rejects(run(createWriteTool(), { path: "../outside/secret.txt", content: "pwned" }), leadsOutside);
    await assert.rejects(run(createWriteTool(), { path: join(outside, "secret.txt"), content: "pwned" }), leadsOutside);
    outsideUntouched();
  });

  it("write creates missing folders inside, and edit changes the file it read", async () => {
    await run(createWriteTool(), { path: "a/b/c.txt", content: "one two\n" });
    await run(createEditTool(), { path: "a/b/c.txt", edits: [{ oldText: "two", newText: "three" }] });
    assert.equal(readFileSync(join(cwd, "a/b/c.txt"), "utf8"), "one three\n");
    // A shorter content cuts the rest of the file.
    await run(createWriteTool(), { path: "a/b/c.txt", content: "x" });
    assert.equal(readFileSync(join(cwd, "a/b/c.txt"), "utf8"), "x");
    assert.ok(existsSync(join(cwd, "a/b")));
  });
});

describe("tool safety: paths and links, with the path-based checks of macOS and Windows", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let cwd: string;
  let outside: string;
  beforeEach(() => {
    tmp = makeTempDir("arbor-paths-");
    cwd = join(tmp.dir, "work");
    outside = join(tmp.dir, "outside");
    mkdirSync(cwd);
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "outside original\n");
  });
  afterEach(() => tmp.cleanup());

  const open = (requested: string, mode: "read" | "write" | "update", beforeFinalOpen?: () => void) =>
    openInside(cwd, requested, mode, { pathBased: true, ...(beforeFinalOpen ? { beforeFinalOpen } : {}) });
  const outsideUntouched = () => {
    assert.deepEqual(readdirSync(outside).sort(), ["secret.txt"]);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "outside original\n");
  };
  const leadsOutside = /outside the session's working directory/;

  it("refuses links to files and folders outside, dangling or not, and creates nothing through them", async () => {
    symlinkSync(join(outside, "secret.txt"), join(cwd, "file-link"));
    symlinkSync(join(outside, "new.txt"), join(cwd, "dangling"));
    symlinkSync(outside, join(cwd, "folder-link"));
    await assert.rejects(open("file-link", "write"), leadsOutside);
    await assert.rejects(open("file-link", "read"), leadsOutside);
    await assert.rejects(open("dangling", "write"), leadsOutside);
    await assert.rejects(open("folder-link/secret.txt", "update"), leadsOutside);
    await assert.rejects(open("folder-link/deeper/x.txt", "write"), leadsOutside);
    outsideUntouched();
  });

  it("follows links that stay inside, and opens what it checked", async () => {
    mkdirSync(join(cwd, "shared"));
    writeFileSync(join(cwd, "shared", "a.txt"), "a");
    symlinkSync("shared/a.txt", join(cwd, "a-link"));
    const file = await open("a-link", "read");
    try {
      assert.equal(file.path, join(tmp.dir, "work", "shared", "a.txt"));
      assert.equal(await file.handle.readFile("utf8"), "a");
    } finally {
      await file.handle.close();
    }
  });

  it("a file swapped for an outside link after the checks is caught when opened, and nothing is written", async () => {
    writeFileSync(join(cwd, "main.ts"), "old\n");
    await assert.rejects(
      open("main.ts", "update", () => {
        renameSync(join(cwd, "main.ts"), join(cwd, "main-moved.ts"));
        symlinkSync(join(outside, "secret.txt"), join(cwd, "main.ts"));
      }),
      leadsOutside,
    );
    outsideUntouched();
  });
});
