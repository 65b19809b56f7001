/**
 * End-to-end: room to read in the Conversation Tree, and the tree in an editor tab. A deeply
 * branched session (written by the reference's SessionManager) in a side bar of VS Code's
 * default width; "Arbor: Open Conversation Tree in Editor" beside the side view, sharing one state.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, writeLadderSession, type LadderSession, type SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, type WorkbenchSession } from "./harness";
import { resizePanelWidth } from "./harness/layout";
import {
  conversationTreeIn, readableRows, resumeSessionFromList, revealTreeRow, treeRow, waitUntil,
} from "./harness/arbor-views";

function readEntries(file: string): { id: string; type: string; parentId: string | null; customType?: string }[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { id: string; type: string; parentId: string | null })
    .filter((entry) => entry.type !== "session");
}

describe("Room to read, and the tree in an editor tab (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let samples: SampleSessions;
  let ladder: LadderSession;

  const workbench = () => session!.workbench;

  before(async () => {
    scratch = createScratchFolder("e2e-room");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    samples = await createSampleSessions({ agentDir, cwd: workspace });
    ladder = await writeLadderSession({ agentDir, cwd: workspace, rungs: 120 });
    // VS Code's default window and side bar: nothing resized.
    session = await openWorkbench({ folder: workspace, theme: "dark", env: { PI_CODING_AGENT_DIR: agentDir } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("shows every row's kind and the start of its text on a session branched 120 levels deep, in a view as narrow as a default side bar", async () => {
    await workbench().openViewContainer("Arbor");
    await resumeSessionFromList(workbench(), ladder.name);
    // The tree lives in the panel: moved to the right, made as narrow as the side bar, the leaf shown.
    const sideBar = await session!.page.locator(".part.sidebar").boundingBox();
    await workbench().runCommand("View: Move Panel Right");
    await resizePanelWidth(session!.page, Math.round(sideBar?.width ?? 300));
    await workbench().runCommand("Arbor: Show Conversation Tree");
    const tree = await conversationTreeIn(workbench(), "view");
    const leaf = tree.locator('[role="treeitem"]:not([hidden]).leaf');
    await leaf.waitFor({ state: "visible" });
    const width = (await tree.locator(".tree").boundingBox())?.width ?? 0;
    assert.ok(width <= (sideBar?.width ?? 0) + 4, `the tree is ${Math.round(width)} px wide`);
    const rows = await readableRows(tree);
    assert.ok(rows.length >= 5, `${rows.length} rows drawn`);
    assert.ok(Math.max(...rows.map((r) => r.level)) > 100, "the rows in view are over 100 levels deep");
    assert.ok(rows.every((r) => r.depthMarker), "deep rows fold their outer levels into a depth marker");
    for (const r of rows) {
      assert.ok(r.tagShown, `row ${r.id} (level ${r.level}) shows its kind`);
      // 40: the second line hangs under the entry's icon (28 px in from the first), as a tree's wrapped row should.
      assert.ok(r.visible >= Math.min(r.total, 40), `row ${r.id} (level ${r.level}) shows ${r.visible} of ${r.total} characters in a ${Math.round(width)} px view`);
    }
    await workbench().screenshot("deep-ladder-narrow");
    // The keyboard leaves the tree (F1 there stays in its page) for the editor area, and the panel goes back down.
    await session!.page.locator(".part.editor").click();
    await workbench().runCommand("View: Move Panel To Bottom");
    await session!.page.locator(".part.panel.bottom").waitFor({ state: "visible" });
  });

  it("opens the tree in an editor tab with the selected entry's details beside it; a checkout in either shows in both", async () => {
    await workbench().openViewContainer("Arbor");
    await resumeSessionFromList(workbench(), samples.mainName);
    await workbench().runCommand("Arbor: Open Conversation Tree in Editor");
    await session!.page.locator(".part.editor .tab", { hasText: "Conversation Tree" }).waitFor({ state: "visible" });
    const editor = await conversationTreeIn(workbench(), "editor");
    const side = await conversationTreeIn(workbench(), "view");
    await editor.locator(".session-name", { hasText: samples.mainName }).waitFor({ state: "visible" });

    // The same rows in both, and the selection (the leaf's row) with its full text beside the editor's tree.
    const ids = samples.main;
    for (const t of [editor, side]) await revealTreeRow(t, ids.abandonedLeafId);
    await editor.locator(".details.beside .details-title").waitFor({ state: "visible" });

    // A checkout in the editor tab: the side view shows the new leaf, and the file has the marker.
    const before = readEntries(samples.mainFile).length;
    await treeRow(editor, ids.abandonedLeafId).click();
    for (const t of [editor, side]) {
      await t.locator(`[role="treeitem"]:not([hidden])[aria-current="true"][data-vscode-context*='"entryId":"${ids.abandonedLeafId}"']`).waitFor({ state: "visible" });
    }
    await waitUntil("the checkout marker in the file", () => {
      const entries = readEntries(samples.mainFile);
      const last = entries[entries.length - 1];
      // The marker comes last; before it, at most the checkpoint of the files the old leaf was left with.
      const added = entries.slice(before).map((e) => e.customType);
      const shapeOk = added.length === 1 || (added.length === 2 && added[0] === "arbor.checkpoint");
      return shapeOk && last?.customType === "arbor.checkout" && last.parentId === ids.abandonedLeafId;
    });
    const text = readFileSync(samples.mainFile, "utf8");
    const abandoned = JSON.parse(text.split("\n").find((l) => l.includes(`"id":"${ids.abandonedLeafId}"`)) ?? "{}") as { message?: { content?: { type: string; text?: string }[] } };
    const fullText = abandoned.message?.content?.find((c) => c.type === "text")?.text ?? "";
    assert.ok(fullText.length > 0);
    await editor.locator(".details.beside .details-text", { hasText: fullText }).waitFor({ state: "visible" });

    // And back: a checkout in the side view shows in the editor tab.
    await (await revealTreeRow(side, ids.fixedLabelTargetId)).click();
    for (const t of [side, editor]) {
      await revealTreeRow(t, ids.fixedLabelTargetId);
      await t.locator(`[role="treeitem"]:not([hidden])[aria-current="true"][data-vscode-context*='"entryId":"${ids.fixedLabelTargetId}"']`).waitFor({ state: "visible" });
    }
    await workbench().screenshot("conversation-tree-editor-tab");
  });
});
