/**
 * End-to-end: the Get Started walkthrough ticks its steps when the user does them where a new user
 * does them, in the Sessions view and the Conversation Tree (a click in the tree runs its command
 * through the extension host, which VS Code's `onCommand:` completion events never see).
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, type SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, type WorkbenchSession } from "./harness";
import { conversationTreeIn, resumeSessionFromList, revealTreeRow } from "./harness/arbor-views";

describe("The Get Started walkthrough (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let samples: SampleSessions;

  before(async () => {
    scratch = createScratchFolder("e2e-walkthrough");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    samples = await createSampleSessions({ agentDir, cwd: workspace });
    session = await openWorkbench({ folder: workspace, theme: "dark", env: { PI_CODING_AGENT_DIR: agentDir } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("ticks \"Check out an earlier entry\" after one click on a tree row", async () => {
    const workbench = session!.workbench;
    const page = session!.page;
    await workbench.openViewContainer("Arbor");
    await workbench.runCommand("Welcome: Open Walkthrough...");
    await workbench.pickQuickInput("Get Started with Arbor", "Get Started with Arbor");
    const step = (title: string) => page.locator(".getting-started-step", { hasText: title }).first();
    await step("Check out an earlier entry").waitFor({ state: "visible" });
    const ticked = (title: string) => step(title).locator(".codicon-getting-started-step-checked");
    assert.equal(await ticked("Check out an earlier entry").count(), 0, "not ticked before the checkout");

    await resumeSessionFromList(workbench, samples.mainName);
    const tree = await conversationTreeIn(workbench, "view");
    await (await revealTreeRow(tree, samples.main.abandonedLeafId)).click();
    await tree.locator(`[role="treeitem"]:not([hidden])[aria-current="true"][data-vscode-context*='"entryId":"${samples.main.abandonedLeafId}"']`).waitFor({ state: "visible" });
    await ticked("Check out an earlier entry").waitFor({ state: "attached" });
    await workbench.screenshot("walkthrough-checked-out");
  });
});
