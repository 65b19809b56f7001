/**
 * `arbor tree` at any size: the flat JSON and NDJSON forms (one object per entry, parent and
 * children ids, the reference's tree), the views that show less (--depth, --leaf-path, --limit),
 * and a chain far deeper than any stack. Run as a real process on real files.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RefTreeNode } from "../support/reference";
import { generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";
import { SessionManager } from "../../src/core/session/session-manager";
import { assistant, user } from "../support/messages";

const CLI = resolve(__dirname, "../../src/cli/arbor.js");

/** Indexes and caches of the sessions made here go to a folder of the run's, not the user's. */
const cacheHome = makeTempDir();
after(() => cacheHome.cleanup());
const env = { ...process.env, XDG_CACHE_HOME: cacheHome.dir };

function arbor(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 30, env });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface FlatEntry {
  id: string;
  parentId: string | null;
  children: string[];
  type: string;
  role?: string;
  timestamp: string;
  line: number;
  label?: string;
  active?: boolean;
  leaf?: boolean;
  folded?: number;
  summary?: Record<string, unknown>;
}

/** The reference's tree in drawing order (depth first, children in its order). */
function refPreorder(roots: RefTreeNode[]): RefTreeNode[] {
  const out: RefTreeNode[] = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}

describe("arbor tree at any size", function () {
  this.timeout(120_000);
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  const files: string[] = [];
  before(async () => {
    pi = await loadReference();
    tmp = makeTempDir();
    for (let seed = 3; files.length < 4; seed++) {
      const dir = join(tmp.dir, `s${seed}`);
      const s = generateReferenceSession(pi, { seed, entries: 150, persistDir: dir });
      if (s.file && readdirSync(dir).length) files.push(s.file);
    }
  });
  after(() => tmp.cleanup());

  it("--json is the reference's tree, flat: every entry once, in drawing order, with parent and children ids", () => {
    for (const file of files) {
      const r = arbor(["tree", file, "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout) as { leafId: string; entries: FlatEntry[]; problems: unknown[]; entryCount: number };
      const ref = pi.SessionManager.open(file);
      const order = refPreorder(ref.getTree());
      assert.deepEqual(doc.entries.map((e) => e.id), order.map((n) => n.entry.id), "drawing order");
      for (const [k, e] of doc.entries.entries()) {
        const n = order[k]!;
        assert.equal(e.parentId, n.entry.parentId);
        assert.deepEqual(e.children, n.children.map((c) => c.entry.id));
        assert.equal(e.type, n.entry.type);
        assert.equal(e.timestamp, n.entry.timestamp);
        assert.equal(e.label, n.label);
        assert.equal(e.summary, undefined, "no bodies read without --preview");
      }
      const path = new Set(ref.getBranch().map((e: { id: string }) => e.id));
      assert.deepEqual(doc.entries.filter((e) => e.active).map((e) => e.id).sort(), [...path].sort());
      assert.deepEqual(doc.entries.filter((e) => e.leaf).map((e) => e.id), [ref.getLeafId()]);
      assert.equal(doc.leafId, ref.getLeafId());
      assert.equal(doc.entryCount, ref.getEntries().length);
    }
  });

  it("--ndjson writes a session line, then one line per entry; --preview adds the summaries the tree draws", async () => {
    const file = files[0]!;
    const lines = arbor(["tree", file, "--ndjson", "--preview"]).stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as FlatEntry & { file?: string });
    assert.equal(lines[0]!.type, "session");
    assert.equal(lines[0]!.file, file);
    const json = JSON.parse(arbor(["tree", file, "--json", "--preview"]).stdout) as { entries: FlatEntry[] };
    assert.deepEqual(lines.slice(1), json.entries);
    const sm = await SessionManager.open(file, { readOnly: true, index: false });
    for (const e of json.entries) assert.deepEqual(e.summary, JSON.parse(JSON.stringify(sm.getSummary(e.id))));
    await sm.close();
  });

  it("--limit, --depth and --leaf-path show less, and say so", () => {
    const file = files[1]!;
    const all = arbor(["tree", file]).stdout.trimEnd().split("\n");
    const limited = arbor(["tree", file, "--limit", "5"]).stdout.trimEnd().split("\n");
    const header = all[0]!.startsWith("# ") ? 1 : 0;
    assert.deepEqual(limited.slice(0, header + 5), all.slice(0, header + 5));
    assert.match(limited[limited.length - 1]!, /stopped after 5 entries \(--limit\)/);
    assert.equal((JSON.parse(arbor(["tree", file, "--json", "--limit", "7"]).stdout) as { entries: unknown[] }).entries.length, 7);

    const flat = arbor(["tree", file, "--depth", "0"]).stdout;
    assert.ok(!/[├│]/.test(flat), "no branch drawn at depth 0");
    assert.match(flat, /… \d+ entries in \d+ branches below \(--depth 0\)/);

    const ref = pi.SessionManager.open(file);
    const onPath = arbor(["tree", file, "--leaf-path"]).stdout;
    for (const e of ref.getBranch()) if (e.type !== "custom") assert.ok(onPath.includes(`[${e.id}]`), `path entry ${e.id} shown`);
    assert.match(onPath, /\(\+\d+ more in this branch\)/);
    const doc = JSON.parse(arbor(["tree", file, "--json", "--leaf-path"]).stdout) as { entries: FlatEntry[] };
    const path = new Set(ref.getBranch().map((e: { id: string }) => e.id));
    for (const e of doc.entries) assert.ok(path.has(e.id) || e.folded !== undefined, `${e.id} is on the path or stands for a folded branch`);
  });

  it("draws a chain far deeper than any stack, and bounds the indentation of deep branches", () => {
    const header = { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-00000000c4a1", timestamp: "2026-01-01T00:00:00.000Z", cwd: tmp.dir };
    const lines = [JSON.stringify(header)];
    let parent: string | null = null;
    for (let i = 0; i < 30_000; i++) {
      const id = `c${i.toString(16).padStart(7, "0")}`;
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:01.000Z", message: i % 2 ? assistant(`a${i}`) : user(`u${i}`) }));
      // A side branch at every 100th entry nests the chain one level deeper each time.
      if (i % 100 === 50) lines.push(JSON.stringify({ type: "message", id: `s${i.toString(16).padStart(7, "0")}`, parentId: id, timestamp: "2026-01-01T00:00:00.500Z", message: user("side") }));
      parent = id;
    }
    const file = join(tmp.dir, "deep.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const json = arbor(["tree", file, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { entries: unknown[] }).entries.length, lines.length - 1);
    const text = arbor(["tree", file]);
    assert.equal(text.code, 0, text.stderr);
    const drawn = text.stdout.trimEnd().split("\n");
    assert.equal(drawn.length, lines.length - 1);
    assert.ok(drawn.reduce((m, l) => Math.max(m, l.length), 0) < 120, "indentation stays bounded");
    assert.match(drawn[drawn.length - 1]!, /^\* ‹\d+›/);
  });

  it("stops quietly, with status 0, when its reader closes the pipe early (arbor tree FILE | head)", async () => {
    const { spawn } = await import("node:child_process");
    const header = { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-00000000c4a2", timestamp: "2026-01-01T00:00:00.000Z", cwd: tmp.dir };
    const lines = [JSON.stringify(header)];
    // About 2 MB of tree text: far more than a pipe holds, so writes go on after the reader left.
    for (let i = 0; i < 20_000; i++) {
      const id = `p${i.toString(16).padStart(7, "0")}`;
      lines.push(JSON.stringify({ type: "message", id, parentId: i ? `p${(i - 1).toString(16).padStart(7, "0")}` : null, timestamp: "2026-01-01T00:00:01.000Z", message: user(`question ${i} ${"words ".repeat(15)}`) }));
    }
    const file = join(tmp.dir, "piped.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    for (const form of [[], ["--ndjson"], ["--json"]]) {
      const child = spawn(process.execPath, [CLI, "tree", file, ...form], { stdio: ["ignore", "pipe", "pipe"], env });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      // Read the first line, then go away as `head -1` does.
      const first = await new Promise<string>((done) => {
        let got = "";
        child.stdout.on("data", (d: Buffer) => {
          got += d.toString();
          if (got.includes("\n")) {
            child.stdout.destroy();
            done(got.slice(0, got.indexOf("\n")));
          }
        });
      });
      const code = await new Promise<number | null>((done) => child.on("exit", (c) => done(c)));
      assert.ok(first.length > 0);
      assert.equal(stderr, "", `${form.join(" ")}: nothing on stderr`);
      assert.equal(code, 0, `${form.join(" ")}: status 0`);
    }
  });
});
