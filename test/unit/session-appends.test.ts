/**
 * Appends without reading back: when the file grew by exactly what this session wrote, right
 * where it left it, the new lines are placed in the index from the write itself. Another writer
 * in between (Pi in a terminal), or a torn last line ended first, makes the session read the file
 * instead. Either way every line number and every body read back equals a fresh load's.
 */
import * as assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import * as growth from "../../src/core/session/session-growth";
import { SessionManager } from "../../src/core/session/session-manager";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

/** Counts how often the session reads its file's growth back (the seam is the module's export). */
function countReadBacks(): { count: () => number; restore: () => void } {
  const original = growth.readFrom;
  let n = 0;
  (growth as { readFrom: typeof growth.readFrom }).readFrom = (...args) => {
    n++;
    return original(...args);
  };
  return { count: () => n, restore: () => ((growth as { readFrom: typeof growth.readFrom }).readFrom = original) };
}

async function assertLikeFreshLoad(sm: SessionManager, label: string): Promise<void> {
  const fresh = await SessionManager.open(sm.getSessionFile()!, { readOnly: true, index: false });
  // In memory, an entry counts from when it was appended; in the file, from when it was written
  // (another writer's line can come between): compared by line.
  const byLine = (m: SessionManager) => m.getSummaries().map((s) => [s.id, s.line] as const).sort((x, y) => x[1] - y[1]);
  assert.deepEqual(byLine(sm), byLine(fresh), `line numbers, ${label}`);
  const bodies = (m: SessionManager) => new Map(m.getEntries().map((e) => [e.id, e]));
  assert.deepEqual(bodies(sm), bodies(fresh), `bodies read back, ${label}`);
  await fresh.close();
}

describe("appends placed without reading them back", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  before(async () => (pi = await loadReference()));
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("places bursts of appends from the write alone, and reads every body back right", async () => {
    const sm = await SessionManager.create("/w", { sessionDir: tmp.dir });
    const spy = countReadBacks();
    try {
      const appended = new Map<string, SessionEntry>();
      for (let burst = 0; burst < 5; burst++) {
        for (let k = 0; k < 40; k++) {
          const id = k % 2 ? sm.appendMessage(assistant(`answer ${burst}.${k} ${"é🌳".repeat(k)}`)) : sm.appendMessage(user(`question ${burst}.${k}\n"quoted"`));
          appended.set(id, JSON.parse(JSON.stringify(sm.getEntry(id))) as SessionEntry);
        }
        if (burst === 2) sm.appendLabelChange([...appended.keys()][3]!, "mid");
        await sm.flush();
      }
      assert.equal(spy.count(), 0, "no read-back while this session is the only writer");
      // The bodies now come from the file, at the places computed from the writes.
      for (const [id, entry] of appended) assert.deepEqual(sm.getEntry(id), entry);
      await assertLikeFreshLoad(sm, "only writer");
      assert.deepEqual(pi.SessionManager.open(sm.getSessionFile()!).getEntries(), sm.getEntries());
    } finally {
      spy.restore();
      await sm.close();
    }
  });

  it("reads the file when another process wrote in between, or a torn line was ended first", async () => {
    const sm = await SessionManager.create("/w", { sessionDir: tmp.dir });
    sm.appendMessage(user("q"));
    const a = sm.appendMessage(assistant("a"));
    await sm.flush();
    const file = sm.getSessionFile()!;
    const spy = countReadBacks();
    try {
      // Pi appends a line of its own, then this session appends.
      appendFileSync(file, `${JSON.stringify({ type: "message", id: "0e0e0e0e", parentId: a, timestamp: new Date().toISOString(), message: user("from the terminal") })}\n`);
      sm.appendMessage(user("after the other writer"));
      await sm.flush();
      assert.ok(spy.count() >= 1, "the file is read when someone else wrote");
      assert.ok(sm.hasEntry("0e0e0e0e"));
      await assertLikeFreshLoad(sm, "second writer");
      // A torn last line: the next append ends it with a newline first, and reads back.
      appendFileSync(file, '{"type":"message","id":"torn');
      const before = spy.count();
      sm.appendMessage(user("after the torn line"));
      await sm.flush();
      assert.ok(spy.count() > before);
      await assertLikeFreshLoad(sm, "torn line");
    } finally {
      spy.restore();
      await sm.close();
    }
  });

  it("places appends to an opened file too, and after a file that ended without its newline", async () => {
    const sm = await SessionManager.create("/w", { sessionDir: tmp.dir });
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    await sm.close();
    const file = sm.getSessionFile()!;
    const reopened = await SessionManager.open(file);
    for (let k = 0; k < 10; k++) reopened.appendMessage(user(`more ${k}`));
    await reopened.flush();
    await assertLikeFreshLoad(reopened, "reopened");
    await reopened.close();
    const text = (await import("node:fs")).readFileSync(file, "utf8");
    writeFileSync(file, text.trimEnd());
    const unterminated = await SessionManager.open(file);
    unterminated.appendMessage(user("on a new line"));
    await unterminated.flush();
    await assertLikeFreshLoad(unterminated, "unterminated");
    await unterminated.close();
  });
});
