import * as assert from "node:assert/strict";
import { describeInvalidMessage, isEntrySummary, isHostToWebviewMessage, isWebviewToHostMessage } from "../../src/protocol/guards";
import type { HostToWebviewMessage, WebviewToHostMessage } from "../../src/protocol/messages";
import { entry } from "../support/webview-harness.fixtures";

const summary = entry("0a1b2c3d", null, {
  role: "assistant",
  toolName: "read, bash",
  isError: false,
  toolOnly: true,
  preview: "→ read, bash",
});

/** Every host message kind, valid. */
const validHost: HostToWebviewMessage[] = [
  { type: "state", session: { sessionId: "s", name: null, entries: [summary], labels: [{ targetId: "0a1b2c3d", label: "x" }], leafId: "0a1b2c3d" }, readOnly: null },
  { type: "state", session: null, readOnly: { message: "Open in another window", canFork: true }, defaultFilter: "no-tools" },
  { type: "entriesAppended", sessionId: "s", entries: [summary], leafId: "0a1b2c3d" },
  { type: "leafMoved", sessionId: "s", leafId: null },
  { type: "labelsChanged", sessionId: "s", changes: [{ targetId: "a", label: "x" }, { targetId: "b", label: null }] },
  { type: "sessionRenamed", sessionId: "s", name: "New name" },
  { type: "readOnly", notice: null },
  { type: "entryDetails", requestId: "d1", entryId: "a", ok: true, details: { kind: "compaction", summary: "s", tokensBefore: 5, firstKeptEntryId: "b", readFiles: ["a.ts"], modifiedFiles: [] } },
  { type: "entryDetails", requestId: "d2", entryId: "a", ok: true, details: { kind: "branchSummary", summary: "s", fromId: "root" } },
  { type: "entryDetails", requestId: "d3", entryId: "a", ok: true, details: { kind: "text", text: "full" } },
  { type: "entryDetails", requestId: "d4", entryId: "a", ok: false, error: "gone" },
  { type: "reveal", sessionId: "s", entryId: "a" },
  { type: "setFilter", filter: "all" },
];

const validWebview: WebviewToHostMessage[] = [
  { type: "ready" },
  { type: "checkout", sessionId: "s", id: "a" },
  { type: "fork", sessionId: "s", id: "a" },
  { type: "label", sessionId: "s", id: "a" },
  { type: "copyText", sessionId: "s", id: "a" },
  { type: "forkSession", sessionId: "s" },
  { type: "requestDetails", requestId: "d1", sessionId: "s", entryId: "a" },
  { type: "selectionChanged", sessionId: "s", id: null },
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
    for (const x of [null, undefined, 3, "ready", [], [{ type: "ready" }], { type: "nope" }, {}]) {
      assert.equal(isHostToWebviewMessage(x), false);
      assert.equal(isWebviewToHostMessage(x), false);
    }
  });

  const badHost: [string, (string | number)[], unknown][] = [
    ["missing session", ["session"], undefined],
    ["session id of the wrong type", ["session", "sessionId"], 42],
    ["empty session id", ["session", "sessionId"], ""],
    ["entries not an array", ["session", "entries"], { 0: summary }],
    ["an entry id too long", ["session", "entries", 0, "id"], "x".repeat(300)],
    ["an entry id with a control character", ["session", "entries", 0, "id"], "ab\ncd"],
    ["a parent id of the wrong type", ["session", "entries", 0, "parentId"], 7],
    ["a missing preview", ["session", "entries", 0, "preview"], undefined],
    ["a huge preview", ["session", "entries", 0, "preview"], "p".repeat(20_000)],
    ["a fractional line number", ["session", "entries", 0, "line"], 1.5],
    ["a negative line number", ["session", "entries", 0, "line"], -1],
    ["isError not a boolean", ["session", "entries", 0, "isError"], "yes"],
    ["toolOnly not a boolean", ["session", "entries", 0, "toolOnly"], 1],
    ["tokensBefore not finite", ["session", "entries", 0, "tokensBefore"], Number.POSITIVE_INFINITY],
    ["an empty role", ["session", "entries", 0, "role"], ""],
    ["a label that is empty", ["session", "labels", 0, "label"], ""],
    ["a label without target", ["session", "labels", 0, "targetId"], undefined],
    ["a leaf id of the wrong type", ["session", "leafId"], {}],
    ["a name of the wrong type", ["session", "name"], 5],
    ["readOnly missing", ["readOnly"], undefined],
    ["an unknown default filter", ["defaultFilter"], "labelled-only"],
  ];
  for (const [what, keys, value] of badHost) {
    it(`reject a state message with ${what}`, () => {
      assert.ok(isHostToWebviewMessage(validHost[0]));
      assert.equal(isHostToWebviewMessage(tweak(validHost[0], keys, value)), false);
    });
  }

  it("reject bad increments and responses", () => {
    const bad: [number, (string | number)[], unknown][] = [
      [2, ["leafId"], undefined],
      [2, ["sessionId"], undefined],
      [3, ["leafId"], 9],
      [4, ["changes", 1, "label"], 3],
      [5, ["name"], undefined],
      [6, ["notice"], { message: "m" }],
      [7, ["details", "kind"], "other"],
      [7, ["details", "readFiles"], [1]],
      [7, ["requestId"], "r".repeat(65)],
      [8, ["details", "fromId"], undefined],
      [10, ["ok"], "no"],
      [10, ["error"], undefined],
      [11, ["entryId"], ""],
      [12, ["filter"], "everything"],
    ];
    for (const [index, keys, value] of bad) {
      assert.equal(isHostToWebviewMessage(tweak(validHost[index], keys, value)), false, `${validHost[index].type} ${keys.join(".")}`);
    }
  });

  it("reject bad webview messages", () => {
    const bad: [number, (string | number)[], unknown][] = [
      [1, ["id"], undefined],
      [1, ["id"], ""],
      [1, ["sessionId"], undefined],
      [2, ["id"], 5],
      [5, ["sessionId"], null],
      [6, ["requestId"], ""],
      [6, ["entryId"], "a\u0000"],
      [7, ["id"], 3],
      [8, ["level"], "debug"],
      [8, ["message"], "m".repeat(200_000)],
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
  });

  it("describe an invalid message without echoing its content", () => {
    assert.equal(describeInvalidMessage(null), "not an object (null)");
    assert.equal(describeInvalidMessage([1]), "not an object (array)");
    const text = describeInvalidMessage({ type: "state", session: { secret: "x".repeat(1000) } });
    assert.ok(text.includes('"state"'));
    assert.ok(text.length < 100);
  });
});
