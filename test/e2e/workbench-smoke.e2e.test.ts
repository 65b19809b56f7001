/**
 * End-to-end smoke test: the packaged extension (arbor.vsix) installed into a real VS Code (code-server),
 * driven in chromium like a user would: its container, its Sessions view, and its views under each theme.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, WorkbenchSession } from "./harness";
import { chatView, conversationTree } from "./harness/arbor-views";
import { shownTreePanelTab } from "./harness/layout";

describe("Arbor in the VS Code workbench (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;

  let samples: SampleSessions;

  before(async () => {
    scratch = createScratchFolder("e2e-files");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    samples = await createSampleSessions({ agentDir, cwd: workspace });
    session = await openWorkbench({ folder: workspace, theme: "light", env: { PI_CODING_AGENT_DIR: agentDir } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) {
      await session.reportFailure(this.currentTest.fullTitle());
    }
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("shows the Arbor container in the activity bar and opens it with Sessions and Chat, and the Conversation Tree in the panel", async () => {
    const { workbench } = session!;
    const sideBar = await workbench.openViewContainer("Arbor");
    assert.match((await sideBar.locator(".composite.title h2").textContent()) ?? "", /arbor/i);
    // Each view has its pane, and the tree and the chat have drawn their pages in it (the screenshot
    // below is for people; what is asserted is read from the page).
    for (const name of ["Sessions", "Chat"]) {
      const pane = workbench.viewPane(name);
      await pane.waitFor({ state: "visible" });
      const box = await pane.boundingBox();
      assert.ok(box && box.width > 100 && box.height > 20, `the ${name} pane has room: ${JSON.stringify(box)}`);
    }
    await workbench.runCommand("Arbor: Show Conversation Tree");
    await shownTreePanelTab(session!.page).waitFor({ state: "visible" });
    await conversationTree(workbench).locator(".empty", { hasText: "No session is open" }).waitFor({ state: "visible" });
    await chatView(workbench).locator("textarea.input").waitFor({ state: "visible" });
    await workbench.screenshot("arbor-container");
  });

  it("lists the workspace's Pi sessions, so the packaged extension activated and read them", async () => {
    const { workbench } = session!;
    await workbench.openViewContainer("Arbor");
    const sessions = workbench.viewPane("Sessions");
    for (const name of [samples.mainName, samples.forkName]) {
      await sessions.locator(".monaco-list-row", { hasText: name }).first().waitFor({ state: "visible" });
    }
    await workbench.screenshot("arbor-sessions");
  });

  it("draws Arbor's views in the dark and the light theme (its webview two frames deep takes the theme's colours)", async () => {
    const { workbench, setTheme } = session!;
    await workbench.openViewContainer("Arbor");
    const tree = conversationTree(workbench);
    const colours: Record<string, string> = {};
    for (const theme of ["dark", "light"] as const) {
      await setTheme(theme);
      await tree.locator(`body.vscode-${theme}`).waitFor({ state: "attached" });
      // With no session open the tree says so, in the theme's foreground colour.
      const empty = tree.locator(".empty", { hasText: "No session is open" });
      await empty.waitFor({ state: "visible" });
      colours[theme] = await empty.evaluate((element: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(element).color);
      await workbench.viewPane("Sessions").locator(".monaco-list-row", { hasText: samples.mainName }).first().waitFor({ state: "visible" });
      assert.equal(await workbench.page.locator(`.monaco-workbench.${theme === "dark" ? "vs" : "vs-dark"}`).count(), 0);
      await workbench.screenshot(`arbor-${theme}`);
    }
    assert.notEqual(colours.dark, colours.light, `the tree's text follows the theme (${JSON.stringify(colours)})`);
  });
});
