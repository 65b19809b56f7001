/**
 * A large file read from its start makes room for the rest once its first lines show how long
 * they run (EntryStore.reserveStep, a column at a time): the session read that way equals the
 * reference's on the same file, entry for entry, and so do its tree, its context and a checkout;
 * its reopen index gives the same again.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import { chainedSession } from "../bench/chained-session";
import { generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

describe("a large session read from its start (room made ahead of the read)", function () {
  this.timeout(240_000);
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  before(async () => {
    pi = await loadReference();
    tmp = makeTempDir();
  });
  after(() => tmp.cleanup());

  it("equals the reference's session, tree and contexts, read from the file and again from its index", async () => {
    // About 40,000 entries (ten chained copies of a session the reference wrote): room is made
    // from line 8,192 on, six columns, one every 8,192 lines.
    const dir = mkdtempSync(join(tmp.dir, "large-"));
    const base = generateReferenceSession(pi, { seed: 11, entries: 4_000, persistDir: dir }).file!;
    const file = await chainedSession(base, join(tmp.dir, "chained.jsonl"), 10, "/work/large");
    const ref = pi.SessionManager.open(file);
    const cache = join(tmp.dir, "cache");
    for (const expected of ["none", "unchanged"]) {
      const sm = await SessionManager.open(file, { readOnly: true, index: { dir: cache, minBytes: 0 } });
      assert.equal(sm.getIndexUse(), expected);
      assert.equal(sm.getEntryCount(), ref.getEntries().length);
      assert.deepEqual(sm.getEntries(), ref.getEntries());
      assert.deepEqual(sm.buildSessionContext(), ref.buildSessionContext());
      // A checkout far from the leaf: the same context as the reference's after the same checkout.
      const target = ref.getEntries()[12_345]!.id as string;
      sm.branch(target);
      const other = pi.SessionManager.open(file);
      other.branch(target);
      assert.deepEqual(sm.buildSessionContext(), other.buildSessionContext());
      await sm.whenIndexSaved();
      await sm.close();
    }
  });
});
