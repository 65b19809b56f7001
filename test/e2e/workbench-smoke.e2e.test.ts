/**
 * End-to-end smoke test: the packaged extension (arbor.vsix) installed into a real VS Code (code-server),
 * driven in chromium like a user would.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, WorkbenchSession } from "./harness";

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
      await session.workbench.screenshot(`failed-${this.currentTest.fullTitle()}`).catch(() => undefined);
    }
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("shows the Arbor container in the activity bar and opens its Sessions view", async () => {
    const { workbench } = session!;
    const sideBar = await workbench.openViewContainer("Arbor");
    await workbench.viewPane("Sessions").waitFor({ state: "attached" });
    assert.match((await sideBar.locator(".composite.title h2").textContent()) ?? "", /arbor/i);
    const shot = await workbench.screenshot("arbor-container");
    assert.ok(existsSync(shot));
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

  it("reaches into a webview two frames deep (the built-in Markdown preview)", async () => {
    const { workbench } = session!;
    await workbench.openFile("README.md");
    await workbench.runCommand("Markdown: Open Preview to the Side");
    const heading = workbench.webview({ extensionId: "vscode.markdown-language-features" }).locator("h1");
    await heading.waitFor({ state: "visible" });
    assert.equal((await heading.textContent())?.trim(), "e2e workspace");
  });

  it("follows the color theme, light and dark", async () => {
    const { workbench, setTheme } = session!;
    await setTheme("dark");
    assert.equal(await workbench.page.locator(".monaco-workbench.vs").count(), 0);
    await workbench.screenshot("arbor-dark");
    await setTheme("light");
    assert.equal(await workbench.page.locator(".monaco-workbench.vs-dark").count(), 0);
    await workbench.screenshot("arbor-light");
  });
});
