/**
 * Branch diff (issue 11.5) in the extension host: Compare Branches with two ids, with the two
 * entries selected in the tree, and Compare with Current Leaf from a row's menu argument open VS
 * Code's diff editor on two read-only Markdown documents; their text is each side's own path.
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import type { SessionManager } from "../../../src/core/session/session-manager";
import { findArbor, samples, until } from "./host-helpers";

interface Probe {
  readonly currentSession: SessionManager | undefined;
  readonly tree: { readonly hub: { readonly model: { select(id: string, add?: boolean): boolean } }; readonly selection: readonly string[] };
}

/** The diff editor in front, if one is. */
function activeDiff(): { tab: vscode.Tab; input: vscode.TabInputTextDiff } | undefined {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  return tab && tab.input instanceof vscode.TabInputTextDiff ? { tab, input: tab.input } : undefined;
}

/** The user-message texts on `ids` (the entries of one side). */
function userTexts(sm: SessionManager, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const e = sm.getEntry(id);
    if (e?.type === "message" && e.message.role === "user" && typeof e.message.content === "string") out.push(e.message.content);
  }
  return out;
}

describe("Branch diff in the extension host", function () {
  this.timeout(60_000);
  let p: Probe;
  before(async () => {
    p = ((await findArbor().activate()) as { testing: Probe }).testing;
    await vscode.commands.executeCommand("arbor.resumeSession", samples().mainFile);
    await until(() => p.currentSession?.getSessionFile() === samples().mainFile, "the main session");
  });
  afterEach(() => vscode.commands.executeCommand("workbench.action.closeAllEditors"));

  it("Compare Branches opens the diff of two entries: each side its own path from the common ancestor, as Markdown", async () => {
    const ids = samples().main;
    const sm = p.currentSession!;
    const uris = (await vscode.commands.executeCommand("arbor.compareBranches", ids.abandonedLeafId, ids.leafId)) as vscode.Uri[];
    assert.equal(uris.length, 2);
    await until(() => activeDiff() !== undefined, "the diff editor");
    const { tab, input } = activeDiff()!;
    assert.equal(input.original.toString(), uris[0].toString());
    assert.equal(input.modified.toString(), uris[1].toString());
    assert.match(tab.label, / ↔ /, "the title names both entries");
    const [left, right] = await Promise.all(uris.map((u) => vscode.workspace.openTextDocument(u)));
    assert.equal(left.languageId, "markdown");
    assert.equal(left.uri.scheme, "arbor-branch", "a virtual document (read-only: no file system behind it)");
    // Split the two root paths the way the user sees the tree.
    const a = sm.getPathIds(ids.abandonedLeafId);
    const b = sm.getPathIds(ids.leafId);
    let common = 0;
    while (a[common] === b[common]) common++;
    assert.ok(left.getText().includes(`From the common ancestor ${a[common - 1]}`), left.getText().slice(0, 400));
    const leftOnly = userTexts(sm, a.slice(common));
    const rightOnly = userTexts(sm, b.slice(common));
    const shared = userTexts(sm, a.slice(0, common));
    assert.ok(leftOnly.length > 0 && rightOnly.length > 0 && shared.length > 0, "both sides and the shared start hold user messages");
    for (const text of leftOnly) assert.ok(left.getText().includes(text) && !right.getText().includes(text), `only the left has: ${text}`);
    for (const text of rightOnly) assert.ok(right.getText().includes(text) && !left.getText().includes(text), `only the right has: ${text}`);
    for (const text of shared) assert.ok(!left.getText().includes(text) && !right.getText().includes(text), `neither repeats: ${text}`);
    for (const doc of [left, right]) assert.match(doc.getText(), /## What this branch did to the workspace/);
  });

  it("compares the two entries selected in the tree when run with no argument", async () => {
    const ids = samples().main;
    assert.ok(p.tree.hub.model.select(ids.abandonedLeafId));
    assert.ok(p.tree.hub.model.select(ids.firstUserId, true));
    assert.equal(p.tree.selection.length, 2);
    const uris = (await vscode.commands.executeCommand("arbor.compareBranches")) as vscode.Uri[];
    await until(() => activeDiff()?.input.modified.toString() === uris[1].toString(), "the diff editor");
    const left = await vscode.workspace.openTextDocument(uris[0]);
    assert.match(left.getText(), new RegExp(`- Entry: ${ids.abandonedLeafId}`));
    assert.match((await vscode.workspace.openTextDocument(uris[1])).getText(), /This entry is the common ancestor/, "the first user message is on the abandoned path");
  });

  it("Compare with Current Leaf, from a tree row's menu, puts the leaf on the right", async () => {
    const ids = samples().main;
    const sm = p.currentSession!;
    const uris = (await vscode.commands.executeCommand("arbor.tree.compareWithLeaf", { webviewSection: "entry", entryId: ids.abandonedLeafId })) as vscode.Uri[];
    await until(() => activeDiff() !== undefined, "the diff editor");
    const right = await vscode.workspace.openTextDocument(uris[1]);
    const leaf = sm.getLeafId()!;
    const leafEntry = sm.getSummary(leaf)!;
    assert.match(right.getText(), new RegExp(`- Entry: ${leafEntry.checkoutMarker ? leafEntry.parentId! : leaf}`));
  });
});
