/**
 * End-to-end: VS Code's default layout at 1280x800, nothing moved or resized, one session opened
 * from the Sessions view: the Conversation Tree shows at least 8 rows whatever is selected (a
 * compaction, whose details would take the view's height), and the chat's transcript at least 12
 * lines of text.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, type SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, type WorkbenchSession } from "./harness";
import { chatView, conversationTreeIn, resumeSessionFromList, revealTreeRow } from "./harness/arbor-views";

/** The rows wholly inside the tree's viewport. */
async function rowsInView(tree: ReturnType<typeof chatView>): Promise<number> {
  return tree.locator(".tree").evaluate((element: unknown) => {
    type Box = { top: number; bottom: number };
    const list = element as { getBoundingClientRect(): Box; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): Box }> };
    const view = list.getBoundingClientRect();
    const rows = Array.from(list.querySelectorAll('[role="treeitem"]:not([hidden])'));
    return rows.filter((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= view.top - 0.5 && b.bottom <= view.bottom + 0.5;
    }).length;
  });
}

/** How many lines of message text the transcript's visible height holds. */
async function transcriptLines(chat: ReturnType<typeof chatView>): Promise<{ lines: number; height: number; lineHeight: number }> {
  return chat.locator('[role="log"]').evaluate((element: unknown) => {
    type El = { clientHeight: number; querySelector(s: string): unknown };
    const log = element as El;
    const sample = (log.querySelector(".item .md p") ?? log) as object;
    const style = (globalThis as unknown as { getComputedStyle(e: object): { lineHeight: string; fontSize: string } }).getComputedStyle(sample);
    const lineHeight = style.lineHeight === "normal" ? parseFloat(style.fontSize) * 1.4 : parseFloat(style.lineHeight);
    return { lines: Math.floor(log.clientHeight / lineHeight), height: log.clientHeight, lineHeight };
  });
}

// Pending: the target of issue 24 is not met yet. Measured here (code-server 4.100.3, this branch):
// 3 tree rows in view with the compaction selected, 45 px (2 lines) of transcript under the
// no-model notice; three views share one side bar of 710 px, and 8 two-line rows (40 px) plus 12
// lines of chat (with its input and pickers) need about 820 px. VS Code 1.100 has no contribution
// point for the secondary side bar (only `activitybar` and `panel`); see the report on the branch.
describe.skip("The default layout at 1280x800 (e2e)", function () {
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
    await workbench.openViewContainer("Arbor");
    await resumeSessionFromList(workbench, samples.mainName);
    const tree = await conversationTreeIn(workbench, "view");
    // Selected without a checkout (Ctrl+click): the compaction, whose summary has the most to show.
    await (await revealTreeRow(tree, samples.main.compactionId)).click({ modifiers: ["Control"] });
    await tree.locator('[role="treeitem"]:not([hidden]).focused.kind-compaction').waitFor({ state: "visible" });
    const chat = chatView(workbench);
    await chat.locator(".item").first().waitFor({ state: "visible" });
    const rows = await rowsInView(tree);
    const text = await transcriptLines(chat);
    await workbench.screenshot("default-layout-1280x800");
    console.log(`[layout] ${rows} tree rows in view; transcript ${text.height} px = ${text.lines} lines of ${text.lineHeight} px`);
    assert.ok(rows >= 8, `${rows} tree rows in view (at least 8)`);
    assert.ok(text.lines >= 12, `${text.lines} lines of transcript in ${text.height} px (at least 12)`);
  });
});
