/**
 * End-to-end: VS Code's default layout at 1280x800, nothing moved or resized. One click on a session
 * in the Sessions view shows its Conversation Tree in the panel (its own view container there) with at
 * least 8 rows, whatever is selected, and leaves the Chat the Arbor side bar's height: at least 12
 * lines of transcript, and the model and thinking pickers under the input at their full width.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FrameLocator } from "playwright-core";
import { createSampleSessions, type SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, type WorkbenchSession } from "./harness";
import { chatView, conversationTreeIn, resumeSessionFromList, revealTreeRow, rowInView, sendInChat, treeRow, waitUntil } from "./harness/arbor-views";
import { shownTreePanelTab } from "./harness/layout";

/** The rows wholly inside the tree's viewport, and how many rows of its height it holds. */
async function rowsInView(tree: FrameLocator): Promise<{ rows: number; room: number }> {
  return tree.locator(".tree").evaluate((element: unknown) => {
    type Box = { top: number; bottom: number };
    const list = element as { clientHeight: number; dataset: { rowHeight?: string }; getBoundingClientRect(): Box; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): Box }> };
    const view = list.getBoundingClientRect();
    const rows = Array.from(list.querySelectorAll('[role="treeitem"]:not([hidden])')).filter((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= view.top - 0.5 && b.bottom <= view.bottom + 0.5;
    }).length;
    return { rows, room: Math.floor(list.clientHeight / Number(list.dataset.rowHeight)) };
  });
}

/** How many lines of message text the transcript's visible height holds. */
async function transcriptLines(chat: FrameLocator): Promise<{ lines: number; height: number; lineHeight: number }> {
  return chat.locator('[role="log"]').evaluate((element: unknown) => {
    type El = { clientHeight: number; querySelector(s: string): unknown };
    const log = element as El;
    const sample = (log.querySelector(".item .md p") ?? log) as object;
    const style = (globalThis as unknown as { getComputedStyle(e: object): { lineHeight: string; fontSize: string } }).getComputedStyle(sample);
    const lineHeight = style.lineHeight === "normal" ? parseFloat(style.fontSize) * 1.4 : parseFloat(style.lineHeight);
    return { lines: Math.floor(log.clientHeight / lineHeight), height: log.clientHeight, lineHeight };
  });
}

/**
 * For the model picker and the thinking picker: the width their text needs and the width they have
 * (a picker whose text needs more is drawn cut, with an ellipsis or clipped).
 */
async function pickerWidths(chat: FrameLocator): Promise<{ name: string; text: string; needs: number; has: number }[]> {
  return chat.locator(".composer-bar").evaluate((element: unknown) => {
    type Styled = { font: string; paddingLeft: string; paddingRight: string };
    type Node = { clientWidth: number; scrollWidth: number; textContent: string | null; querySelector(s: string): Node | null; ownerDocument: { createElement(t: string): { getContext(k: string): { font: string; measureText(t: string): { width: number } } } } };
    const bar = element as Node;
    const style = (n: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): Styled }).getComputedStyle(n);
    const out: { name: string; text: string; needs: number; has: number }[] = [];
    const label = bar.querySelector(".model-picker span:not(.codicon)");
    if (label) out.push({ name: "model", text: label.textContent ?? "", needs: label.scrollWidth, has: label.clientWidth });
    const select = bar.querySelector(".thinking-picker") as (Node & { selectedOptions: ArrayLike<{ textContent: string | null }> }) | null;
    if (select) {
      const text = select.selectedOptions[0]?.textContent ?? "";
      const context = bar.ownerDocument.createElement("canvas").getContext("2d");
      const s = style(select);
      context.font = s.font;
      // The text, the padding and the drop-down arrow (about 20 px in Chromium) must fit inside the box.
      const needs = Math.ceil(context.measureText(text).width + parseFloat(s.paddingLeft) + parseFloat(s.paddingRight) + 20);
      out.push({ name: "thinking", text, needs, has: select.clientWidth });
    }
    return out;
  });
}

describe("The default layout at 1280x800 (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let samples: SampleSessions;

  before(async () => {
    scratch = createScratchFolder("e2e-layout");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    samples = await createSampleSessions({ agentDir, cwd: workspace });
    session = await openWorkbench({ folder: workspace, theme: "dark", viewport: { width: 1280, height: 800 }, env: { PI_CODING_AGENT_DIR: agentDir } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("shows at least 8 tree rows with a compaction selected and at least 12 lines of transcript, one click after the start", async () => {
    const workbench = session!.workbench;
    const page = session!.page;
    await workbench.openViewContainer("Arbor");
    await resumeSessionFromList(workbench, samples.mainName);
    // The tree is in the panel, shown by that one click; Sessions and Chat share the side bar.
    await shownTreePanelTab(page).waitFor({ state: "visible" });
    await workbench.viewPane("Sessions").waitFor({ state: "visible" });
    await workbench.viewPane("Chat").waitFor({ state: "visible" });
    const tree = await conversationTreeIn(workbench, "view");
    // Selected without a checkout (Ctrl+click): the compaction, whose summary has the most to show.
    await (await revealTreeRow(tree, samples.main.compactionId)).click({ modifiers: ["Control"] });
    await tree.locator('[role="treeitem"]:not([hidden]).focused.kind-compaction').waitFor({ state: "visible" });
    const chat = chatView(workbench);
    await chat.locator(".item").first().waitFor({ state: "visible" });
    const { rows, room } = await rowsInView(tree);
    const text = await transcriptLines(chat);
    const pickers = await pickerWidths(chat);
    await workbench.screenshot("default-layout-1280x800");
    console.log(`[layout] ${rows} tree rows in view (room for ${room}); transcript ${text.height} px = ${text.lines} lines of ${text.lineHeight} px; pickers ${JSON.stringify(pickers)}`);
    assert.ok(rows >= 8, `${rows} tree rows in view (at least 8)`);
    assert.ok(text.lines >= 12, `${text.lines} lines of transcript in ${text.height} px (at least 12)`);
    assert.equal(pickers.length, 2, "the model and the thinking pickers are under the input");
    for (const p of pickers) assert.ok(p.needs <= p.has + 0.5, `the ${p.name} picker shows "${p.text}" in ${p.has} px, which needs ${p.needs} px`);
  });

  it("Arbor: Show Conversation Tree brings the closed panel back with the leaf selected, and /tree selects the leaf in a tree already shown", async () => {
    const workbench = session!.workbench;
    const page = session!.page;
    const panelTab = shownTreePanelTab(page);
    await workbench.runCommand("View: Hide Panel");
    await panelTab.waitFor({ state: "hidden" });
    await workbench.runCommand("Arbor: Show Conversation Tree");
    await panelTab.waitFor({ state: "visible" });
    const tree = await conversationTreeIn(workbench, "view");
    // The leaf (the session's name, hidden by the default filter) is shown by its nearest shown ancestor.
    const leafSelected = tree.locator('[role="treeitem"]:not([hidden]):is(.leaf, .leaf-inside)[aria-selected="true"]');
    await leafSelected.waitFor({ state: "visible" });
    assert.ok(await rowInView(leafSelected), "the leaf's row is in view");

    // Another row selected and the leaf scrolled away: /tree in the chat comes back to the leaf.
    await (await revealTreeRow(tree, samples.main.firstUserId)).click({ modifiers: ["Control"] });
    await treeRow(tree, samples.main.firstUserId).and(tree.locator('[aria-selected="true"]')).waitFor({ state: "visible" });
    await tree.locator(".tree").evaluate((element: unknown) => {
      (element as { scrollTop: number }).scrollTop = 0;
    });
    await sendInChat(workbench, "/tree");
    // The leaf stayed selected beside the Ctrl+clicked row, so its row exists before /tree scrolls to it: wait for the scroll.
    await waitUntil("after /tree the leaf's row in view", async () => (await leafSelected.count()) > 0 && (await rowInView(leafSelected)));
  });
});
