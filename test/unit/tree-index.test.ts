import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NONE, TreeIndex } from "../../src/core/tree/tree-index";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, rng } from "../support/webview-harness.fixtures";

/** Pre-order ids with their drawn parent, as "id<parent". */
function shape(p: TreeIndex): string[] {
  const out: string[] = [];
  for (let n = p.firstRoot; n !== NONE; n = p.nextInPreorder(n)) {
    const parent = p.parent(n);
    out.push(`${p.summary(n).id}<${parent === NONE ? "-" : p.summary(parent).id}`);
  }
  return out;
}

const projectTree = (entries: EntrySummary[]): TreeIndex => TreeIndex.build([...entries]);
const orphan = (p: TreeIndex, id: string): boolean | undefined => {
  const i = p.positionOf(id);
  return i === undefined || !p.isNode(i) ? undefined : p.isOrphan(i);
};
/** The id of the node an id resolves to; null for a marker at root position; undefined for an unknown id. */
const resolved = (p: TreeIndex, id: string): string | null | undefined => {
  const i = p.resolve(id);
  return i === undefined ? undefined : i === NONE ? null : p.summary(i).id;
};

const at = (s: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();

describe("tree index", () => {
  it("builds a chain and a branch, children oldest first", () => {
    const entries = [...chain(["a", "b", "c"]), entry("d", "b"), entry("e", "d")];
    assert.deepEqual(shape(projectTree(entries)), ["a<-", "b<a", "c<b", "d<b", "e<d"]);
  });

  it("orders siblings by timestamp, then by file order on a tie", () => {
    const entries = [
      entry("r", null, { timestamp: at(0) }),
      entry("late", "r", { timestamp: at(30) }),
      entry("early", "r", { timestamp: at(10) }),
      entry("tieA", "r", { timestamp: at(20) }),
      entry("tieB", "r", { timestamp: at(20) }),
    ];
    assert.deepEqual(shape(projectTree(entries)), ["r<-", "early<r", "tieA<r", "tieB<r", "late<r"]);
  });

  it("sorts unparseable timestamps after valid ones, in file order", () => {
    const entries = [
      entry("r", null),
      entry("bad1", "r", { timestamp: "not a date" }),
      entry("ok", "r", { timestamp: at(5) }),
      entry("bad2", "r", { timestamp: "" }),
    ];
    assert.deepEqual(shape(projectTree(entries)), ["r<-", "ok<r", "bad1<r", "bad2<r"]);
  });

  it("keeps several roots and shows orphans as roots, in file order", () => {
    const entries = [entry("a", null), entry("o", "missing"), entry("b", null), entry("c", "a")];
    const p = projectTree(entries);
    assert.deepEqual(shape(p), ["a<-", "c<a", "o<-", "b<-"]);
    assert.equal(orphan(p, "o"), true);
    assert.equal(orphan(p, "a"), false);
    assert.equal(p.append([entry("missing", null)]).ok, false, "the missing parent arriving later forces a rebuild");
  });

  it("treats an entry that is its own parent as a root, like the reference", () => {
    const p = projectTree([entry("self", "self"), entry("k", "self")]);
    assert.deepEqual(shape(p), ["self<-", "k<self"]);
    assert.equal(orphan(p, "self"), false);
  });

  it("accepts parents that appear after their children in the file", () => {
    const p = projectTree([entry("child", "parent"), entry("parent", null)]);
    assert.deepEqual(shape(p), ["parent<-", "child<parent"]);
    assert.equal(orphan(p, "child"), false);
  });

  it("cuts parent cycles so that every entry is still drawn", () => {
    const p = projectTree([entry("r", null), entry("x", "y"), entry("y", "x"), entry("z", "y")]);
    const ids = shape(p).map((s) => s.split("<")[0]);
    assert.deepEqual([...ids].sort(), ["r", "x", "y", "z"]);
    assert.equal(orphan(p, "x"), true);
    assert.equal(p.parent(p.positionOf("x")!), NONE);
  });

  it("cuts a loop through a checkout marker (an entry under a marker that names it as parent)", () => {
    const p = projectTree([entry("r", null), entry("x", "m"), entry("m", "x", { type: "custom", customType: "arbor.checkout", checkoutMarker: true })]);
    assert.deepEqual(shape(p), ["r<-", "x<-"]);
    assert.equal(orphan(p, "x"), true);
  });

  it("splices checkout markers out: their children hang from the marker's parent", () => {
    const entries = [
      ...chain(["a", "b", "c"]),
      entry("m1", "a", { type: "custom", customType: "arbor.checkout", checkoutMarker: true }),
      entry("m2", "m1", { type: "custom", customType: "arbor.checkout", checkoutMarker: true }),
      entry("d", "m2"),
      entry("e", "m1"),
    ];
    const p = projectTree(entries);
    assert.deepEqual(shape(p), ["a<-", "b<a", "c<b", "d<a", "e<a"]);
    assert.equal(p.isNode(p.positionOf("m1")!), false);
    assert.equal(p.nodeCount, 5);
    assert.equal(resolved(p, "m2"), "a");
    assert.equal(resolved(p, "nope"), undefined);
  });

  it("makes the children of a root-level or orphaned marker roots", () => {
    const marker = { type: "custom", customType: "arbor.checkout", checkoutMarker: true } as const;
    const p = projectTree([entry("m", null, marker), entry("a", "m"), entry("mo", "gone", marker), entry("b", "mo")]);
    assert.deepEqual(shape(p), ["a<-", "b<-"]);
    assert.equal(orphan(p, "a"), false);
    assert.equal(orphan(p, "b"), true);
    assert.equal(resolved(p, "m"), null);
  });

  it("lets the last of duplicate ids win, as the reference's index does, and counts the rest", () => {
    const p = projectTree([entry("a", null), entry("d", "a", { preview: "first" }), entry("d", "a", { preview: "second" })]);
    assert.equal(p.duplicateCount, 1);
    assert.equal(p.summary(p.positionOf("d")!).preview, "second");
    assert.deepEqual(shape(p), ["a<-", "d<a"]);
  });

  it("knows ancestors", () => {
    const p = projectTree([...chain(["a", "b", "c"]), entry("x", "a")]);
    const at = (id: string) => p.positionOf(id)!;
    assert.equal(p.isAncestorOrSelf(at("a"), at("c")), true);
    assert.equal(p.isAncestorOrSelf(at("c"), at("c")), true);
    assert.equal(p.isAncestorOrSelf(at("b"), at("x")), false);
  });

  it("builds a 100,000-deep chain without recursion", () => {
    const n = 100_000;
    const entries: EntrySummary[] = [];
    for (let i = 0; i < n; i++) entries.push({ id: `e${i}`, parentId: i ? `e${i - 1}` : null, type: "message", role: "user", timestamp: "", line: i + 2, preview: "" });
    entries.push({ id: "m", parentId: `e${n - 1}`, type: "custom", customType: "arbor.checkout", checkoutMarker: true, timestamp: "", line: 0, preview: "" });
    const p = projectTree(entries);
    let count = 0;
    for (let i = p.firstRoot; i !== NONE; i = p.nextInPreorder(i)) count++;
    assert.equal(count, n);
    assert.equal(resolved(p, "m"), `e${n - 1}`);
  });

  describe("incremental append", () => {
    it("gives the same tree as a full projection, markers and orphans included", () => {
      const all: EntrySummary[] = [
        ...chain(["a", "b", "c"]),
        entry("m", "c", { type: "custom", customType: "arbor.checkout", checkoutMarker: true }),
        entry("d", "m"),
        entry("e", "b"),
        entry("o", "nowhere"),
        entry("f", "e"),
      ];
      for (let split = 0; split <= all.length; split++) {
        const p = projectTree(all.slice(0, split));
        const result = p.append(all.slice(split));
        assert.ok(result.ok);
        assert.deepEqual(shape(p), shape(projectTree(all)), `split at ${split}`);
        assert.deepEqual(
          result.added.map((n) => p.summary(n).id),
          all.slice(split).filter((e) => !e.checkoutMarker).map((e) => e.id),
        );
        for (const e of all) assert.equal(orphan(p, e.id), orphan(projectTree(all), e.id), `orphan ${e.id} at split ${split}`);
      }
    });

    it("sorts an appended entry that is older than its siblings", () => {
      const p = projectTree([entry("r", null, { timestamp: at(0) }), entry("x", "r", { timestamp: at(50) })]);
      const result = p.append([entry("y", "r", { timestamp: at(10) })]);
      assert.ok(result.ok);
      assert.deepEqual(shape(p), ["r<-", "y<r", "x<r"]);
    });

    it("refuses, untouched, a duplicate id or a late parent of existing orphans", () => {
      const p = projectTree([entry("a", null), entry("o", "late")]);
      const before = shape(p);
      const dup = p.append([entry("n", "a"), entry("a", null)]);
      assert.equal(dup.ok, false);
      const late = p.append([entry("late", "a")]);
      assert.equal(late.ok, false);
      assert.deepEqual(shape(p), before);
      assert.equal(p.positionOf("n"), undefined);
      assert.equal(p.size, 2);
    });

    it("rebuilds to the same tree as a fresh build when an append is refused", () => {
      const all = [entry("a", null), entry("o", "late"), entry("late", "a"), entry("a", null, { preview: "again" })];
      const p = projectTree(all.slice(0, 2));
      p.appendByRebuild(all.slice(2));
      assert.deepEqual(shape(p), shape(projectTree(all)));
      assert.equal(orphan(p, "o"), false);
    });
  });
});

// ---------------------------------------------------------------------------
// Differential: the same files through the reference's SessionManager.getTree()
// ---------------------------------------------------------------------------

interface RefNode {
  entry: { id: string };
  children: RefNode[];
}
interface RefManager {
  getTree(): RefNode[];
}
interface RefPackage {
  SessionManager: { open(file: string, sessionDir?: string): RefManager };
}


/**
 * A random acyclic session: parents are mostly the previous entry, sometimes an older one, a root
 * or a missing id; timestamps collide and run backwards; a few entries are written before their
 * parent.
 */
function randomEntries(seed: number, count: number): EntrySummary[] {
  const random = rng(seed);
  const made: EntrySummary[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    let parentId: string | null;
    if (i === 0 || r < 0.05) parentId = null;
    else if (r < 0.1) parentId = `gone${i}`;
    else if (r < 0.35) parentId = made[Math.floor(random() * i)].id;
    else parentId = made[i - 1].id;
    const id = (Math.imul(i + 1, 2654435761) >>> 0).toString(16).padStart(8, "0");
    made.push(entry(id, parentId, { role: random() < 0.5 ? "user" : "assistant", timestamp: at(Math.floor(random() * 40)) }));
  }
  for (let i = 1; i < made.length; i++) {
    if (random() < 0.1) [made[i - 1], made[i]] = [made[i], made[i - 1]];
  }
  return made;
}

function toJsonl(entries: readonly EntrySummary[]): string {
  const header = { type: "session", version: 3, id: "00000000-0000-4000-8000-000000000000", timestamp: at(0), cwd: "/work/app" };
  const lines = [header, ...entries.map((e) => ({
    type: "message",
    id: e.id,
    parentId: e.parentId,
    timestamp: e.timestamp,
    message: { role: "user", content: e.preview, timestamp: Date.parse(e.timestamp) },
  }))];
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

function refShape(roots: RefNode[]): string[] {
  const out: string[] = [];
  const stack: { node: RefNode; parent: string }[] = [...roots].reverse().map((node) => ({ node, parent: "-" }));
  while (stack.length > 0) {
    const { node, parent } = stack.pop() as { node: RefNode; parent: string };
    out.push(`${node.entry.id}<${parent}`);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], parent: node.entry.id });
  }
  return out;
}

describe("tree index against the reference's getTree", () => {
  let pi: RefPackage;
  let dir: string;
  before(async () => {
    pi = (await import("@mariozechner/pi-coding-agent")) as unknown as RefPackage;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-tree-diff-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`draws random session ${seed} in the reference's order`, () => {
      const entries = randomEntries(seed, 120);
      const file = path.join(dir, `s${seed}.jsonl`);
      fs.writeFileSync(file, toJsonl(entries));
      const expected = refShape(pi.SessionManager.open(file, dir).getTree());
      assert.equal(expected.length, entries.length);
      assert.deepEqual(shape(projectTree(entries)), expected);
    });
  }
});
