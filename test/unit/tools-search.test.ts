/** The read-only search tools (grep, find, ls) on real folders: rows, limits, truncation, .gitignore, ripgrep missing, confinement. */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_OUTPUT_LIMITS } from "../../src/core/agent/output/output-limits";
import { createFindTool, createGrepTool, createLsTool, RIPGREP_MISSING_MESSAGE, type AgentTool, type ToolContext, type ToolOutcome } from "../../src/core/agent/tools";
import { findGlob } from "../../src/core/agent/tools/find-tool";
import { findOnPath, ripgrepLocator } from "../../src/core/agent/tools/ripgrep";
import { createGrepTool as createPiGrepTool, createReadTool as createPiReadTool } from "../../src/core/pi-extensions/builtin-tools";
import { runInToolScope } from "../../src/core/pi-extensions/tool-scope";

function context(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, toolCallId: "t", signal: new AbortController().signal, limits: DEFAULT_OUTPUT_LIMITS, allowShell: false, ...extra };
}

function text(outcome: ToolOutcome): string {
  return outcome.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** Writes `files` (path to content) under `root`, folders included. */
function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const noRipgrep = () => undefined;

describe("search tools", () => {
  let root: string;
  let cwd: string;
  before(function () {
    if (!findOnPath("rg")) this.skip();
  });
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-search-")));
    cwd = join(root, "project");
    mkdirSync(cwd);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = (tool: AgentTool, args: Record<string, unknown>, extra: Partial<ToolContext> = {}) => tool.execute(args, context(cwd, extra));

  describe("grep", () => {
    const grep = createGrepTool();

    it("returns path:line: text rows, sorted by path, skipping what .gitignore ignores (no git repository needed) and .git, searching hidden files", async () => {
      write(cwd, {
        ".gitignore": "build/\n*.log\n",
        "src/b.ts": "const needle = 1;\nother\nneedle again\n",
        "src/a.ts": "no match\nthe needle\n",
        ".hidden/config": "needle in a hidden folder\n",
        "build/out.js": "needle in build\n",
        "debug.log": "needle in a log\n",
        ".git/HEAD": "needle in git\n",
      });
      const outcome = await run(grep, { pattern: "needle" });
      assert.equal(outcome.isError, undefined);
      assert.equal(text(outcome), [".hidden/config:1: needle in a hidden folder", "src/a.ts:2: the needle", "src/b.ts:1: const needle = 1;", "src/b.ts:3: needle again"].join("\n"));
      assert.equal(outcome.details, undefined);
    });

    it("honours nested .gitignore files in a git repository", async () => {
      write(cwd, { "a/.gitignore": "secret.txt\n", "a/secret.txt": "word\n", "a/open.txt": "word\n", "secret.txt": "word\n" });
      execFileSync("git", ["init", "-q"], { cwd });
      assert.equal(text(await run(grep, { pattern: "word" })), "a/open.txt:1: word\nsecret.txt:1: word");
    });

    it("filters by glob, ignores case, takes literal patterns, and searches one file (named by its base name)", async () => {
      write(cwd, { "src/x.ts": "Alpha(1)\n", "src/x.md": "alpha(1)\n", "lib/y.ts": "ALPHA\n" });
      assert.equal(text(await run(grep, { pattern: "alpha", glob: "*.ts", ignoreCase: true })), "lib/y.ts:1: ALPHA\nsrc/x.ts:1: Alpha(1)");
      assert.equal(text(await run(grep, { pattern: "alpha", glob: "*.ts" })), "No matches.");
      assert.equal(text(await run(grep, { pattern: "alpha(1)", literal: true })), "src/x.md:1: alpha(1)");
      assert.equal(text(await run(grep, { pattern: "a", path: "src/x.md" })), "x.md:1: alpha(1)");
      assert.equal(text(await run(grep, { pattern: "ALPHA", path: "lib" })), "y.ts:1: ALPHA");
    });

    it("shows context lines around matches, each line once where blocks overlap, CRLF files alike", async () => {
      write(cwd, { "f.txt": "1\n2\nhit 3\n4\nhit 5\n6\n7\n8\n9\nhit 10\n", "w.txt": "a\r\nhit\r\nb\r\n" });
      assert.equal(
        text(await run(grep, { pattern: "hit", context: 1, path: "f.txt" })),
        ["f.txt-2- 2", "f.txt:3: hit 3", "f.txt-4- 4", "f.txt:5: hit 5", "f.txt-6- 6", "f.txt-9- 9", "f.txt:10: hit 10", "f.txt-11- "].join("\n"),
      );
      assert.equal(text(await run(grep, { pattern: "hit", context: 1, path: "w.txt" })), "w.txt-1- a\nw.txt:2: hit\nw.txt-3- b");
    });

    it("stops at the match limit (default 100) and offers twice as many", async () => {
      write(cwd, { "many.txt": Array.from({ length: 150 }, (_, i) => `line ${i}`).join("\n") });
      const limited = await run(grep, { pattern: "line", limit: 3 });
      assert.equal(text(limited), "many.txt:1: line 0\nmany.txt:2: line 1\nmany.txt:3: line 2\n\n[Stopped at 3 matches; call again with limit=6 for more, or narrow the pattern.]");
      assert.deepEqual(limited.details, { matchLimitReached: 3 });
      const byDefault = await run(grep, { pattern: "line" });
      assert.equal(text(byDefault).split("\n").filter((l) => l.startsWith("many.txt:")).length, 100);
      assert.deepEqual(byDefault.details, { matchLimitReached: 100 });
    });

    it("cuts rows longer than 500 characters and the output at the byte limit", async () => {
      write(cwd, { "long.txt": `x${"y".repeat(600)}\n`, "rows.txt": Array.from({ length: 40 }, (_, i) => `row ${i} ${"z".repeat(20)}`).join("\n") });
      const long = await run(grep, { pattern: "x", path: "long.txt" });
      assert.equal(text(long).split("\n")[0], `long.txt:1: x${"y".repeat(499)}... [truncated]`);
      assert.match(text(long), /Rows longer than 500 characters were cut/);
      assert.deepEqual(long.details, { linesTruncated: true });
      const cut = await run(grep, { pattern: "row", path: "rows.txt" }, { limits: { maxLines: 2000, maxBytes: 200 } });
      const rows = text(cut).split("\n\n")[0]!.split("\n");
      assert.ok(rows.length > 1 && rows.length < 40, `cut to a few rows (${rows.length})`);
      assert.ok(Buffer.byteLength(rows.join("\n")) <= 200);
      assert.match(text(cut), new RegExp(`\\[Output cut at 200B \\(${rows.length} of 40 rows shown\\)\\.\\]$`));
      assert.equal((cut.details as { truncation: { truncated: boolean } }).truncation.truncated, true);
    });

    it("says what to install when there is no ripgrep, and reports ripgrep's own errors", async () => {
      write(cwd, { "a.txt": "a\n" });
      const missing = await createGrepTool({ ripgrep: noRipgrep }).execute({ pattern: "a" }, context(cwd));
      assert.equal(missing.isError, true);
      assert.equal(text(missing), RIPGREP_MISSING_MESSAGE);
      const bad = await run(grep, { pattern: "(" });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /regex parse error/);
    });

    it("uses the first candidate the host names, else rg on the PATH", () => {
      const fake = join(root, "bin", "rg");
      write(root, { "bin/rg": "#!/bin/sh\n" });
      assert.equal(ripgrepLocator(() => [join(root, "missing", "rg"), fake])(), findOnPath("rg"), "a file that is not executable is passed over");
      execFileSync("chmod", ["+x", fake]);
      assert.equal(ripgrepLocator(() => [join(root, "missing", "rg"), fake])(), fake);
      assert.equal(findOnPath("rg", join(root, "bin")), fake);
      assert.equal(findOnPath("rg", join(root, "missing")), undefined);
    });

    it("reads outside the session's folder only inside the roots it was given, links included", async () => {
      write(root, { "outside/notes.txt": "word\n" });
      symlinkSync(join(root, "outside"), join(cwd, "link"));
      await assert.rejects(run(grep, { pattern: "word", path: "../outside" }), /outside the session's working directory/);
      await assert.rejects(run(grep, { pattern: "word", path: "link" }), /outside the session's working directory/);
      assert.equal(text(await run(grep, { pattern: "word", path: "../outside" }, { readableRoots: [join(root, "outside")] })), "notes.txt:1: word");
      assert.equal(text(await run(grep, { pattern: "word", path: "link" }, { readableRoots: [join(root, "outside")] })), "notes.txt:1: word");
    });

    it("does not follow links out of the folder it searches", async () => {
      write(root, { "outside/notes.txt": "word\n" });
      write(cwd, { "in.txt": "word\n" });
      symlinkSync(join(root, "outside"), join(cwd, "link"));
      assert.equal(text(await run(grep, { pattern: "word" })), "in.txt:1: word");
    });
  });

  describe("find", () => {
    const find = createFindTool();

    it("matches names at any depth and paths below the folder, sorted, skipping ignored files and .git, listing hidden ones", async () => {
      write(cwd, {
        ".gitignore": "dist/\n",
        "src/a/one.spec.ts": "",
        "src/two.spec.ts": "",
        "x/src/three.spec.ts": "",
        "top.ts": "",
        ".config/tool.ts": "",
        "dist/built.ts": "",
        ".git/hook.ts": "",
        "readme.md": "",
      });
      assert.equal(text(await run(find, { pattern: "*.ts" })), [".config/tool.ts", "src/a/one.spec.ts", "src/two.spec.ts", "top.ts", "x/src/three.spec.ts"].join("\n"));
      assert.equal(text(await run(find, { pattern: "src/**/*.spec.ts" })), ["src/a/one.spec.ts", "src/two.spec.ts", "x/src/three.spec.ts"].join("\n"));
      assert.equal(text(await run(find, { pattern: "*.spec.ts", path: "src" })), "a/one.spec.ts\ntwo.spec.ts");
      assert.equal(text(await run(find, { pattern: "*.rs" })), "No files match the pattern.");
    });

    it("turns a pattern with a slash into one that matches at any depth, as Pi's find does", () => {
      assert.equal(findGlob("*.ts"), "*.ts");
      assert.equal(findGlob("src/*.ts"), "**/src/*.ts");
      assert.equal(findGlob("**/x.ts"), "**/x.ts");
      assert.equal(findGlob("/src/x.ts"), "/src/x.ts");
    });

    it("stops at the result limit and cuts at the byte limit", async () => {
      write(cwd, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""])));
      const limited = await run(find, { pattern: "*.txt", limit: 4 });
      assert.equal(text(limited), "f00.txt\nf01.txt\nf02.txt\nf03.txt\n\n[Stopped at 4 paths; call again with limit=8 for more, or narrow the pattern.]");
      assert.deepEqual(limited.details, { resultLimitReached: 4 });
      const cut = await run(find, { pattern: "*.txt" }, { limits: { maxLines: 2000, maxBytes: 40 } });
      assert.equal(text(cut), "f00.txt\nf01.txt\nf02.txt\nf03.txt\nf04.txt\n\n[Output cut at 40B (5 of 30 rows shown).]");
    });

    it("says what to install when there is no ripgrep, and refuses a file or a path outside", async () => {
      write(cwd, { "a.txt": "" });
      const missing = await createFindTool({ ripgrep: noRipgrep }).execute({ pattern: "*" }, context(cwd));
      assert.equal(missing.isError, true);
      assert.equal(text(missing), RIPGREP_MISSING_MESSAGE);
      await assert.rejects(run(find, { pattern: "*", path: "a.txt" }), /is a file, not a folder/);
      await assert.rejects(run(find, { pattern: "*", path: root }), /outside the session's working directory/);
    });
  });

  describe("Pi's factories for extensions", () => {
    it("a Pi-made grep uses the session's ripgrep and a Pi-made read the session's readable roots", async () => {
      write(cwd, { "a.txt": "word\n" });
      write(root, { "outside/b.txt": "far\n" });
      const scope = { cwd, allowShell: false, limits: DEFAULT_OUTPUT_LIMITS };
      const grep = createPiGrepTool(cwd);
      assert.equal((await runInToolScope(scope, () => grep.execute("g", { pattern: "word" }))).content[0]!.text, "a.txt:1: word");
      await assert.rejects(
        runInToolScope({ ...scope, ripgrep: noRipgrep }, () => grep.execute("g", { pattern: "word" })),
        (error: Error) => error.message === RIPGREP_MISSING_MESSAGE,
      );
      const read = createPiReadTool(cwd);
      const far = join(root, "outside", "b.txt");
      await assert.rejects(runInToolScope(scope, () => read.execute("r", { path: far })), /outside the session's working directory/);
      assert.equal((await runInToolScope({ ...scope, readableRoots: [far] }, () => read.execute("r", { path: far }))).content[0]!.text, "far\n");
    });
  });

  describe("ls", () => {
    const ls = createLsTool();

    it("lists entries without regard to case, folders with a slash, dot files and ignored files included, dangling links left out", async () => {
      write(cwd, { "b.txt": "", "A.txt": "", ".env": "", "sub/x": "", ".gitignore": "b.txt\n" });
      symlinkSync(join(cwd, "nowhere"), join(cwd, "dangling"));
      symlinkSync(join(cwd, "sub"), join(cwd, "Link"));
      assert.equal(text(await run(ls, {})), [".env", ".gitignore", "A.txt", "b.txt", "Link/", "sub/"].join("\n"));
      assert.equal(text(await run(ls, { path: "sub" })), "x");
    });

    it("stops at the entry limit (default 500) and cuts at the byte limit", async () => {
      write(cwd, Object.fromEntries(Array.from({ length: 510 }, (_, i) => [`e${String(i).padStart(3, "0")}`, ""])));
      const limited = await run(ls, { limit: 2 });
      assert.equal(text(limited), "e000\ne001\n\n[Stopped at 2 entries; call again with limit=4 for more.]");
      assert.deepEqual(limited.details, { entryLimitReached: 2 });
      const byDefault = await run(ls, {});
      assert.equal(text(byDefault).split("\n\n")[0]!.split("\n").length, 500);
      assert.deepEqual(byDefault.details, { entryLimitReached: 500 });
      const cut = await run(ls, { limit: 10 }, { limits: { maxLines: 2000, maxBytes: 12 } });
      assert.equal(text(cut), "e000\ne001\n\n[Stopped at 10 entries; call again with limit=20 for more. Output cut at 12B (2 of 10 rows shown).]");
    });

    it("says so for an empty folder, and refuses a file, a missing path and a path outside", async () => {
      mkdirSync(join(cwd, "empty"));
      write(cwd, { "f.txt": "" });
      assert.equal(text(await run(ls, { path: "empty" })), "(empty folder)");
      await assert.rejects(run(ls, { path: "f.txt" }), /is a file, not a folder/);
      await assert.rejects(run(ls, { path: "gone" }), /not found/);
      await assert.rejects(run(ls, { path: ".." }), /outside the session's working directory/);
      assert.match(text(await run(ls, { path: ".." }, { readableRoots: [root] })), /^project\/$/m);
    });
  });
});
