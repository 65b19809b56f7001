/**
 * The random session generator that differential tests (ours and the session store's) rely on.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadReference, type PiReference } from "../support/reference";
import { createRng, generateReferenceSession } from "../support/random-session";

/** The shape of a session without its random ids and wall-clock timestamps. */
function shapeOf(entries: { type: string; id: string; parentId: string | null }[]): string[] {
  const index = new Map(entries.map((entry, i) => [entry.id, i]));
  return entries.map((entry) => `${entry.type}<${entry.parentId === null ? "root" : index.get(entry.parentId)}`);
}

describe("random reference sessions", () => {
  let pi: PiReference;
  let dir: string;
  before(async () => {
    pi = await loadReference();
    dir = mkdtempSync(join(tmpdir(), "arbor-random-session-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("gives the same shape for the same seed and another for another seed", () => {
    const a = generateReferenceSession(pi, { seed: 42, entries: 120 });
    const b = generateReferenceSession(pi, { seed: 42, entries: 120 });
    const c = generateReferenceSession(pi, { seed: 43, entries: 120 });
    assert.deepStrictEqual(shapeOf(a.manager.getEntries()), shapeOf(b.manager.getEntries()));
    assert.notDeepStrictEqual(shapeOf(a.manager.getEntries()), shapeOf(c.manager.getEntries()));
    assert.equal(a.ids.length, 120);
    assert.deepStrictEqual(a.ids, a.manager.getEntries().map((entry) => entry.id));
  });

  it("covers every entry kind, branches and roots", () => {
    const kinds = new Set<string>();
    let roots = 0;
    let emptySummaries = 0;
    let offPathCompactions = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const { manager } = generateReferenceSession(pi, { seed, entries: 100, unknownRoles: true });
      for (const entry of manager.getEntries()) {
        kinds.add(entry.type === "message" ? `message:${entry.message.role}` : entry.type);
        if (entry.parentId === null) roots++;
        if (entry.type === "branch_summary" && entry.summary === "") emptySummaries++;
        if (entry.type === "compaction" && !manager.getBranch(entry.id).some((e) => e.id === entry.firstKeptEntryId)) offPathCompactions++;
      }
    }
    for (const kind of [
      "message:user", "message:assistant", "message:toolResult", "message:bashExecution", "message:custom", "message:hookMessage",
      "custom_message", "custom", "model_change", "thinking_level_change", "label", "session_info", "branch_summary", "compaction",
    ]) {
      assert.ok(kinds.has(kind), `no ${kind}`);
    }
    assert.ok(roots > 30, `${roots} roots`);
    assert.ok(emptySummaries > 0 && offPathCompactions > 0);
  });

  it("persists to a folder when asked, as a file the reference reads back identically", () => {
    const session = generateReferenceSession(pi, { seed: 5, entries: 80, persistDir: dir });
    assert.ok(session.file && session.file.startsWith(dir), String(session.file));
    const lines = readFileSync(session.file, "utf8").trimEnd().split("\n");
    assert.equal(lines.length, 81);
    const reopened = pi.SessionManager.open(session.file, dir);
    assert.deepStrictEqual(reopened.getEntries(), JSON.parse(JSON.stringify(session.manager.getEntries())));
  });

  it("always writes a file when persisting, even for tiny sessions (Pi waits for an assistant message)", () => {
    for (let seed = 0; seed < 40; seed++) {
      const { file } = generateReferenceSession(pi, { seed, entries: 1 + (seed % 4), persistDir: dir });
      assert.ok(file && existsSync(file), `seed ${seed}`);
    }
  });

  it("createRng is deterministic and stays in range", () => {
    const a = createRng(9);
    const b = createRng(9);
    for (let i = 0; i < 1000; i++) {
      const x = a.between(3, 7);
      assert.equal(x, b.between(3, 7));
      assert.ok(x >= 3 && x <= 7);
    }
  });
});
