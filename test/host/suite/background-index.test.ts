/**
 * Issue 10, first open: the Sessions list's large sessions are indexed in the background, so that a
 * click on one reads its reopen index instead of the whole file. In a real extension host: the list
 * is shown, the index appears in Arbor's cache without any open, and the open then reads it.
 */
import { strict as assert } from "node:assert";
import { rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { defaultCacheDir } from "../../../src/core/session/cache-dir";
import { indexFileFor, indexLooksCurrent } from "../../../src/core/session/session-index";
import { arborApi, hooks, samples, until, type HostApi } from "./host-helpers";

/** A Pi session of `count` user/assistant messages (about 1 KB each), last written an hour ago. */
function writeLargeSession(file: string, cwd: string, count: number): void {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "large-session", timestamp: "2026-01-01T00:00:00.000Z", cwd })];
  let parent: string | null = null;
  for (let i = 0; i < count; i++) {
    const id = `f${i.toString(16).padStart(7, "0")}`;
    const text = `${i === 0 ? "Large background session" : `turn ${i}`} `.padEnd(1000, "·");
    const message = i % 2 === 0 ? { role: "user", content: text, timestamp: i } : { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: i };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z", message }));
    parent = id;
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(file, hourAgo, hourAgo);
}

describe("large sessions of the Sessions list are indexed in the background (issue 10)", function () {
  this.timeout(60_000);
  let api: HostApi;
  let file: string;
  const indexDir = join(defaultCacheDir(), "sessions");

  before(async () => {
    api = await arborApi();
    file = join(samples().sessionDir, "2025-12-31T00-00-00-000Z_large-background.jsonl");
    writeLargeSession(file, process.env.ARBOR_HOST_WORKSPACE ?? "/", 4_000);
    rmSync(indexFileFor(file, indexDir), { force: true });
  });

  after(async () => {
    if (hooks(api).currentSession?.getSessionFile() === file) await vscode.commands.executeCommand("arbor.resumeSession", samples().mainFile);
    rmSync(file, { force: true });
  });

  it("indexes a listed session without opening it, and a click then opens it from the index", async () => {
    assert.ok(statSync(file).size > 1024 * 1024, "large enough to be indexed");
    await vscode.commands.executeCommand("arbor.sessions.focus");
    await hooks(api).sessions.listNow();
    assert.ok(hooks(api).backgroundIndexing.requested?.includes(file), "the listing asked for it");
    // Made, and the indexing over: an open while it is still under way takes the loaded session from it instead.
    await until(async () => (await indexLooksCurrent(file, indexDir, statSync(file))) && hooks(api).backgroundIndexing.preparing !== file, "the index is made in the background", 45_000);
    assert.notEqual(hooks(api).currentSession?.getSessionFile(), file, "nothing opened it");
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    const sm = hooks(api).currentSession;
    assert.equal(sm?.getSessionFile(), file);
    assert.equal(sm?.getIndexUse(), "unchanged", "the open read the index made in the background");
    assert.equal(sm?.getEntries().length, 4_000);
  });
});
