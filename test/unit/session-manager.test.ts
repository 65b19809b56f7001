/** Unit tests of the SessionManager's own behaviour: writes, leaf moves, checkout persistence, labels, names, errors. */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SessionError } from "../../src/core/session/errors";
import { SessionManager } from "../../src/core/session/session-manager";
import { assistant, user } from "../support/messages";
import { generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("SessionManager", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  const opts = () => ({ sessionDir: join(tmp.dir, "sessions"), indexDir: false as const });
  before(async () => {
    pi = await loadReference();
  });
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("writes nothing until the first assistant message, then every line in order", async () => {
    const sm = await SessionManager.create("/w", opts());
    const u = sm.appendMessage(user("hello"));
    await sm.flush();
    assert.equal(existsSync(sm.getSessionFile()!), false);
    const a = sm.appendMessage(assistant("hi"));
    const m = sm.appendModelChange("p", "m2");
    await sm.flush();
    const written = lines(sm.getSessionFile()!);
    assert.deepEqual(written.map((l) => l.type), ["session", "message", "message", "model_change"]);
    assert.deepEqual(written.slice(1).map((l) => l.id), [u, a, m]);
    assert.equal(written[2]!.parentId, u);
    assert.equal(sm.getSummary(m)!.line, 4, "line numbers are known once written");
    await sm.close();
  });

  it("appends 1,000 entries in order through the queue", async () => {
    const sm = await SessionManager.create("/w", opts());
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) ids.push(sm.appendCustomEntry("n", { i }));
    await sm.flush();
    const written = lines(sm.getSessionFile()!).slice(3);
    assert.deepEqual(written.map((l) => l.id), ids);
    for (let i = 1; i < written.length; i++) assert.equal(written[i]!.parentId, written[i - 1]!.id);
    await sm.close();
  });

  it("keeps labels (last in file order wins, cleared by an empty label) and the session name", async () => {
    const sm = SessionManager.inMemory();
    const a = sm.appendMessage(user("a"));
    sm.appendLabelChange(a, "first");
    sm.appendLabelChange(a, "second");
    assert.equal(sm.getLabel(a), "second");
    sm.appendLabelChange(a, undefined);
    assert.equal(sm.getLabel(a), undefined);
    sm.appendLabelChange(a, "third");
    sm.appendSessionInfo("  my session ");
    assert.equal(sm.getSessionName(), "my session");
    sm.appendSessionInfo("");
    assert.equal(sm.getSessionName(), undefined);
    assert.deepEqual([...sm.getLabels()], [[a, "third"]]);
  });

  it("rejects a wrong id with an error that names it", () => {
    const sm = SessionManager.inMemory();
    sm.appendMessage(user("a"));
    for (const act of [() => sm.branch("deadbeef"), () => sm.checkout("deadbeef"), () => sm.appendLabelChange("deadbeef", "x"), () => sm.branchWithSummary("deadbeef", "s")]) {
      assert.throws(act, (e: unknown) => e instanceof SessionError && e.code === "unknown-entry" && e.message.includes("deadbeef"));
    }
  });

  it("branches, resets the leaf and branches with a summary as Pi does", () => {
    const sm = SessionManager.inMemory();
    const a = sm.appendMessage(user("a"));
    const b = sm.appendMessage(assistant("b"));
    sm.appendMessage(user("c"));
    sm.branch(a);
    const d = sm.appendMessage(assistant("d"));
    assert.equal(sm.getEntry(d)!.parentId, a);
    const s = sm.branchWithSummary(b, "tried c");
    const summary = sm.getEntry(s)!;
    assert.equal(summary.parentId, b);
    assert.equal(summary.type === "branch_summary" && summary.fromId, b);
    assert.equal(sm.getLeafId(), s);
    sm.resetLeaf();
    const root2 = sm.appendMessage(user("new root"));
    assert.equal(sm.getEntry(root2)!.parentId, null);
    const r = sm.branchWithSummary(null, "from the top");
    const rootSummary = sm.getEntry(r)!;
    assert.equal(rootSummary.type === "branch_summary" && rootSummary.fromId, "root");
    assert.deepEqual(sm.getTree().map((n) => n.entry.id), [a, root2, r]);
  });

  it("checks out with Pi's semantics, and the checkout survives a reload in Arbor and in Pi", async () => {
    const sm = await SessionManager.create("/w", opts());
    const u1 = sm.appendMessage(user("first question"));
    const a1 = sm.appendMessage(assistant("first answer"));
    const u2 = sm.appendMessage(user("second question"));
    sm.appendMessage(assistant("second answer"));
    // a user message: the leaf goes to its parent and the text comes back for editing
    assert.deepEqual(sm.checkout(u2), { leafId: a1, editText: "second question" });
    // the root user message: the leaf goes before the root
    assert.deepEqual(sm.checkout(u1), { leafId: null, editText: "first question" });
    // any other entry becomes the leaf
    assert.deepEqual(sm.checkout(a1), { leafId: a1 });
    const expected = sm.buildSessionContext();
    await sm.close();

    const again = await SessionManager.open(sm.getSessionFile()!, { readOnly: true });
    assert.equal(again.getLeafId(), a1);
    assert.deepEqual(again.buildSessionContext(), expected);
    const ref = pi.SessionManager.open(sm.getSessionFile()!);
    assert.deepEqual(ref.buildSessionContext(), expected, "Pi resumes at the checked-out entry");
    // Pi continues from there, and so do we
    ref.appendMessage(user("pi continues"));
    const after = await SessionManager.open(sm.getSessionFile()!, { readOnly: true });
    assert.deepEqual(after.buildSessionContext(), ref.buildSessionContext());
    assert.equal(after.buildSessionContext().messages.length, 3);
  });

  it("gives back a multi-block user message's text joined as Pi joins it, images left out", () => {
    const sm = SessionManager.inMemory();
    const a = sm.appendMessage(assistant("before"));
    const u = sm.appendMessage({ role: "user", content: [{ type: "text", text: "first part" }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: " and second" }], timestamp: 1 });
    assert.deepEqual(sm.checkout(u), { leafId: a, editText: "first part and second" });
  });

  it("a checkout to before the root survives a reload as an empty context", async () => {
    const sm = await SessionManager.create("/w", opts());
    const u1 = sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    sm.checkout(u1);
    await sm.close();
    const again = await SessionManager.open(sm.getSessionFile()!, { readOnly: true });
    assert.equal(again.getLeafId(), null);
    assert.deepEqual(pi.SessionManager.open(sm.getSessionFile()!).buildSessionContext().messages, []);
  });

  it("forks to a new file linked through parentSession", async () => {
    const sm = await SessionManager.create("/w", opts());
    const u1 = sm.appendMessage(user("q1"));
    const a1 = sm.appendMessage(assistant("a1"));
    sm.appendLabelChange(u1, "start");
    sm.appendMessage(user("q2"));
    const old = sm.getSessionFile()!;
    const forked = await sm.createBranchedSession(a1);
    assert.ok(forked && forked !== old);
    const written = lines(forked);
    assert.equal(written[0]!.parentSession, old);
    assert.deepEqual(written.slice(1).map((l) => l.type), ["message", "message", "label"]);
    assert.equal(written[3]!.targetId, u1);
    assert.equal(sm.getSessionFile(), forked);
    assert.equal(sm.getLabel(u1), "start");
    await sm.close();
  });

  it("forkFrom copies a whole session into another workspace", async () => {
    const sm = await SessionManager.create("/w", opts());
    sm.appendMessage(user("q1"));
    sm.appendMessage(assistant("a1"));
    await sm.close();
    const copy = await SessionManager.forkFrom(sm.getSessionFile()!, "/other", { sessionDir: join(tmp.dir, "other") });
    assert.equal(copy.getCwd(), "/other");
    assert.equal(copy.getHeader().parentSession, sm.getSessionFile());
    assert.deepEqual(copy.getEntries(), (await SessionManager.open(sm.getSessionFile()!, { readOnly: true })).getEntries());
    await copy.close();
  });

  it("continueRecent opens the newest session of the folder, or creates one", async () => {
    const first = await SessionManager.continueRecent("/w", opts());
    assert.equal(first.getEntryCount(), 0);
    first.appendMessage(user("q"));
    first.appendMessage(assistant("a"));
    await first.close();
    const again = await SessionManager.continueRecent("/w", opts());
    assert.equal(again.getSessionFile(), first.getSessionFile());
    await again.close();
  });

  it("refuses to write when read-only, and says why", async () => {
    const sm = await SessionManager.create("/w", opts());
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant("a"));
    await sm.close();
    const ro = await SessionManager.open(sm.getSessionFile()!, { readOnly: true });
    assert.throws(() => ro.appendMessage(user("x")), (e: unknown) => e instanceof SessionError && e.code === "read-only");
    assert.equal(readdirSync(join(tmp.dir, "sessions")).filter((n) => n.endsWith(".lock")).length, 0, "a viewer takes no lock");
  });
});

describe("SessionManager.getCurrentModel", () => {
  it("equals the model of the resolved context at every leaf of random trees", async () => {
    const pi = await loadReference();
    const tmp = makeTempDir();
    try {
      for (let seed = 300; seed < 320; seed++) {
        const { file, ids } = generateReferenceSession(pi, { seed, entries: 80, persistDir: join(tmp.dir, String(seed)) });
        const sm = await SessionManager.open(file!, { readOnly: true });
        for (const id of ids) {
          sm.branch(id);
          assert.deepEqual(sm.getCurrentModel(), sm.buildSessionContext().model, `seed ${seed}, leaf ${id}`);
        }
        sm.resetLeaf();
        assert.equal(sm.getCurrentModel(), null);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
