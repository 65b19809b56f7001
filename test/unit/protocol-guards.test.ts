import * as assert from "node:assert/strict";
import { describeInvalidMessage, isEntrySummary, isHostToWebviewMessage, isTreeRow, isWebviewToHostMessage } from "../../src/protocol/guards";
import type { HostToWebviewMessage, TreeRow, WebviewToHostMessage } from "../../src/protocol/messages";
import { entry } from "../support/webview-harness.fixtures";

const summary = entry("0a1b2c3d", null, {
  role: "assistant",
  toolName: "read, bash",
  isError: false,
  textless: true,
  preview: "→ read, bash",
});

const row: TreeRow = {
  entry: summary,
  level: 3,
  posInSet: 1,
  setSize: 2,
  lanes: "lt",
  hiddenLanes: 0,
  branches: 0,
  folded: false,
  segmentStart: true,
  top: false,
  orphan: false,
  onPath: true,
  leaf: "exact",
  label: "x",
  span: null,
  checkpoint: false,
};

/** Every host message kind, valid. */
const validHost: HostToWebviewMessage[] = [
  {
    type: "tree",
    reset: true,
    session: { sessionId: "s", title: "Parser work", entryCount: 10 },
    view: { filter: "default", query: "", folded: ["a1"] },
    window: { version: 3, rowCount: 10, start: 4, rows: [row], seq: 2 },
    selection: { ids: ["0a1b2c3d"], focusRow: 4 },
    status: { shown: 10, total: 12, leafHidden: false, replacedCount: 3 },
    scroll: { row: 4, align: "center" },
  },
  {
    type: "tree",
    reset: false,
    session: null,
    view: { filter: "all", query: "x", folded: [] },
    window: { version: 0, rowCount: 0, start: 0, rows: [] },
    selection: { ids: [], focusRow: -1 },
    status: { shown: 0, total: 0, leafHidden: false },
    scroll: null,
  },
  { type: "readOnly", notice: null },
  { type: "readOnly", notice: { message: "Open in another window", canFork: true } },
  { type: "entryDetails", requestId: "d1", entryId: "a", ok: true, details: { kind: "compaction", summary: "s", tokensBefore: 5, firstKeptEntryId: "b", readFiles: ["a.ts"], modifiedFiles: [] } },
  { type: "entryDetails", requestId: "d2", entryId: "a", ok: true, details: { kind: "branchSummary", summary: "s", fromId: "root" } },
  { type: "entryDetails", requestId: "d3", entryId: "a", ok: true, details: { kind: "text", text: "full" } },
  { type: "entryDetails", requestId: "d4", entryId: "a", ok: false, error: "gone" },
];

const validWebview: WebviewToHostMessage[] = [
  { type: "ready" },
  { type: "ready", saved: { sessionId: "s", topRow: 12, filter: "no-tools", query: "q", folded: ["a"], selection: ["b", "c"] } },
  { type: "viewport", sessionId: "s", from: 0, to: 120, visibleFrom: 10, visibleTo: 40, seq: 1 },
  { type: "select", sessionId: "s", id: "a", add: false },
  { type: "navigate", sessionId: "s", move: "pageDown", pageSize: 30 },
  { type: "toggleFold", sessionId: "s", id: "a" },
  { type: "setFilter", filter: "user-only" },
  { type: "setQuery", query: "tree parser" },
  { type: "checkout", sessionId: "s", id: "a" },
  { type: "fork", sessionId: "s", id: "a" },
  { type: "label", sessionId: "s", id: "a" },
  { type: "copyText", sessionId: "s", id: "a" },
  { type: "forkSession", sessionId: "s" },
  { type: "requestDetails", requestId: "d1", sessionId: "s", entryId: "a" },
  { type: "log", level: "warn", message: "x" },
];

/** Returns a copy with one field (by path) replaced or, with `undefined`, removed. */
function tweak<T>(message: T, pathKeys: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(message) as Record<string | number, unknown>;
  let target = copy;
  for (const key of pathKeys.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = pathKeys[pathKeys.length - 1];
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

describe("protocol guards", () => {
  it("accept every valid host message", () => {
    for (const m of validHost) assert.ok(isHostToWebviewMessage(m), JSON.stringify(m).slice(0, 120));
  });

  it("accept every valid webview message", () => {
    for (const m of validWebview) assert.ok(isWebviewToHostMessage(m), JSON.stringify(m));
  });

  it("do not accept a message from the other direction", () => {
    for (const m of validWebview) assert.equal(isHostToWebviewMessage(m), false, m.type);
    for (const m of validHost) assert.equal(isWebviewToHostMessage(m), false, m.type);
  });

  it("reject non-objects and unknown types", () => {
    for (const x of [null, undefined, 3, "ready", [], [{ type: "ready" }], { type: "nope" }, {}, { type: "state", session: null, readOnly: null }]) {
      assert.equal(isHostToWebviewMessage(x), false);
      assert.equal(isWebviewToHostMessage(x), false);
    }
  });

  const badTree: [string, (string | number)[], unknown][] = [
    ["reset missing", ["reset"], undefined],
    ["session id of the wrong type", ["session", "sessionId"], 42],
    ["empty session id", ["session", "sessionId"], ""],
    ["a title of the wrong type", ["session", "title"], 5],
    ["a negative entry count", ["session", "entryCount"], -1],
    ["an unknown filter", ["view", "filter"], "labelled-only"],
    ["a folded id with a control character", ["view", "folded", 0], "a\u0001"],
    ["rows not an array", ["window", "rows"], { 0: row }],
    ["rows past the row count", ["window", "rowCount"], 4],
    ["a fractional version", ["window", "version"], 1.5],
    ["an entry id too long", ["window", "rows", 0, "entry", "id"], "x".repeat(300)],
    ["an entry id with a control character", ["window", "rows", 0, "entry", "id"], "ab\ncd"],
    ["a parent id of the wrong type", ["window", "rows", 0, "entry", "parentId"], 7],
    ["a missing preview", ["window", "rows", 0, "entry", "preview"], undefined],
    ["a huge preview", ["window", "rows", 0, "entry", "preview"], "p".repeat(20_000)],
    ["a fractional line number", ["window", "rows", 0, "entry", "line"], 1.5],
    ["isError not a boolean", ["window", "rows", 0, "entry", "isError"], "yes"],
    ["tokensBefore not finite", ["window", "rows", 0, "entry", "tokensBefore"], Number.POSITIVE_INFINITY],
    ["a level of 0", ["window", "rows", 0, "level"], 0],
    ["lanes with markup", ["window", "rows", 0, "lanes"], "<b>"],
    ["too many lanes", ["window", "rows", 0, "lanes"], "l".repeat(65)],
    ["an unknown leaf state", ["window", "rows", 0, "leaf"], "maybe"],
    ["an empty label", ["window", "rows", 0, "label"], ""],
    ["an unknown span state", ["window", "rows", 0, "span"], "gone"],
    ["a third selected id", ["selection", "ids"], ["a", "b", "c"]],
    ["a focus row below -1", ["selection", "focusRow"], -2],
    ["leafHidden missing", ["status", "leafHidden"], undefined],
    ["an unknown scroll alignment", ["scroll", "align"], "end"],
    ["textless not a boolean", ["window", "rows", 0, "entry", "textless"], 1],
  ];
  for (const [what, keys, value] of badTree) {
    it(`reject a tree message with ${what}`, () => {
      assert.ok(isHostToWebviewMessage(validHost[0]));
      assert.equal(isHostToWebviewMessage(tweak(validHost[0], keys, value)), false);
    });
  }

  it("reject bad responses", () => {
    const bad: [number, (string | number)[], unknown][] = [
      [3, ["notice"], { message: "m" }],
      [4, ["details", "kind"], "other"],
      [4, ["details", "readFiles"], [1]],
      [4, ["requestId"], "r".repeat(65)],
      [5, ["details", "fromId"], undefined],
      [7, ["ok"], "no"],
      [7, ["error"], undefined],
    ];
    for (const [index, keys, value] of bad) {
      assert.equal(isHostToWebviewMessage(tweak(validHost[index], keys, value)), false, `${validHost[index].type} ${keys.join(".")}`);
    }
  });

  it("reject bad webview messages", () => {
    const bad: [number, (string | number)[], unknown][] = [
      [1, ["saved", "topRow"], -1],
      [1, ["saved", "selection"], ["a", "b", "c"]],
      [1, ["saved", "filter"], "nope"],
      [2, ["from"], 200],
      [2, ["seq"], undefined],
      [2, ["visibleTo"], 1.5],
      [3, ["add"], undefined],
      [3, ["id"], ""],
      [4, ["move"], "sideways"],
      [4, ["pageSize"], 100_000],
      [5, ["id"], 3],
      [6, ["filter"], "every-entry"],
      [7, ["query"], "q".repeat(2_000)],
      [8, ["id"], undefined],
      [8, ["sessionId"], undefined],
      [9, ["id"], 5],
      [12, ["sessionId"], null],
      [13, ["requestId"], ""],
      [13, ["entryId"], "a\u0000"],
      [14, ["level"], "debug"],
      [14, ["message"], "m".repeat(200_000)],
    ];
    for (const [index, keys, value] of bad) {
      assert.equal(isWebviewToHostMessage(tweak(validWebview[index], keys, value)), false, `${validWebview[index].type} ${keys.join(".")}`);
    }
  });

  it("check every optional entry field when present, and ignore unknown fields", () => {
    assert.ok(isEntrySummary({ ...summary, somethingNew: { deep: true } }));
    for (const field of ["customType", "firstKeptEntryId", "fromId", "targetId", "label", "provider", "modelId", "thinkingLevel", "checkoutMarker"]) {
      assert.equal(isEntrySummary({ ...summary, [field]: 12 }), false, field);
    }
    assert.ok(isTreeRow(row));
    assert.equal(isTreeRow({ ...row, entry: { ...summary, role: 3 } }), false);
  });

  it("describe an invalid message without echoing its content", () => {
    assert.equal(describeInvalidMessage(null), "not an object (null)");
    assert.equal(describeInvalidMessage([1]), "not an object (array)");
    const text = describeInvalidMessage({ type: "tree", session: { secret: "x".repeat(1000) } });
    assert.ok(text.includes('"tree"'));
    assert.ok(text.length < 100);
  });
});
