/**
 * Issue 9 point 8: a crafted session must not drive the terminal through the `arbor` command line
 * (OSC 52 sets the clipboard, CSI moves the cursor and clears lines, a carriage return or a newline
 * in a field forges output, bidi controls reorder it). Human-readable output escapes them; `--json`
 * gives the exact strings back. Run as a real process, on real files.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { escapeTerminal, isUnsafeCode, oneLine } from "../../src/cli/terminal-text";
import { makeTempDir } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

const CLI = resolve(__dirname, "../../src/cli/arbor.js");

function arbor(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const OSC52 = "\u001b]52;c;cm0gLXJmIH4K\u0007";
const CLEAR = "\u001b[2J\u001b[H";
const C1_CSI = "\u009b31m";
const RLO = "\u202e";
/** Whatever a terminal would act on (a newline is fine only where the CLI itself puts one). */
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function assertInert(text: string, what: string): void {
  const m = ACTIVE.exec(text);
  assert.equal(m, null, `${what} holds U+${m?.[0].charCodeAt(0).toString(16).padStart(4, "0")} at ${m?.index}: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 30), (m?.index ?? 0) + 30))}`);
}

describe("the command line never prints a session's control characters raw (issue 9.8)", function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let file: string;
  const name = `Evil${OSC52}\nforged line`;
  const label = `tag${CLEAR}${RLO}gnp.exe`;
  const text = `hello${C1_CSI}world\rFAKE PROMPT$ ${OSC52}`;
  const tool = `bash${CLEAR}`;
  const oddType = `future${OSC52}`;
  const oddId = "ab\u001b[2Jcd";

  before(() => {
    tmp = makeTempDir();
    const dir = join(tmp.dir, "sessions");
    mkdirSync(dir);
    file = join(dir, `2026-01-01T00-00-00-000Z_evil\u001b]0;pwned\u0007.jsonl`);
    const reply = assistant("done");
    reply.content = [{ type: "text", text: `answer${CLEAR}` }, { type: "toolCall", id: "c1", name: tool, arguments: {} }];
    const lines = [
      { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-0000000000e1", timestamp: "2026-01-01T00:00:00.000Z", cwd: tmp.dir },
      { type: "message", id: "aaaaaaa1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: user(text) },
      { type: "message", id: "aaaaaaa2", parentId: "aaaaaaa1", timestamp: "2026-01-01T00:00:02.000Z", message: reply },
      { type: oddType, id: oddId, parentId: "aaaaaaa2", timestamp: "2026-01-01T00:00:03.000Z" },
      { type: "label", id: "aaaaaaa4", parentId: oddId, timestamp: "2026-01-01T00:00:04.000Z", targetId: "aaaaaaa1", label },
      { type: "session_info", id: "aaaaaaa5", parentId: "aaaaaaa4", timestamp: "2026-01-01T00:00:05.000Z", name },
    ].map((l) => JSON.stringify(l));
    // A garbled line whose parse error quotes the raw bytes back.
    lines.splice(3, 0, `{"oops${OSC52}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
  });
  after(() => tmp.cleanup());

  it("tree shows the escape sequences as visible text, one line per entry", () => {
    const r = arbor(["tree", file]);
    assert.equal(r.code, 0, r.stderr);
    assertInert(r.stdout, "tree stdout");
    assertInert(r.stderr, "tree stderr");
    assert.ok(r.stdout.includes("\\x1b]52;c;cm0gLXJmIH4K\\x07"), r.stdout);
    assert.ok(r.stdout.includes("# Evil\\x1b]52;c;cm0gLXJmIH4K\\x07\\nforged line"), "the name stays on its own line");
    assert.ok(r.stdout.includes("\\x9b31m"), "a C1 control made visible");
    assert.ok(r.stdout.includes("\\u202e"), "bidi override made visible");
    assert.ok(r.stdout.includes("[ab\\x1b[2Jcd]"), "an id from the file is escaped too");
    // the header line, then one line per entry: no field forged a line of its own
    assert.equal(r.stdout.trimEnd().split("\n").length, 1 + 5);
    assert.match(r.stderr, /warning: line 4 is not valid JSON/);
  });

  it("ls, check, label and fork escape what they print", () => {
    const dir = join(tmp.dir, "sessions");
    const env = { XDG_CACHE_HOME: join(tmp.dir, "cache") };
    const ls = arbor(["ls", "--dir", dir], env);
    assert.equal(ls.code, 0, ls.stderr);
    assertInert(ls.stdout, "ls stdout");
    assert.ok(ls.stdout.includes("_evil\\x1b]0;pwned\\x07.jsonl"), "the path is escaped");
    const check = arbor(["check", file]);
    assertInert(check.stdout, "check stdout");
    assert.match(check.stdout, /^line 4: malformed/m);
    const labelled = arbor(["label", file, "aaaaaaa2", `ok${OSC52}`]);
    assert.equal(labelled.code, 0, labelled.stderr);
    assertInert(labelled.stdout, "label stdout");
    const fork = arbor(["fork", file, "aaaaaaa2"]);
    assert.equal(fork.code, 0, fork.stderr);
    assertInert(fork.stdout, "fork stdout");
    const missing = arbor(["context", join(dir, `nope${CLEAR}.jsonl`)]);
    assert.notEqual(missing.code, 0);
    assertInert(missing.stderr, "error line");
    assert.equal(missing.stderr.trimEnd().split("\n").length, 1);
  });

  it("--json stays exact: the strings come back byte for byte", () => {
    const tree = JSON.parse(arbor(["tree", file, "--json", "--preview"]).stdout) as { name: string; entries: { id: string; summary: { preview: string } }[] };
    assert.equal(tree.name, name);
    assert.equal(tree.entries[0]!.summary.preview, `hello${C1_CSI}world FAKE PROMPT$ ${OSC52}`.replace("\r", " "));
    assert.ok(tree.entries.some((e) => e.id === oddId), "an id from the file comes back exact");
    const context = JSON.parse(arbor(["context", file, "--leaf", "aaaaaaa2"]).stdout) as { messages: { content: unknown }[] };
    assert.equal(context.messages[0]!.content, text);
    const ls = JSON.parse(arbor(["ls", "--dir", join(tmp.dir, "sessions"), "--json"], { XDG_CACHE_HOME: join(tmp.dir, "cache") }).stdout) as { path: string; name?: string }[];
    assert.ok(ls.some((s) => s.path === file && s.name === name));
    const check = JSON.parse(arbor(["check", file, "--json"]).stdout) as { unknownTypes: string[] };
    assert.deepEqual(check.unknownTypes, [oddType]);
  });

  it("JSON on a terminal (a real pty) has C1 and bidi controls escaped and reads back the same strings; piped it is exact", function () {
    if (spawnSync("script", ["--version"]).status !== 0) this.skip();
    const onPty = (args: string[]): string => {
      // script(1) runs the command on a pseudo-terminal: stdout.isTTY is true, as in a user's shell.
      const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
      const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.replace(/\r\n/g, "\n");
    };
    for (const args of [["context", file, "--leaf", "aaaaaaa2"], ["tree", file, "--json", "--preview"], ["tree", file, "--ndjson", "--preview"]]) {
      const shown = onPty(args);
      assertInert(shown.replace(/\n/g, ""), `arbor ${args[0]} ${args[2] ?? ""} on a terminal`);
      const piped = arbor(args).stdout;
      assert.match(piped, /[\u0080-\u009f\u202e]/, "piped output is exact, controls included");
      const parse = (t: string): unknown => (args.includes("--ndjson") ? t.trim().split("\n").map((l) => JSON.parse(l) as unknown) : JSON.parse(t));
      assert.deepEqual(parse(shown), parse(piped));
    }
  });

  it("escapeTerminal keeps newlines, oneLine does not; plain text is unchanged", () => {
    assert.equal(escapeTerminal("a\nb\u001b[1mc\td"), "a\nb\\x1b[1mc\\td");
    assert.equal(oneLine("a\nb\u202ec"), "a\\nb\\u202ec");
    const plain = "│  ├─ user: héllo wörld ✓ 日本語 → [abc]";
    assert.equal(escapeTerminal(plain), plain);
    assert.equal(oneLine(plain), plain);
  });

  it("the fast scan finds exactly the characters the pattern escapes (every UTF-16 code unit)", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      // oneLine applies the pattern with no scan first (and escapes newlines too).
      const byPattern = c !== 0x0a && oneLine(ch) !== ch;
      assert.equal(isUnsafeCode(c), byPattern, `U+${c.toString(16).padStart(4, "0")}`);
      if (byPattern) assert.notEqual(escapeTerminal(`${"x".repeat(1000)}${ch}`), `${"x".repeat(1000)}${ch}`);
    }
  });
});
