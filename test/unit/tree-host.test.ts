import * as assert from "node:assert/strict";
import { isHostToWebviewMessage } from "../../src/protocol/guards";
import { LIMITS, type HostToWebviewMessage, type TreeMessage, type WebviewToHostMessage } from "../../src/protocol/messages";
import { TreeHub, type TreeHostActions, type TreeViewPort } from "../../src/protocol/tree-host";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

interface Webview {
  port: TreeViewPort;
  received: HostToWebviewMessage[];
  send(m: WebviewToHostMessage | Record<string, unknown>): void;
  last(): TreeMessage;
}

function setup(entries: EntrySummary[], leafId: string | null) {
  const calls: string[] = [];
  const actions: TreeHostActions = {
    checkout: (id) => void calls.push(`checkout ${id}`),
    fork: (id) => void calls.push(`fork ${id}`),
    label: (id) => void calls.push(`label ${id}`),
    copyText: (id) => void calls.push(`copyText ${id}`),
    forkReadOnly: () => void calls.push("forkReadOnly"),
    details: (id) => (id === "gone" ? undefined : { ok: true, details: { kind: "text", text: `full ${id}` } }),
    log: (level, message) => void calls.push(`log ${level} ${message}`),
  };
  const hub = new TreeHub(actions);
  hub.showSession({ sessionId: "s1", name: "Work", entries: [...entries], labels: [], leafId }, "Work", null);
  const open = (): Webview => {
    const received: HostToWebviewMessage[] = [];
    const port = hub.connect((m) => {
      // Every message the host sends must pass the webview's guards.
      assert.ok(isHostToWebviewMessage(m), `host sent an invalid ${m.type}`);
      received.push(JSON.parse(JSON.stringify(m)) as HostToWebviewMessage);
    });
    return {
      port,
      received,
      send: (m) => port.receive(m),
      last: () => received.filter((m): m is TreeMessage => m.type === "tree").at(-1)!,
    };
  };
  return { hub, calls, open };
}

const rowIds = (m: TreeMessage): string[] => m.window.rows.map((r) => r.entry.id);
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("tree host", () => {
  it("answers ready with the session, the rows around the leaf, the leaf selected and centred", () => {
    const { open } = setup(chain(["a", "b", "c", "d"]), "c");
    const view = open();
    view.send({ type: "ready" });
    const first = view.received[0] as TreeMessage;
    assert.equal(first.type, "tree");
    assert.equal(first.reset, true);
    assert.deepEqual(first.session, { sessionId: "s1", title: "Work", entryCount: 4 });
    assert.deepEqual(rowIds(first), ["a", "b", "c", "d"]);
    assert.deepEqual(first.selection, { ids: ["c"], focusRow: 2 });
    assert.deepEqual(first.scroll, { row: 2, align: "center" });
    assert.equal(first.window.rows[2].leaf, "exact");
    assert.equal(first.window.rows[3].onPath, false);
    assert.deepEqual(view.received[1], { type: "readOnly", notice: null });
  });

  it("sends a webview only the rows around what it shows, whatever the session's size", function () {
    this.timeout(60_000);
    const fixture = generateTreeFixture(100_000, 42);
    const { open } = setup(fixture.entries, fixture.leafId);
    const view = open();
    view.send({ type: "ready" });
    const first = view.last();
    // Pi's default filter hides the tool-call turns without text, about a quarter of this fixture.
    assert.ok(first.window.rowCount > 60_000, `${first.window.rowCount} rows`);
    assert.ok(first.window.rows.length < 300, `${first.window.rows.length} rows in the first message`);
    assert.ok(JSON.stringify(first).length < 200_000);
    view.send({ type: "viewport", sessionId: "s1", from: 50_000, to: 50_150, visibleFrom: 50_050, visibleTo: 50_090, seq: 7 });
    const answer = view.last();
    assert.equal(answer.window.start, 50_000);
    assert.equal(answer.window.rows.length, 150);
    assert.equal(answer.window.seq, 7);
    assert.equal(answer.scroll, null);
    view.send({ type: "viewport", sessionId: "s1", from: 0, to: 90_000, visibleFrom: 0, visibleTo: 10, seq: 8 });
    assert.equal(view.last().window.rows.length, LIMITS.rowsPerWindow, "a greedy request gets a bounded window");
  });

  it("shares the selection between webviews; only the one acted in scrolls", () => {
    const { open, hub } = setup([...chain(["a", "b", "c"]), entry("x", "a")], "c");
    const side = open();
    const editor = open();
    side.send({ type: "ready" });
    editor.send({ type: "ready" });
    editor.send({ type: "select", sessionId: "s1", id: "x", add: false });
    assert.deepEqual(side.last().selection.ids, ["x"]);
    assert.deepEqual(editor.last().selection.ids, ["x"]);
    assert.equal(side.last().scroll, null);
    assert.equal(editor.last().scroll?.row, 3);
    editor.send({ type: "select", sessionId: "s1", id: "b", add: true });
    assert.deepEqual(hub.selection, ["x", "b"]);
    assert.deepEqual(side.last().selection, { ids: ["x", "b"], focusRow: 1 });
  });

  it("moves the focus with navigation keys; Left folds a branch point, then goes to its parent; Right unfolds", () => {
    // a - b - c
    //  \- x - y
    const { open, hub } = setup([...chain(["a", "b", "c"]), entry("x", "a"), entry("y", "x")], "c");
    const view = open();
    view.send({ type: "ready" });
    const nav = (move: string) => view.send({ type: "navigate", sessionId: "s1", move, pageSize: 2 } as Record<string, unknown>);
    nav("home");
    assert.equal(hub.model.focusId, "a");
    nav("down");
    nav("down");
    assert.equal(hub.model.focusId, "c");
    nav("left");
    assert.equal(hub.model.focusId, "a", "Left goes to the branch point");
    nav("left");
    assert.equal(view.last().window.rowCount, 1, "Left on an open branch point folds it");
    assert.equal(view.last().window.rows[0].folded, true);
    nav("right");
    assert.equal(view.last().window.rowCount, 5);
    nav("right");
    assert.equal(hub.model.focusId, "b", "Right goes to the first child");
    nav("end");
    assert.equal(hub.model.focusId, "y");
    nav("pageUp");
    assert.equal(hub.model.focusId, "c");
    view.send({ type: "toggleFold", sessionId: "s1", id: "a" });
    assert.deepEqual(rowIds(view.last()), ["a"]);
    assert.equal(hub.model.focusId, "a");
    assert.deepEqual(view.last().view.folded, ["a"]);
  });

  it("applies a filter or search from one webview to all, keeping the focus in view", () => {
    const { open } = setup([entry("u", null, { role: "user" }), entry("r", "u", { role: "toolResult", preview: "needle" }), entry("v", "r", { role: "user" })], "v");
    const a = open();
    const b = open();
    a.send({ type: "ready" });
    b.send({ type: "ready" });
    a.send({ type: "setFilter", filter: "no-tools" });
    assert.deepEqual(rowIds(b.last()), ["u", "v"]);
    assert.equal(b.last().view.filter, "no-tools");
    assert.deepEqual(b.last().scroll, { row: 1, align: "center" });
    b.send({ type: "setFilter", filter: "all" });
    b.send({ type: "setQuery", query: "NEEDLE" });
    assert.deepEqual(rowIds(a.last()), ["r"]);
    assert.equal(a.last().view.query, "NEEDLE");
    assert.deepEqual(a.last().selection.ids, ["r"], "the hidden focus moved to a drawn row");
  });

  it("follows the leaf on append in the webviews that showed it", () => {
    const entries = [...chain(Array.from({ length: 300 }, (_, i) => `e${i}`))];
    const { open, hub } = setup(entries, "e299");
    const following = open();
    const away = open();
    following.send({ type: "ready" });
    away.send({ type: "ready" });
    following.send({ type: "viewport", sessionId: "s1", from: 200, to: 300, visibleFrom: 270, visibleTo: 300, seq: 1 });
    away.send({ type: "viewport", sessionId: "s1", from: 0, to: 100, visibleFrom: 0, visibleTo: 30, seq: 1 });
    hub.append([entry("e300", "e299")], "e300");
    assert.deepEqual(following.last().scroll, { row: 300, align: "nearest" });
    assert.equal(away.last().scroll, null);
    assert.equal(away.last().window.rowCount, 301);
    assert.equal(hub.model.focusId, "e300", "a selection on the leaf follows it");
    assert.equal(following.last().window.rows.find((r) => r.entry.id === "e300")?.leaf, "exact");
  });

  it("turns entry actions into calls for the current session only, and answers details", async () => {
    const { open, calls } = setup(chain(["a", "b"]), "b");
    const view = open();
    view.send({ type: "ready" });
    for (const type of ["checkout", "fork", "label", "copyText"]) view.send({ type, sessionId: "s1", id: "a" });
    view.send({ type: "checkout", sessionId: "other", id: "a" });
    view.send({ type: "forkSession", sessionId: "s1" });
    await tick();
    assert.deepEqual(calls.filter((c) => !c.startsWith("log")), ["checkout a", "fork a", "label a", "copyText a", "forkReadOnly"]);
    assert.ok(calls.some((c) => c.startsWith("log warn dropped checkout")));
    view.send({ type: "requestDetails", requestId: "r1", sessionId: "s1", entryId: "a" });
    view.send({ type: "requestDetails", requestId: "r2", sessionId: "s1", entryId: "gone" });
    await tick();
    const details = view.received.filter((m) => m.type === "entryDetails");
    assert.deepEqual(details, [
      { type: "entryDetails", requestId: "r1", entryId: "a", ok: true, details: { kind: "text", text: "full a" } },
      { type: "entryDetails", requestId: "r2", entryId: "gone", ok: false, error: "No entry with id gone in this session" },
    ]);
  });

  it("marks the rows where files were recorded, sends a turn's files with its details, and asks for a file's diff", async () => {
    const entries = [
      entry("u1", null, { role: "user" }),
      entry("a1", "u1", { role: "assistant" }),
      entry("cp1", "a1", { type: "custom", customType: "arbor.checkpoint", preview: "" }),
      entry("u2", "cp1", { role: "user" }),
      entry("a2", "u2", { role: "assistant" }),
    ];
    const opened: string[] = [];
    const hub = new TreeHub({
      checkout: () => undefined,
      fork: () => undefined,
      label: () => undefined,
      copyText: () => undefined,
      forkReadOnly: () => undefined,
      details: (id) => ({ ok: true, details: { kind: "text", text: `full ${id}` } }),
      files: async (id) => (id === "a1" ? { changes: [{ path: "src/a.ts", kind: "modified", linesAdded: 3, linesDeleted: 1 }], total: 1, first: false } : undefined),
      openFileChange: (id, path) => void opened.push(`${id} ${path}`),
      log: () => undefined,
    });
    hub.showSession({ sessionId: "s1", name: "Work", entries, labels: [], leafId: "a2" }, "Work", null);
    const received: HostToWebviewMessage[] = [];
    const port = hub.connect((m) => {
      assert.ok(isHostToWebviewMessage(m), `host sent an invalid ${m.type}`);
      received.push(JSON.parse(JSON.stringify(m)) as HostToWebviewMessage);
    });
    port.receive({ type: "ready" });
    const tree = received.find((m): m is TreeMessage => m.type === "tree")!;
    const marks = Object.fromEntries(tree.window.rows.map((r) => [r.entry.id, r.checkpoint]));
    assert.deepEqual(marks, { u1: false, a1: true, u2: false, a2: false }, "the checkpoint entry itself is hidden by the default filter; its parent carries the mark");
    port.receive({ type: "requestDetails", requestId: "r1", sessionId: "s1", entryId: "a1" });
    port.receive({ type: "requestDetails", requestId: "r2", sessionId: "s1", entryId: "u1" });
    await tick();
    const details = received.filter((m) => m.type === "entryDetails");
    assert.deepEqual(details[0], { type: "entryDetails", requestId: "r1", entryId: "a1", ok: true, details: { kind: "text", text: "full a1" }, files: { changes: [{ path: "src/a.ts", kind: "modified", linesAdded: 3, linesDeleted: 1 }], total: 1, first: false } });
    assert.equal("files" in details[1]!, false);
    port.receive({ type: "openFileChange", sessionId: "s1", entryId: "a1", path: "src/a.ts" });
    port.receive({ type: "openFileChange", sessionId: "s1", entryId: "a1", path: null });
    port.receive({ type: "openFileChange", sessionId: "other", entryId: "a1", path: null });
    await tick();
    assert.deepEqual(opened, ["a1 src/a.ts", "a1 null"]);
  });

  it("drops invalid messages, counting them", () => {
    const { open, hub, calls } = setup(chain(["a"]), "a");
    const view = open();
    view.send({ type: "ready" });
    const before = view.received.length;
    for (const bad of [{ type: "select", sessionId: "s1", id: 5, add: false }, { type: "viewport", sessionId: "s1", from: 5, to: 1, visibleFrom: 0, visibleTo: 0, seq: 1 }, { type: "rm -rf" }]) view.send(bad);
    assert.equal(hub.rejectedMessages, 3);
    assert.equal(view.received.length, before);
    assert.ok(calls.some((c) => c.includes("dropped an invalid message")));
  });

  it("clamps a hostile entry so that its row, and every other, still reaches the webview", () => {
    const hostile = entry("bad\u0007id", "a", { preview: "p".repeat(1_000_000), role: "x".repeat(5_000), label: "" });
    const { open } = setup([entry("a", null), hostile, entry("c", "bad\u0007id")], "c");
    const view = open();
    view.send({ type: "ready" });
    const m = view.last();
    assert.deepEqual(rowIds(m), ["a", "invalid-id-1", "c"], "the odd id crosses as a stand-in");
    assert.equal(m.window.rows[2].entry.parentId, "invalid-id-1");
    assert.ok(m.window.rows[1].entry.preview.length <= LIMITS.previewLength);
    assert.equal(m.window.rows[1].entry.clamped, true);
  });

  it("adopts what a webview saved when nothing newer happened here; restores its scroll position", () => {
    const { open, hub } = setup([...chain(["a", "b", "c"]), entry("x", "a"), entry("t", "x", { role: "toolResult" })], "c");
    const view = open();
    view.send({ type: "ready", saved: { sessionId: "s1", topRow: 1, filter: "no-tools", query: "", folded: ["a"], selection: ["a"] } });
    const m = view.last();
    assert.equal(m.view.filter, "no-tools");
    assert.deepEqual(m.view.folded, ["a"]);
    assert.deepEqual(rowIds(m), ["a"]);
    assert.deepEqual(m.selection.ids, ["a"]);
    // A second webview's older state does not override what the first one changed.
    view.send({ type: "setFilter", filter: "all" });
    const other = open();
    other.send({ type: "ready", saved: { sessionId: "s1", topRow: 0, filter: "user-only", query: "", folded: [], selection: [] } });
    assert.equal(hub.model.filter, "all");
    assert.deepEqual(other.last().scroll, { row: 0, align: "start" });
  });

  it("a reveal while the view is hidden scrolls the view shown again to that entry, not to where it was (Show Conversation Tree, /tree)", () => {
    const ids = Array.from({ length: 60 }, (_, i) => `e${i}`);
    const { open, hub } = setup(chain(ids), "e59");
    const first = open();
    first.send({ type: "ready" });
    first.send({ type: "select", sessionId: "s1", id: "e0", add: false });
    first.port.dispose();
    hub.reveal("e59");
    const again = open();
    again.send({ type: "ready", saved: { sessionId: "s1", topRow: 0, filter: "default", query: "", folded: [], selection: ["e0"] } });
    assert.deepEqual(again.last().selection.ids, ["e59"]);
    assert.deepEqual(again.last().scroll, { row: 59, align: "center" });
    // Asked once: the next view that starts comes back where it was.
    again.port.dispose();
    const later = open();
    later.send({ type: "ready", saved: { sessionId: "s1", topRow: 3, filter: "default", query: "", folded: [], selection: ["e59"] } });
    assert.deepEqual(later.last().scroll, { row: 3, align: "start" });
  });

  it("a view hidden with its page dropped, then shown by a reveal, scrolls its new page to the entry, not to the saved top row", () => {
    const ids = Array.from({ length: 60 }, (_, i) => `e${i}`);
    const { open, hub } = setup(chain(ids), "e59");
    const view = open();
    view.send({ type: "ready" });
    view.send({ type: "select", sessionId: "s1", id: "e0", add: false });
    // Hidden: the port stays, its page is gone.
    view.port.pageDropped();
    assert.equal(view.port.isReady, false);
    const before = view.received.length;
    hub.reveal("e59");
    assert.equal(view.received.length, before, "nothing is posted to a page that is gone");
    view.send({ type: "ready", saved: { sessionId: "s1", topRow: 0, filter: "default", query: "", folded: [], selection: ["e0"] } });
    assert.deepEqual(view.last().selection.ids, ["e59"]);
    assert.deepEqual(view.last().scroll, { row: 59, align: "center" });
  });

  it("starts another session afresh and keeps folds and selection when the same one is shown again", () => {
    const { open, hub } = setup([...chain(["a", "b"]), entry("x", "a")], "b");
    const view = open();
    view.send({ type: "ready" });
    view.send({ type: "toggleFold", sessionId: "s1", id: "a" });
    hub.showSession({ sessionId: "s1", name: null, entries: [...chain(["a", "b"]), entry("x", "a")], labels: [], leafId: "b" }, "Work", null);
    assert.equal(view.last().reset, false);
    assert.deepEqual(view.last().view.folded, ["a"]);
    hub.showSession({ sessionId: "s2", name: null, entries: chain(["p", "q"]), labels: [], leafId: "q" }, "Other", { message: "held elsewhere", canFork: true });
    const m = view.last();
    assert.equal(m.reset, true);
    assert.deepEqual(m.view.folded, []);
    assert.deepEqual(m.selection.ids, ["q"]);
    assert.deepEqual(view.received.at(-1), { type: "readOnly", notice: { message: "held elsewhere", canFork: true } });
    // A file replaced under the session: the banner's button says what it does.
    hub.setReadOnly({ message: "replaced by another program", canFork: true, actionLabel: "Save as New Session" });
    assert.deepEqual(view.received.at(-1), { type: "readOnly", notice: { message: "replaced by another program", canFork: true, actionLabel: "Save as New Session" } });
    hub.showSession(null, "", null);
    assert.equal(view.last().session, null);
    assert.equal(view.last().window.rowCount, 0);
  });
});

describe("tree host: a large session built in slices", () => {
  const silent: TreeHostActions = {
    checkout: () => undefined, fork: () => undefined, label: () => undefined, copyText: () => undefined, forkReadOnly: () => undefined,
    details: () => undefined, log: () => undefined,
  };
  const dataOf = (f: ReturnType<typeof generateTreeFixture>) => ({ sessionId: f.sessionId, name: f.name, entries: [...f.entries], labels: f.labels, leafId: f.leafId });
  /** Every row of a hub's tree, as a webview would be sent them. */
  function allRows(hub: TreeHub): unknown {
    const m = hub.messageFor(true, null, 0, hub.model.rows.count);
    return { rows: m.window.rows, selection: m.selection, status: m.status, session: m.session, view: m.view };
  }

  it("gives the event loop turns, shows the previous session until it is ready, then the same tree a plain show builds, with the changes made meanwhile applied after", async () => {
    const big = generateTreeFixture(6_000, 7);
    // Every step yields (slices of 0 ms), from 1,000 entries on.
    const hub = new TreeHub(silent, "default", { from: 1_000, ms: 0 });
    hub.showSession({ sessionId: "old", name: null, entries: chain(["a", "b"]), labels: [], leafId: "b" }, "Old", null);
    const received: HostToWebviewMessage[] = [];
    hub.connect((m) => void received.push(m)).receive({ type: "ready" });
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const shown = hub.showSessionInSlices(dataOf(big), "Big", null);
    await tick();
    assert.equal(hub.sessionId, "old", "the previous session stays shown while the tree is built");
    // Session-side changes of the new session while it is built: an append, a checkout, a label, the title.
    const leaf = big.leafId!;
    const added = [entry("n1", leaf), entry("n2", "n1")];
    const relabel = big.entries.find((e) => e.type === "message" && e.id !== leaf)!.id;
    hub.append(added, "n2");
    hub.moveLeaf("n1");
    hub.changeLabels([{ targetId: relabel, label: "checked" }]);
    hub.setTitle("Big, renamed");
    assert.equal(hub.sessionId, "old");
    const before = received.length;
    await shown;
    counting = false;
    assert.ok(turns > 5, `the event loop had turns while the tree was built (${turns})`);
    assert.equal(hub.sessionId, big.sessionId);
    assert.ok(received.length > before, "the webview was sent the new session");
    // The same session shown at once, with the same changes, draws the same rows.
    const plain = new TreeHub(silent);
    plain.showSession(dataOf(big), "Big", null);
    plain.append(added, "n2");
    plain.moveLeaf("n1");
    plain.changeLabels([{ targetId: relabel, label: "checked" }]);
    plain.setTitle("Big, renamed");
    assert.deepEqual(allRows(hub), allRows(plain));
    assert.equal(hub.model.leafId, "n1");
    assert.equal(hub.model.labels.get(relabel), "checked");
  });

  it("a session shown while another is still being built replaces it: the first is never shown, nor are its changes applied", async () => {
    const first = generateTreeFixture(5_000, 3);
    const second = generateTreeFixture(3_000, 4);
    const hub = new TreeHub(silent, "default", { from: 1_000, ms: 0 });
    const sessions: (string | null)[] = [];
    hub.connect((m) => {
      if (m.type === "tree") sessions.push(m.session?.sessionId ?? null);
    }).receive({ type: "ready" });
    const slow = hub.showSessionInSlices(dataOf(first), "First", null);
    await tick();
    hub.append([entry("late", first.leafId)], "late");
    const fast = hub.showSessionInSlices(dataOf(second), "Second", null);
    await Promise.all([slow, fast]);
    assert.equal(hub.sessionId, second.sessionId);
    assert.equal(hub.model.index.positionOf("late"), undefined, "the first session's change was dropped with it");
    assert.ok(!sessions.includes(first.sessionId), "the first session was never sent");
    // A plain show, with nothing in slices, also replaces a load under way.
    const third = hub.showSessionInSlices(dataOf(first), "First", null);
    await tick();
    hub.showSession({ sessionId: "small", name: null, entries: chain(["x"]), labels: [], leafId: "x" }, "Small", null);
    await third;
    assert.equal(hub.sessionId, "small");
  });
});
