/**
 * The Conversation Tree over a session's store (StoreTreeSource): the filters read only each entry's
 * skeleton, and summaries are made from bodies for drawn rows and searches. It must draw exactly
 * what the tree over every entry's summary draws (filters, searches, labels, appends), and showing
 * a session must read the bodies of the rows sent, not the whole file.
 */
import * as assert from "node:assert/strict";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BodyReader } from "../../src/core/session/body-reader";
import { SessionManager } from "../../src/core/session/session-manager";
import { FILTER_MODES } from "../../src/core/tree/filters";
import { TreeModel } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { sessionDataOf } from "../../src/extension/tree-session-data";
import { TreeHub } from "../../src/protocol/tree-host";
import type { HostToWebviewMessage } from "../../src/protocol/messages";
import { generateReferenceSession } from "../support/random-session";
import { loadReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

/** Every drawn row: its id, level and the summary's preview. */
function drawn(model: TreeModel): string[] {
  const out: string[] = [];
  for (let r = 0; r < model.rows.count; r++) {
    const i = model.rows.nodeAt(r);
    out.push(`${model.idAt(r)} ${model.rows.level(i)}${model.index.isOrphan(i) ? " orphan" : ""} ${model.index.summary(i).preview}`);
  }
  return out;
}

/** Counts the bytes read back from session files while `run` runs. */
function bytesRead(run: () => void): number {
  const original = BodyReader.prototype.read;
  let total = 0;
  BodyReader.prototype.read = function (this: BodyReader, offset: number, length: number): Buffer {
    total += length;
    return original.call(this, offset, length);
  };
  try {
    run();
  } finally {
    BodyReader.prototype.read = original;
  }
  return total;
}

describe("Conversation Tree over a session's store (bodies read on demand)", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  const files: string[] = [];
  before(async function () {
    this.timeout(120_000);
    const pi = await loadReference();
    tmp = makeTempDir();
    for (let seed = 1; seed <= 8; seed++) {
      const { file } = generateReferenceSession(pi, { seed: 500 + seed, entries: seed === 8 ? 3000 : 250, persistDir: join(tmp.dir, String(seed)), unknownRoles: true });
      files.push(file!);
    }
  });
  after(() => tmp.cleanup());

  it("draws what the tree over every summary draws, under every filter and search, and after appends", async () => {
    for (const file of files) {
      const sm = await SessionManager.open(file, { index: false });
      try {
        const lazy = TreeModel.create();
        const full = TreeModel.create();
        lazy.load(sessionDataOf(sm));
        full.load({ ...sessionDataOf(sm), entries: sm.getSummaries() });
        const words = sm.getSummaries().flatMap((s) => s.preview.split(/\s+/).filter((w) => w.length > 3)).slice(0, 40);
        for (const filter of FILTER_MODES) {
          lazy.setFilter(filter);
          full.setFilter(filter);
          for (const query of ["", words[3] ?? "x", words[17] ?? "y", "tool", "no-such-word-anywhere"]) {
            lazy.setQuery(query);
            full.setQuery(query);
            assert.deepEqual(drawn(lazy), drawn(full), `${file}: filter ${filter}, search "${query}"`);
          }
        }
        // Appends reach both the same way: as summaries from the session's change events.
        lazy.setFilter("default");
        full.setFilter("default");
        lazy.setQuery("");
        full.setQuery("");
        const appended: EntrySummary[][] = [];
        const listener = sm.onDidChange((c) => c.kind === "entries" && appended.push(c.entries));
        const user = sm.appendMessage({ role: "user", content: "one more question", timestamp: Date.now() });
        sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "x" } }], api: "a", provider: "p", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: Date.now() });
        listener.dispose();
        assert.ok(appended.length > 0 && user);
        for (const batch of appended) {
          lazy.append(batch, sm.getLeafId());
          full.append(batch, sm.getLeafId());
        }
        assert.deepEqual(drawn(lazy), drawn(full), `${file}: after appends`);
        lazy.setQuery("question");
        full.setQuery("question");
        assert.deepEqual(drawn(lazy), drawn(full), `${file}: a search after appends`);
      } finally {
        await sm.close();
      }
    }
  });

  it("draws odd structures the same way: repeated ids, missing and later parents, self-parents, cycles, checkout markers", async () => {
    const t = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const msg = (id: string, parentId: string | null, n: number, role = "user", text = `text ${id}`) =>
      JSON.stringify({ type: "message", id, parentId, timestamp: t(n), message: role === "user" ? { role, content: text, timestamp: n } : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: n } });
    const shapes: string[][] = [
      // a parent that comes later in the file, an orphan, a self-parent
      [msg("aaaa0001", "aaaa0003", 1), msg("aaaa0002", "ffff9999", 2), msg("aaaa0003", null, 3), msg("aaaa0004", "aaaa0004", 4), msg("aaaa0005", "aaaa0003", 5, "assistant")],
      // a cycle, and entries hanging from it
      [msg("bbbb0001", null, 1), msg("bbbb0002", "bbbb0003", 2), msg("bbbb0003", "bbbb0002", 3), msg("bbbb0004", "bbbb0003", 4), msg("bbbb0005", "bbbb0001", 5)],
      // a repeated id (the last wins), children of both
      [msg("cccc0001", null, 1), msg("cccc0002", "cccc0001", 2), msg("cccc0003", "cccc0002", 3), msg("cccc0002", "cccc0001", 4, "assistant"), msg("cccc0004", "cccc0002", 5)],
      // checkout markers (spliced out: children hang from the marker's parent), one at root position, one orphaned
      [msg("dddd0001", null, 1), JSON.stringify({ type: "custom", customType: "arbor.checkout", id: "dddd0002", parentId: "dddd0001", timestamp: t(2) }), msg("dddd0003", "dddd0002", 3),
        JSON.stringify({ type: "custom", customType: "arbor.checkout", id: "dddd0004", parentId: null, timestamp: t(4) }), msg("dddd0005", "dddd0004", 5),
        JSON.stringify({ type: "custom", customType: "arbor.checkout", id: "dddd0006", parentId: "eeee0000", timestamp: t(6) }), msg("dddd0007", "dddd0006", 7)],
      // ids that are not 8 hex digits, siblings out of time order
      [msg("root", null, 1), msg("b-late", "root", 9), msg("a-early", "root", 2), msg("c", "a-early", 3)],
    ];
    for (const [k, shape] of shapes.entries()) {
      const file = join(tmp.dir, `shape-${k}.jsonl`);
      const header = JSON.stringify({ type: "session", version: 3, id: `s${k}`, timestamp: t(0), cwd: "/w" });
      // Long texts, so that bodies stay on disk and are read on demand.
      writeFileSync(file, `${[header, ...shape.map((l) => l.replace(/text (\w+)/, (m) => `${m} ${"x".repeat(600)}`))].join("\n")}\n`);
      const sm = await SessionManager.open(file, { index: false, readOnly: true });
      try {
        for (const filter of FILTER_MODES) {
          const lazy = TreeModel.create(filter);
          const full = TreeModel.create(filter);
          lazy.load(sessionDataOf(sm));
          full.load({ ...sessionDataOf(sm), entries: sm.getSummaries() });
          assert.deepEqual(drawn(lazy), drawn(full), `shape ${k}, filter ${filter}`);
          if (filter === "all") assert.ok(drawn(full).length >= shape.length - 3, `shape ${k} draws its entries`);
        }
      } finally {
        await sm.close();
      }
    }
  });

  it("shows a session by reading the bodies of the rows it sends, not the whole file", async () => {
    const file = files[files.length - 1]!;
    const size = statSync(file).size;
    const sm = await SessionManager.open(file, { index: false, readOnly: true });
    try {
      const hub = new TreeHub({ log: () => undefined, details: () => undefined } as unknown as ConstructorParameters<typeof TreeHub>[0]);
      let sent: Extract<HostToWebviewMessage, { type: "tree" }> | undefined;
      const read = bytesRead(() => {
        hub.showSession(sessionDataOf(sm), "t", null);
        const port = hub.connect((m) => {
          if (m.type === "tree") sent = m;
        });
        port.receive({ type: "ready" });
      });
      assert.ok(sent && sent.window.rows.length > 50, "a window of rows was sent");
      assert.ok(hub.model.rows.count > sent.window.rows.length * 3, "the session has far more rows than a window");
      assert.ok(read < size / 4, `read ${read} of ${size} bytes to show ${sent.window.rows.length} of ${hub.model.rows.count} rows`);
      // And what is sent is what the summaries say.
      const byId = new Map(sm.getSummaries().map((s) => [s.id, s]));
      for (const row of sent.window.rows) assert.equal(row.entry.preview, byId.get(row.entry.id)!.preview);
    } finally {
      await sm.close();
    }
  });
});
