/**
 * Issue 9 points 2 and 3 in the real extension host: a session file replaced while open turns the
 * window read-only with a notice and "Save as New Session" (which keeps the unsaved entries); a
 * write that fails (a full disk, injected at the file-system seam of this very process) is shown
 * in a notification and marked in the tree, and the retry writes it once. (Deactivation waiting for
 * the last writes is zz-deactivate.test.ts.)
 */
import { strict as assert } from "node:assert";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as vscode from "vscode";
import { injectFault } from "../../support/fs-faults";
import { arborApi, hooks, messagesShownBy, samples, until, type HostApi } from "./host-helpers";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** A small session of its own (a fresh header id), in the workspace's sessions folder. */
function writeSession(name: string, n: number): string {
  const id = `0199aaaa-0000-7000-8000-${String(n).padStart(12, "0")}`;
  const lines = [
    { type: "session", version: 3, id, timestamp: "2026-01-02T00:00:00.000Z", cwd: process.env.ARBOR_HOST_WORKSPACE },
    { type: "message", id: `e${n}000001`, parentId: null, timestamp: "2026-01-02T00:00:01.000Z", message: { role: "user", content: `${name}: question`, timestamp: 1 } },
    { type: "message", id: `e${n}000002`, parentId: `e${n}000001`, timestamp: "2026-01-02T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "answer" }], api: "openai-completions", provider: "test", model: "m", usage, stopReason: "stop", timestamp: 2 } },
  ];
  const file = join(dirname(samples().mainFile), `2026-01-02T00-00-00-000Z_${id}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}

const lineIds = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { id: string }).id);

describe("files that change under an open session, and writes that fail (issue 9.2, 9.3)", function () {
  this.timeout(60_000);
  let arbor: HostApi;
  before(async () => {
    arbor = await arborApi();
    await vscode.commands.executeCommand("arbor.conversationTree.focus");
  });

  it("a file replaced while open: the window turns read-only with a notice, and Save as New Session keeps the unsaved label", async () => {
    const file = writeSession("replaced", 91);
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    const { tree } = hooks(arbor);
    const sm = hooks(arbor).currentSession!;
    assert.equal(sm.getSessionFile(), file);
    const target = sm.getEntries()[0]!.id;
    // An editor's atomic save renames a new file over the session.
    const replacement = readFileSync(file, "utf8").replace("question", "edited elsewhere");
    writeFileSync(`${file}.new`, replacement);
    renameSync(`${file}.new`, file);
    const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.labelEntry", { entryId: target, label: "typed after the replace" }));
    assert.match([...shown.warnings, ...shown.errors].join("\n"), /replaced by another program/);
    assert.equal(sm.isDetached(), true);
    assert.equal(sm.getLabel(target), "typed after the replace", "the label lives on in the window");
    assert.equal(readFileSync(file, "utf8"), replacement, "the new file is left alone");
    await until(() => {
      const m = tree.lastPosted.get("readOnly");
      return m?.type === "readOnly" && m.notice?.actionLabel === "Save as New Session";
    }, "the tree's banner to offer Save as New Session");
    const shownSave = await messagesShownBy(() => vscode.commands.executeCommand("arbor.saveAsNewSession"));
    assert.deepEqual(shownSave.errors, []);
    const saved = hooks(arbor).currentSession!;
    const copy = saved.getSessionFile()!;
    assert.notEqual(copy, file);
    assert.equal(saved.isReadOnly(), false);
    await saved.flush();
    const text = readFileSync(copy, "utf8");
    assert.match(text, /typed after the replace/, "the unsaved label is in the new file");
    assert.equal(JSON.parse(text.split("\n")[0]!).parentSession, file);
    for (const e of sm.getEntries()) assert.ok(lineIds(copy).includes(e.id), `entry ${e.id} saved`);
  });

  it("a write that fails is shown in a notification and marked in the tree; the retry writes it once", async () => {
    const file = resolve(writeSession("full disk", 92));
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    const { tree } = hooks(arbor);
    const sm = hooks(arbor).currentSession!;
    const target = sm.getEntries()[1]!.id;
    const restore = await injectFault((p) => p === file, { code: "ENOSPC", allowBytes: 0 });
    let shown;
    try {
      shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.labelEntry", { entryId: target, label: "on a full disk" }));
    } finally {
      restore();
    }
    assert.match(shown.errors.join("\n"), /could not save to the session file: .*no space left.*1 entry is kept in this window/i);
    const label = sm.getEntries().pop()!;
    assert.ok(!lineIds(file).includes(label.id), "not in the file");
    assert.deepEqual(sm.getUnsavedEntryIds(), [label.id]);
    // The tree's model marks it (a webview's rows carry the mark when the entry is in view).
    const marked = (id: string) => {
      const index = tree.hub.model.index;
      const i = index.positionOf(id);
      return i !== undefined && index.summary(i).unsaved === true;
    };
    await until(() => marked(label.id), "the tree to mark the unsaved entry");
    await sm.flush(); // what Retry does (and the automatic retry)
    assert.equal(lineIds(file).filter((id) => id === label.id).length, 1, "written exactly once");
    await until(() => !marked(label.id), "the mark to go");
  });
});
