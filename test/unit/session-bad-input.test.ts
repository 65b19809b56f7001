/** Bad input never loses data: torn, garbled, empty and header-less files, unknown entry types, old formats. */
import * as assert from "node:assert/strict";
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { SessionManager } from "../../src/core/session/session-manager";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

const HEADER = { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-000000000001", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };

function entry(id: string, parentId: string | null, text: string, role: "user" | "assistant" = "user"): string {
  const message = role === "user" ? user(text) : assistant(text);
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message });
}

describe("session files with bad input", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  before(async () => (pi = await loadReference()));
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  const write = (name: string, text: string): string => {
    const file = join(tmp.dir, name);
    writeFileSync(file, text);
    return file;
  };

  it("refuses an empty file clearly and leaves it as it was", async () => {
    for (const text of ["", "\n\n  \n"]) {
      const file = write("empty.jsonl", text);
      await assert.rejects(SessionManager.open(file), (e: unknown) => e instanceof SessionError && e.code === "empty" && e.message.includes(file));
      assert.equal(readFileSync(file, "utf8"), text);
    }
  });

  it("refuses a file without a session header and never truncates it", async () => {
    const text = `${entry("aaaaaaaa", null, "no header")}\n`;
    const file = write("nohead.jsonl", text);
    await assert.rejects(SessionManager.open(file), (e: unknown) => e instanceof SessionError && e.code === "bad-header" && /not a Pi session file/i.test(e.message));
    assert.equal(readFileSync(file, "utf8"), text);
  });

  it("refuses a missing file and a folder with one-line errors", async () => {
    await assert.rejects(SessionManager.open(join(tmp.dir, "nope.jsonl")), (e: unknown) => e instanceof SessionError && e.code === "not-found");
    await assert.rejects(SessionManager.open(tmp.dir), (e: unknown) => e instanceof SessionError && /directory/.test(e.message));
  });

  it("reports a garbled line by its number, keeps it, and reads everything around it", async () => {
    const text = [JSON.stringify(HEADER), entry("aaaaaaaa", null, "one"), "{this is not json", entry("bbbbbbbb", "aaaaaaaa", "two", "assistant"), "[1,2]", ""].join("\n");
    const file = write("garbled.jsonl", text);
    const sm = await SessionManager.open(file);
    assert.deepEqual(sm.getProblems().map((p) => [p.line, p.kind]), [[3, "malformed"], [5, "not-an-entry"]]);
    assert.deepEqual(sm.getEntries().map((e) => e.id), ["aaaaaaaa", "bbbbbbbb"]);
    const c = sm.appendMessage(user("three"));
    await sm.close();
    const after = readFileSync(file, "utf8").split("\n");
    assert.equal(after[2], "{this is not json", "the bad line stays in the file");
    assert.equal(after[4], "[1,2]");
    assert.equal(JSON.parse(after[5]!).id, c);
    assert.equal(JSON.parse(after[5]!).parentId, "bbbbbbbb");
  });

  it("a torn last line loses nothing before it and never corrupts the next append", async () => {
    const good = [JSON.stringify(HEADER), entry("aaaaaaaa", null, "one"), entry("bbbbbbbb", "aaaaaaaa", "two", "assistant")].join("\n");
    const torn = `${good}\n{"type":"message","id":"cccccccc","parentId":"bbbbbbbb","timest`;
    const file = write("torn.jsonl", torn);
    const sm = await SessionManager.open(file);
    assert.deepEqual(sm.getEntries().map((e) => e.id), ["aaaaaaaa", "bbbbbbbb"]);
    assert.deepEqual(sm.getProblems().map((p) => [p.line, p.kind]), [[4, "torn"]]);
    assert.equal(sm.getLeafId(), "bbbbbbbb");
    const d = sm.appendMessage(user("after the crash"));
    await sm.close();
    const text = readFileSync(file, "utf8");
    assert.ok(text.startsWith(torn + "\n"), "the torn bytes are kept, on their own line");
    const reopened = await SessionManager.open(file, { readOnly: true });
    assert.deepEqual(reopened.getEntries().map((e) => e.id), ["aaaaaaaa", "bbbbbbbb", d]);
    assert.deepEqual(reopened.getProblems().map((p) => [p.line, p.kind]), [[4, "malformed"]]);
    // the reference reads the same entries from the repaired file
    assert.deepEqual(pi.SessionManager.open(file).getEntries().map((e: { id: string }) => e.id), ["aaaaaaaa", "bbbbbbbb", d]);
  });

  it("a complete last line without its newline is read, and the next append starts on a new line", async () => {
    const text = [JSON.stringify(HEADER), entry("aaaaaaaa", null, "one")].join("\n");
    const file = write("nonl.jsonl", text);
    const sm = await SessionManager.open(file);
    assert.deepEqual(sm.getProblems(), []);
    const b = sm.appendMessage(assistant("two"));
    await sm.close();
    assert.deepEqual((await SessionManager.open(file, { readOnly: true })).getEntries().map((e) => e.id), ["aaaaaaaa", b]);
  });

  it("keeps an unknown entry type, shows it as such, and passes it through forks", async () => {
    const future = { type: "hologram", id: "ffffffff", parentId: "aaaaaaaa", timestamp: "2026-01-01T00:00:02.000Z", beams: [1, 2] };
    const text = [JSON.stringify(HEADER), entry("aaaaaaaa", null, "one"), JSON.stringify(future), entry("bbbbbbbb", "ffffffff", "two", "assistant"), ""].join("\n");
    const file = write("future.jsonl", text);
    const sm = await SessionManager.open(file);
    assert.deepEqual(sm.getEntry("ffffffff"), future);
    assert.equal(sm.getSummary("ffffffff")!.type, "hologram");
    assert.match(sm.getSummary("ffffffff")!.preview, /unknown entry type "hologram"/);
    assert.deepEqual(sm.buildSessionContext(), pi.SessionManager.open(file).buildSessionContext());
    const forked = await sm.createBranchedSession("bbbbbbbb");
    assert.ok(readFileSync(forked!, "utf8").includes('"beams":[1,2]'));
    await sm.close();
  });

  it("reads a huge entry lazily and exactly", async () => {
    const big = "x".repeat(8 * 1024 * 1024);
    const text = [JSON.stringify(HEADER), entry("aaaaaaaa", null, big), entry("bbbbbbbb", "aaaaaaaa", "small", "assistant"), ""].join("\n");
    const file = write("huge.jsonl", text);
    const sm = await SessionManager.open(file, { readOnly: true });
    assert.equal(sm.getSummary("aaaaaaaa")!.preview.length <= 200, true);
    const e = sm.getEntry("aaaaaaaa")!;
    assert.equal(e.type === "message" && e.message.role === "user" && e.message.content, big);
  });

  it("migrates v1 and v2 files in memory, and rewrites them only on the first append, crash-safely with a backup", async () => {
    const v1 = [
      JSON.stringify({ type: "session", id: "old-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" }),
      JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: user("one") }),
      JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:02.000Z", message: assistant("two") }),
      "garbage line",
      JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:03.000Z", message: { role: "hookMessage", customType: "h", content: "hook", display: true, timestamp: 1 } }),
      JSON.stringify({ type: "compaction", timestamp: "2025-01-01T00:00:04.000Z", summary: "s", firstKeptEntryIndex: 2, tokensBefore: 10 }),
      "",
    ].join("\n");
    const file = write("v1.jsonl", v1);
    const refCopy = join(tmp.dir, "v1-ref.jsonl");
    copyFileSync(file, refCopy);
    const sm = await SessionManager.open(file);
    assert.equal(readFileSync(file, "utf8"), v1, "opening never writes");
    const ref = pi.SessionManager.open(refCopy); // the reference migrates and rewrites its copy
    const strip = (es: { id: string; parentId: string | null }[]) => {
      const pos = new Map(es.map((e, i) => [e.id, i]));
      return es.map((e) => {
        const c = { ...e, id: pos.get(e.id), parentId: e.parentId === null ? null : pos.get(e.parentId) } as Record<string, unknown>;
        if (typeof c.firstKeptEntryId === "string") c.firstKeptEntryId = pos.get(c.firstKeptEntryId as string);
        return c;
      });
    };
    assert.deepEqual(strip(sm.getEntries()), strip(ref.getEntries()));
    const last = sm.appendMessage(user("new"));
    await sm.close();
    const backups = readdirSync(tmp.dir).filter((n) => n.startsWith("v1.jsonl.v1-") && n.endsWith(".bak"));
    assert.equal(backups.length, 1);
    assert.equal(readFileSync(join(tmp.dir, backups[0]!), "utf8"), v1, "the backup holds the original");
    const rewritten = readFileSync(file, "utf8").split("\n");
    assert.equal(JSON.parse(rewritten[0]!).version, 3);
    assert.equal(rewritten[3], "garbage line", "bad lines survive the rewrite");
    const reread = pi.SessionManager.open(file);
    assert.equal(reread.getLeafId(), last);
    assert.deepEqual(strip(reread.getEntries()).slice(0, 4), strip(ref.getEntries()));
    const mine = await SessionManager.open(file, { readOnly: true });
    assert.deepEqual(mine.getEntries(), reread.getEntries());
  });

  it("a second writer appending to the file (Pi in a terminal) does not lose either side's lines", async () => {
    const file = write("two.jsonl", [JSON.stringify(HEADER), entry("aaaaaaaa", null, "one"), entry("bbbbbbbb", "aaaaaaaa", "two", "assistant"), ""].join("\n"));
    const sm = await SessionManager.open(file);
    const ref = pi.SessionManager.open(file);
    ref.appendMessage(user("from pi"));
    const ours = sm.appendMessage(user("from arbor"));
    await sm.flush();
    await sm.close();
    const all = pi.SessionManager.open(file).getEntries().map((e: { id: string }) => e.id);
    assert.equal(all.length, 4);
    assert.ok(all.includes(ours));
  });
});

describe("session files larger than one parsing slice", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("reads every entry and numbers every bad line right in a 24 MB file (parsed in slices)", async () => {
    const lines = [JSON.stringify(HEADER)];
    let parent: string | null = null;
    const ids: string[] = [];
    const bad: number[] = [];
    for (let i = 0; lines.length < 32_000; i++) {
      if (i % 5000 === 4999) {
        lines.push(`{broken line ${i}`);
        bad.push(lines.length);
        continue;
      }
      const id = i.toString(16).padStart(8, "0");
      lines.push(entry(id, parent, `message ${i} ${"y".repeat(600)}`, i % 2 ? "assistant" : "user"));
      ids.push(id);
      parent = id;
    }
    const file = join(tmp.dir, "big.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n{"type":"mess`);
    const sm = await SessionManager.open(file, { readOnly: true });
    assert.deepEqual(sm.getEntries().map((e) => e.id), ids);
    assert.deepEqual(sm.getProblems().map((p) => [p.line, p.kind]), [...bad.map((l) => [l, "malformed"]), [lines.length + 1, "torn"]]);
    assert.equal(sm.getSummary(ids[ids.length - 1]!)!.line, lines.length);
    assert.equal(sm.getLeafId(), ids[ids.length - 1]);
  });
});
