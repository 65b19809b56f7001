/**
 * `arbor export`, run as a real process from a package laid out as it ships (dist/cli.js beside
 * dist/export.js and media/export.css): formats and destinations, one-line errors with the usual
 * exit codes, and the session file never written (not even to repair or migrate it).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { renderSessionExport } from "../../src/core/export";
import { SessionManager } from "../../src/core/session/session-manager";
import { buildCliPackage } from "../support/export-build";
import { writeExportFixture, type ExportFixture } from "../support/export-fixtures";
import { makeTempDir } from "../support/temp-dir";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe("arbor export", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let cli: string;
  let fixture: ExportFixture;
  let work: string;

  const arbor = (args: string[], cwd = work): Run => {
    const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  const oneLineError = (r: Run, code: number, pattern: RegExp): void => {
    assert.equal(r.code, code, r.stderr);
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^arbor: /);
    assert.match(lines[0]!, pattern);
  };
  /** The session file's bytes and times: an export must leave all of them alone. */
  const fingerprint = (file: string) => ({ bytes: readFileSync(file, "utf8"), mtime: statSync(file).mtimeMs, siblings: readdirSync(join(file, "..")).sort() });
  const expectedMarkdown = async (leafId?: string) => {
    const md = renderSessionExport(await SessionManager.open(fixture.file, { readOnly: true }), { format: "md", leafId, generator: "Arbor" });
    return md.replace(/^- Exported by .*$/m, "");
  };
  const withoutStamp = (md: string) => md.replace(/^- Exported by .*$/m, "");

  before(async () => {
    tmp = makeTempDir();
    cli = await buildCliPackage(join(tmp.dir, "pkg"));
  });
  after(() => tmp.cleanup());
  beforeEach(() => {
    work = join(tmp.dir, `work-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(work, "sessions"), { recursive: true });
    fixture = writeExportFixture(join(work, "sessions"));
  });

  it("writes HTML into the current folder by default, named after the session file, and prints where", () => {
    const before = fingerprint(fixture.file);
    const r = arbor(["export", fixture.file]);
    assert.equal(r.code, 0, r.stderr);
    const out = join(work, `${basename(fixture.file, ".jsonl")}.html`);
    assert.equal(r.stdout, `${out}\n`);
    const html = readFileSync(out, "utf8");
    assert.match(html, /^<!DOCTYPE html>/);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-/);
    assert.ok(html.includes("Run the benchmarks before merging."), "the session is in the page");
    assert.deepEqual(fingerprint(fixture.file), before, "the session file, its time and its folder are untouched (no lock, no backup)");
  });

  it("prints Markdown of the current path to standard output, byte for byte (tabs and all)", async () => {
    const r = arbor(["export", fixture.file, "--format", "md"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(withoutStamp(r.stdout), await expectedMarkdown());
    assert.ok(r.stdout.includes("\tat line 3"));
  });

  it("takes the format from --out's extension, lets --format win, and writes to standard output with --out -", async () => {
    assert.equal(arbor(["export", fixture.file, "--out", "a.md"]).code, 0);
    assert.equal(withoutStamp(readFileSync(join(work, "a.md"), "utf8")), await expectedMarkdown());
    assert.equal(arbor(["export", fixture.file, "--out", "sub/../b.markdown"]).code, 0);
    assert.ok(readFileSync(join(work, "b.markdown"), "utf8").startsWith("# Parser"));
    assert.equal(arbor(["export", fixture.file, "--out", "c.txt"]).code, 0);
    assert.match(readFileSync(join(work, "c.txt"), "utf8"), /^<!DOCTYPE html>/, "unknown extension: HTML");
    assert.equal(arbor(["export", fixture.file, "--format", "md", "--out", "d.html"]).code, 0);
    assert.ok(readFileSync(join(work, "d.html"), "utf8").startsWith("# Parser"), "--format wins over the extension");
    const piped = arbor(["export", fixture.file, "--out", "-"]);
    assert.equal(piped.code, 0);
    assert.match(piped.stdout, /^<!DOCTYPE html>/);
    assert.ok(!existsSync(join(work, `${basename(fixture.file, ".jsonl")}.html`)), "nothing written to a file");
  });

  it("exports another branch with --leaf", async () => {
    const r = arbor(["export", fixture.file, "--leaf", fixture.otherLeafId, "--format=md"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(withoutStamp(r.stdout), await expectedMarkdown(fixture.otherLeafId));
    const html = arbor(["export", fixture.file, "--leaf", fixture.otherLeafId, "--out", "-"]).stdout;
    assert.ok(html.includes(`"leafId":"${fixture.otherLeafId}"`), "the page opens on that leaf");
  });

  it("reports bad input in one line with the usual exit codes", () => {
    oneLineError(arbor(["export", fixture.file, "--leaf", "nope"]), 1, /no entry with id nope/);
    oneLineError(arbor(["export", fixture.file, "--format", "pdf"]), 2, /--format must be html or md/);
    oneLineError(arbor(["export"]), 2, /usage: arbor export FILE/);
    oneLineError(arbor(["export", fixture.file, "--out"]), 2, /--out needs a value/);
    oneLineError(arbor(["export", join(work, "missing.jsonl")]), 1, /missing\.jsonl/);
    mkdirSync(join(work, "dir.html"));
    oneLineError(arbor(["export", fixture.file, "--out", "dir.html"]), 1, /is a folder/);
    oneLineError(arbor(["export", fixture.file, "--out", join(work, "no-such-dir", "x.html")]), 1, /cannot write .*ENOENT/);
  });

  it("never writes over a session: not the one exported, not any other .jsonl", () => {
    const before = fingerprint(fixture.file);
    oneLineError(arbor(["export", fixture.file, "--out", fixture.file]), 1, /refusing to write the export over the session file/);
    oneLineError(arbor(["export", fixture.file, "--out", join("sessions", "..", "sessions", basename(fixture.file)), "--format", "md"]), 1, /refusing/);
    oneLineError(arbor(["export", fixture.file, "--out", "other.jsonl"]), 1, /\.jsonl files are sessions/);
    assert.deepEqual(fingerprint(fixture.file), before);
    assert.ok(!existsSync(join(work, "other.jsonl")));
  });

  it("reads a torn session without repairing it", () => {
    appendFileSync(fixture.file, '{"type":"message","id":"torn');
    const before = fingerprint(fixture.file);
    const r = arbor(["export", fixture.file, "--out", "-"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /"badLines":1/);
    assert.deepEqual(fingerprint(fixture.file), before);
  });

  it("says how to build the page when it is missing (Markdown still works)", () => {
    const page = join(tmp.dir, "pkg", "dist", "export.js");
    const saved = readFileSync(page);
    rmSync(page);
    try {
      oneLineError(arbor(["export", fixture.file, "--out", "-"]), 1, /the export page is missing .*npm run build/);
      assert.equal(arbor(["export", fixture.file, "--format", "md"]).code, 0);
    } finally {
      appendFileSync(page, saved);
    }
  });

  it("prints its phases with --timings", () => {
    const r = arbor(["export", fixture.file, "--out", "-", "--timings"]);
    assert.equal(r.code, 0);
    const timings = JSON.parse(r.stderr.trim()) as Record<string, number>;
    for (const phase of ["open", "assets", "render", "write"]) assert.equal(typeof timings[phase], "number", phase);
  });
});
