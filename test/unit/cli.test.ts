/** The `arbor` command line, run as a real process against real files, checked against the reference. */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";
import { SessionManager } from "../../src/core/session/session-manager";
import { assistant, user } from "../support/messages";

const CLI = resolve(__dirname, "../../src/cli/arbor.js");

function arbor(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function assertOneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.match(lines[0]!, /^arbor: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
}

describe("arbor CLI", function () {
  this.timeout(60000);
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  let file: string;
  let ids: string[];
  before(async () => {
    pi = await loadReference();
    tmp = makeTempDir();
    for (let seed = 7; ; seed++) {
      const s = generateReferenceSession(pi, { seed, entries: 120, persistDir: join(tmp.dir, "s") });
      if (s.file && readdirSync(join(tmp.dir, "s")).some((n) => s.file!.endsWith(n))) {
        file = s.file;
        ids = s.ids;
        break;
      }
    }
  });
  after(() => tmp.cleanup());

  it("context prints the reference's buildSessionContext, for the leaf and for any --leaf, and --llm its convertToLlm", () => {
    const ref = pi.SessionManager.open(file);
    const entries = ref.getEntries();
    const atLeaf = JSON.parse(arbor(["context", file]).stdout);
    assert.deepEqual(atLeaf, JSON.parse(JSON.stringify(ref.buildSessionContext())));
    for (const id of ids.filter((_, i) => i % 17 === 0)) {
      const r = arbor(["context", file, "--leaf", id, "--llm"]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      const expected = pi.buildSessionContext(entries, id);
      assert.deepEqual({ messages: out.messages, model: out.model, thinkingLevel: out.thinkingLevel }, JSON.parse(JSON.stringify(expected)));
      assert.deepEqual(out.llm, JSON.parse(JSON.stringify(pi.convertToLlm(expected.messages))));
    }
  });

  it("tree draws every entry, marks the active path and the leaf", () => {
    const r = arbor(["tree", file]);
    assert.equal(r.code, 0, r.stderr);
    const ref = pi.SessionManager.open(file);
    for (const e of ref.getEntries()) assert.ok(r.stdout.includes(`[${e.id}]`), `entry ${e.id} drawn`);
    const leafLine = r.stdout.split("\n").find((l) => l.includes("<- leaf"))!;
    assert.ok(leafLine.includes(`[${ref.getLeafId()}]`));
    const marked = r.stdout.split("\n").filter((l) => l.startsWith("*")).length;
    assert.equal(marked, ref.getBranch().length);
    const json = JSON.parse(arbor(["tree", file, "--json"]).stdout);
    assert.equal(json.leafId, ref.getLeafId());
  });

  it("label sets and clears a label that the reference reads", () => {
    const target = ids[3]!;
    assert.equal(arbor(["label", file, target, "checkpoint"]).code, 0);
    assert.equal(pi.SessionManager.open(file).getLabel(target), "checkpoint");
    assert.equal(arbor(["label", file, target, "--clear"]).code, 0);
    assert.equal(pi.SessionManager.open(file).getLabel(target), undefined);
  });

  it("fork writes a new session of the root-to-entry path, linked to the old file", () => {
    const ref = pi.SessionManager.open(file);
    const target = ref.getEntries().filter((e: { type: string; message?: { role: string } }) => e.type === "message" && e.message?.role === "assistant")[2]!.id;
    const r = arbor(["fork", file, target]);
    assert.equal(r.code, 0, r.stderr);
    const forked = r.stdout.trim();
    const opened = pi.SessionManager.open(forked);
    assert.equal(opened.getHeader()!.parentSession, file);
    assert.deepEqual(opened.getBranch().filter((e: { type: string }) => e.type !== "label").map((e: { id: string }) => e.id), ref.getBranch(target).filter((e: { type: string }) => e.type !== "label").map((e: { id: string }) => e.id));
  });

  it("checkout moves the leaf as the tree does, in the same persisted form, and Pi resumes there", async () => {
    const copy = join(tmp.dir, "checkout.jsonl");
    writeFileSync(copy, readFileSync(file));
    const twin = join(tmp.dir, "checkout-twin.jsonl");
    writeFileSync(twin, readFileSync(file));
    const ref = pi.SessionManager.open(copy);
    type E = { id: string; type: string; parentId: string | null; message?: { role: string; content: unknown } };
    const entries = ref.getEntries() as unknown as E[];
    const path = new Set(entries.length ? ref.getBranch().map((e: { id: string }) => e.id) : []);
    // An assistant reply off the current path (another branch), else any earlier one.
    const target = entries.find((e) => e.message?.role === "assistant" && !path.has(e.id)) ?? entries.filter((e) => e.message?.role === "assistant")[0]!;
    const r = arbor(["checkout", copy, target.id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `leaf ${target.id}\n`);
    const after = pi.SessionManager.open(copy);
    assert.deepEqual(after.buildSessionContext(), pi.buildSessionContext(ref.getEntries(), target.id), "Pi resumes at the entry");
    // The same line the tree's checkout writes (SessionManager.checkout in the extension).
    const inProcess = await SessionManager.open(twin);
    inProcess.checkout(target.id);
    await inProcess.close();
    const last = (f: string) => JSON.parse(readFileSync(f, "utf8").trim().split("\n").pop()!) as Record<string, unknown>;
    const strip = ({ id: _id, timestamp: _t, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(strip(last(copy)), strip(last(twin)));
    assert.equal(last(copy).type, "custom");
  });

  it("checkout of a user message puts the leaf on its parent and prints the text; --json says both", () => {
    const copy = join(tmp.dir, "checkout-user.jsonl");
    writeFileSync(copy, readFileSync(file));
    type E = { id: string; type: string; parentId: string | null; message?: { role: string; content: unknown } };
    const users = (pi.SessionManager.open(copy).getEntries() as unknown as E[]).filter((e) => e.message?.role === "user" && typeof e.message.content === "string" && e.parentId);
    const target = users[1] ?? users[0]!;
    const text = target.message!.content as string;
    const r = arbor(["checkout", copy, target.id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `leaf ${target.parentId}\ntext of ${target.id}, to edit and send again:\n${text}\n`);
    assert.deepEqual(pi.SessionManager.open(copy).buildSessionContext(), pi.buildSessionContext(pi.SessionManager.open(file).getEntries(), target.parentId));
    const json = arbor(["checkout", copy, target.id, "--json"]);
    assert.deepEqual(JSON.parse(json.stdout), { leafId: target.parentId, editText: text });
  });

  it("checkout refuses, with one line, while another process holds the session, and writes nothing", async () => {
    const copy = join(tmp.dir, "checkout-held.jsonl");
    writeFileSync(copy, readFileSync(file));
    const { spawn } = await import("node:child_process");
    const holder = spawn(process.execPath, [resolve(__dirname, "../../../test/support/lock-holder.js"), resolve(__dirname, "../../src/core/session/session-manager.js"), copy], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((ok, fail) => {
        holder.stdout.once("data", (d: Buffer) => (String(d).startsWith("held") ? ok() : fail(new Error(String(d)))));
        holder.once("exit", (code) => fail(new Error(`the lock holder exited ${code}`)));
      });
      const held = readFileSync(copy, "utf8");
      assertOneLineError(arbor(["checkout", copy, ids[2]!]), /open for writing in another Arbor window/);
      assert.equal(readFileSync(copy, "utf8"), held, "nothing written while held");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("check lists each bad line by its number and exits 1; a clean file exits 0", () => {
    assert.equal(arbor(["check", file]).code, 0);
    const bad = join(tmp.dir, "bad.jsonl");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    lines.splice(2, 0, "{oops");
    lines.splice(5, 0, JSON.stringify({ type: "label", id: "0badbad0", parentId: "nothere1", timestamp: new Date().toISOString(), targetId: "nothere2", label: "x" }));
    writeFileSync(bad, `${lines.join("\n")}\n{"type":"mess`);
    const r = arbor(["check", bad]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^line 3: malformed/m);
    assert.match(r.stdout, /^line 6: orphan/m);
    assert.match(r.stdout, /^line 6: dangling/m);
    assert.match(r.stdout, new RegExp(`^line ${lines.length + 1}: torn`, "m"));
  });

  it("read-only commands never write to a session file, not even to migrate or repair it", () => {
    const v1 = join(tmp.dir, "v1.jsonl");
    writeFileSync(v1, [JSON.stringify({ type: "session", id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" }), JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: user("q") }), JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:02.000Z", message: assistant("a") })].join("\n") + '\n{"torn');
    const before = readFileSync(v1);
    const mtime = statSync(v1).mtimeMs;
    for (const args of [["tree", v1], ["context", v1, "--llm"], ["check", v1], ["ls", "--dir", tmp.dir]]) arbor(args);
    assert.deepEqual(readFileSync(v1), before);
    assert.equal(statSync(v1).mtimeMs, mtime);
    assert.deepEqual(readdirSync(tmp.dir).filter((n) => n.startsWith("v1")), ["v1.jsonl"]);
  });

  it("ls lists the sessions of a workspace from Pi's folder, and --all every workspace", () => {
    const agentDir = join(tmp.dir, "agent");
    const cwd = "/work/demo-app";
    generateReferenceSession(pi, { seed: 3, entries: 40, persistDir: join(agentDir, "sessions", "--work-demo-app--"), cwd });
    const here = arbor(["ls", "--cwd", cwd, "--json"], { PI_CODING_AGENT_DIR: agentDir, XDG_CACHE_HOME: join(tmp.dir, "cache") });
    assert.equal(here.code, 0, here.stderr);
    const expected = pi.SessionManager.list(cwd, join(agentDir, "sessions", "--work-demo-app--"));
    return expected.then((exp) => {
      assert.deepEqual(JSON.parse(here.stdout).map((s: { path: string }) => s.path), exp.map((s) => s.path));
      const all = arbor(["ls", "--all"], { PI_CODING_AGENT_DIR: agentDir, XDG_CACHE_HOME: join(tmp.dir, "cache") });
      assert.equal(all.code, 0);
      for (const s of exp) assert.ok(all.stdout.includes(s.path));
      const none = arbor(["ls", "--cwd", "/nowhere"], { PI_CODING_AGENT_DIR: agentDir });
      assert.match(none.stdout, /no sessions/);
    });
  });

  it("every error is one clear line with a non-zero exit", () => {
    assertOneLineError(arbor(["context", join(tmp.dir, "missing.jsonl")]), /not found/);
    const notSession = join(tmp.dir, "notes.jsonl");
    writeFileSync(notSession, '{"hello":"world"}\n');
    assertOneLineError(arbor(["tree", notSession]), /not a Pi session file/i);
    const empty = join(tmp.dir, "empty.jsonl");
    writeFileSync(empty, "");
    assertOneLineError(arbor(["check", empty]), /empty/);
    assertOneLineError(arbor(["context", file, "--leaf", "ffff0000"]), /ffff0000/);
    assertOneLineError(arbor(["label", file, "ffff0001", "x"]), /ffff0001/);
    assertOneLineError(arbor(["fork", file, "ffff0002"]), /ffff0002/);
    assertOneLineError(arbor(["checkout", file, "ffff0003"]), /ffff0003/);
    const usage = arbor(["frobnicate"]);
    assertOneLineError(usage, /unknown command/);
    assert.equal(usage.code, 2);
    assertOneLineError(arbor(["context", file, "--bogus"]), /unknown option --bogus/);
    assertOneLineError(arbor(["tree"]), /usage: arbor tree/);
  });

  it("--timings prints phase times as JSON on stderr", () => {
    const r = arbor(["context", file, "--timings"]);
    const timings = JSON.parse(r.stderr.trim());
    for (const phase of ["open", "resolve", "print", "total"]) assert.equal(typeof timings[phase], "number", phase);
  });
});
