/**
 * Migration, differentially: version-1 and version-2 files made from random sessions the reference
 * wrote (downgraded as the formats define), opened by the reference (on a copy: it rewrites what it
 * migrates) and by Arbor (in memory), must give the same entries, the same tree and the same context
 * at every leaf. Version 1 had no ids (entries chain in file order, a compaction names its first kept
 * entry by line index); version 2 had ids and the `hookMessage` role. Ids that the migration makes
 * up are random on both sides, so entries are compared by position.
 */
import * as assert from "node:assert/strict";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import type { SessionContext, SessionEntry } from "../../src/core/session/types";
import { createRng, generateReferenceSession, type Rng } from "../support/random-session";
import { referenceFixture, type RefTreeNode } from "../support/reference";

type Line = Record<string, unknown>;

function readLines(file: string): Line[] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line);
}

function writeLines(file: string, lines: (Line | string)[]): void {
  writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
}

/** v3 -> v2: the header says version 2 and custom messages carry their old role, `hookMessage`. */
function downgradeToV2(lines: Line[]): Line[] {
  return lines.map((line) => {
    const copy = structuredClone(line);
    if (copy.type === "session") copy.version = 2;
    const message = copy.message as { role?: string } | undefined;
    if (copy.type === "message" && message?.role === "custom") message.role = "hookMessage";
    return copy;
  });
}

/**
 * v3 -> v1: one branch (root to `leafId`) in file order, without ids or parents, a compaction naming
 * its first kept entry by index into the file's lines (header = 0), no version in the header.
 * Labels point at ids, which v1 did not have: they are left out.
 */
function downgradeToV1(lines: Line[], pathIds: readonly string[]): Line[] {
  const header = structuredClone(lines[0]!);
  delete header.version;
  const byId = new Map(lines.slice(1).map((l) => [l.id as string, l]));
  const kept = pathIds.map((id) => byId.get(id)!).filter((l) => l.type !== "label");
  const index = new Map(kept.map((l, i) => [l.id as string, i + 1]));
  const out: Line[] = [header];
  for (const line of kept) {
    const copy = structuredClone(line);
    delete copy.id;
    delete copy.parentId;
    if (copy.type === "compaction") {
      const at = index.get(copy.firstKeptEntryId as string);
      delete copy.firstKeptEntryId;
      if (at !== undefined) copy.firstKeptEntryIndex = at;
    }
    const message = copy.message as { role?: string } | undefined;
    if (copy.type === "message" && message?.role === "custom") message.role = "hookMessage";
    out.push(copy);
  }
  return out;
}

/** Replaces ids by positions in file order (ids the migration invents differ on each side). */
function byPosition(entries: readonly SessionEntry[]): (id: unknown) => unknown {
  const pos = new Map(entries.map((e, i) => [e.id, i]));
  return (id) => (typeof id === "string" && pos.has(id) ? `#${pos.get(id)}` : id);
}

function normalizeEntry(entry: SessionEntry, at: (id: unknown) => unknown): Line {
  const copy = structuredClone(entry) as unknown as Line;
  for (const key of ["id", "parentId", "firstKeptEntryId", "fromId", "targetId"]) if (key in copy) copy[key] = at(copy[key]);
  return copy;
}

function normalizeTree(nodes: readonly RefTreeNode[], at: (id: unknown) => unknown): unknown[] {
  return nodes.map((n) => ({ id: at(n.entry.id), label: n.label ?? null, children: normalizeTree(n.children, at) }));
}

function normalizeContext(context: SessionContext, at: (id: unknown) => unknown): unknown {
  const copy = structuredClone(context) as unknown as { messages: Line[] };
  for (const m of copy.messages) if ("fromId" in m) m.fromId = at(m.fromId);
  return copy;
}

/** Sometimes a line that is not JSON (a crash, an editor): both must skip it the same way. */
function withBadLine(rng: Rng, lines: Line[]): (Line | string)[] {
  const out: (Line | string)[] = [...lines];
  if (rng.chance(0.4)) out.splice(rng.between(1, out.length), 0, "{ torn line");
  return out;
}

describe("migration of old session files against the reference", function () {
  this.timeout(180_000);
  const fx = referenceFixture();

  async function compare(file: string, what: string): Promise<{ entries: number; leaves: number }> {
    const refCopy = `${file}.ref.jsonl`;
    copyFileSync(file, refCopy);
    const original = readFileSync(file, "utf8");
    const ref = fx.pi.SessionManager.open(refCopy);
    const ours = await SessionManager.open(file, { readOnly: true });
    try {
      assert.equal(readFileSync(file, "utf8"), original, `${what}: opening never writes`);
      const theirEntries = ref.getEntries();
      const ourEntries = ours.getEntries();
      const theirAt = byPosition(theirEntries);
      const ourAt = byPosition(ourEntries);
      assert.deepEqual(ourEntries.map((e) => normalizeEntry(e, ourAt)), theirEntries.map((e) => normalizeEntry(e, theirAt)), `${what}: entries`);
      assert.deepEqual(normalizeTree(ours.getTree(), ourAt), normalizeTree(ref.getTree(), theirAt), `${what}: tree`);
      assert.equal(ourAt(ours.getLeafId()), theirAt(ref.getLeafId()), `${what}: leaf`);
      for (let i = 0; i < theirEntries.length; i++) {
        const expected = normalizeContext(fx.pi.buildSessionContext(theirEntries, theirEntries[i]!.id), theirAt);
        assert.deepEqual(normalizeContext(ours.buildSessionContext(ourEntries[i]!.id), ourAt), expected, `${what}: context at entry ${i}`);
      }
      return { entries: theirEntries.length, leaves: theirEntries.length };
    } finally {
      ours.dispose();
    }
  }

  it("v2 files: the same entries, tree and context at every leaf", async () => {
    let hooks = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const rng = createRng(seed * 31);
      const { file } = generateReferenceSession(fx.pi, { seed, entries: 80, persistDir: join(fx.tmp.dir, `v2-${seed}`) });
      const lines = downgradeToV2(readLines(file!));
      hooks += lines.filter((l) => (l.message as { role?: string } | undefined)?.role === "hookMessage").length;
      const v2 = join(fx.tmp.dir, `v2-${seed}.jsonl`);
      writeLines(v2, withBadLine(rng, lines));
      await compare(v2, `seed ${seed} (v2)`);
    }
    assert.ok(hooks > 5, `${hooks} hookMessage roles migrated`);
  });

  it("v1 files: the same entries, chain, compaction targets and context at every leaf", async () => {
    let compactions = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const rng = createRng(seed * 17);
      const { file, manager } = generateReferenceSession(fx.pi, { seed, entries: 80, persistDir: join(fx.tmp.dir, `v1-${seed}`) });
      const entries = manager.getEntries();
      const leaf = rng.pick(entries.slice(Math.floor(entries.length / 2)));
      const path = manager.getBranch(leaf.id).map((e) => e.id);
      const lines = downgradeToV1(readLines(file!), path);
      compactions += lines.filter((l) => typeof l.firstKeptEntryIndex === "number").length;
      const v1 = join(fx.tmp.dir, `v1-${seed}.jsonl`);
      writeLines(v1, withBadLine(rng, lines));
      const { entries: count } = await compare(v1, `seed ${seed} (v1)`);
      assert.equal(count, lines.length - 1);
    }
    assert.ok(compactions > 3, `${compactions} compactions with a first kept index`);
  });

  it("after Arbor's first append rewrites a migrated file (with a backup), the reference reads what Arbor reads", async () => {
    for (const version of [1, 2] as const) {
      const dir = join(fx.tmp.dir, `rewrite-${version}`);
      const { file, manager } = generateReferenceSession(fx.pi, { seed: 40 + version, entries: 60, persistDir: dir });
      const lines = readLines(file!);
      const old = version === 2 ? downgradeToV2(lines) : downgradeToV1(lines, manager.getBranch().map((e) => e.id));
      const target = join(dir, "old.jsonl");
      writeLines(target, old);
      const original = readFileSync(target, "utf8");
      const sm = await SessionManager.open(target);
      const added = sm.appendMessage({ role: "user", content: "after the migration", timestamp: Date.now() });
      await sm.close();
      const backups = readdirSync(dir).filter((n) => n.startsWith("old.jsonl.") && n.endsWith(".bak"));
      assert.equal(backups.length, 1, `v${version}: one backup`);
      assert.equal(readFileSync(join(dir, backups[0]!), "utf8"), original, `v${version}: the backup holds the original`);
      const reread = fx.pi.SessionManager.open(target);
      const mine = await SessionManager.open(target, { readOnly: true });
      try {
        assert.equal(reread.getHeader()?.version, 3);
        assert.deepEqual(mine.getEntries(), reread.getEntries(), `v${version}: the rewritten file reads the same`);
        assert.equal(reread.getLeafId(), added);
        assert.deepEqual(mine.buildSessionContext(), reread.buildSessionContext());
      } finally {
        mine.dispose();
      }
    }
  });
});
