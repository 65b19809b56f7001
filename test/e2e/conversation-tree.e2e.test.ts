/**
 * End-to-end tests of the Arbor container in a real VS Code (code-server): the packaged arbor.vsix,
 * installed as a user would, on genuine Pi sample sessions, driven in chromium. One workbench is shared
 * by the tests to keep the tier fast; each test brings the session it needs to the screen itself, so
 * any one of them also runs alone (`npm run test:e2e -- --grep ...`).
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions, SampleSessions } from "../support/sample-sessions";
import { createScratchFolder, openWorkbench, repoRoot, WorkbenchSession } from "./harness";
import {
  answerInputBox, chatView, conversationTree, pickWebviewContextMenuItem, resumeSessionFromList, resumeSessionInline,
  revealLeafRow, revealTreeRow, rowInView, selectTreeRowWithKeys, sessionRow, treeRow, treeStatus, waitForCurrentSessionRow, waitUntil,
} from "./harness/arbor-views";
import { showConversationTreeLarge, shownTreePanelTab } from "./harness/layout";
// Arbor's own session manager, to hold a session's writer lock from this (another) process.
import { SessionManager as ArborSessionManager } from "../../src/core/session/session-manager";

// A real import() even from CommonJS output (module node16), since the reference package is ESM only.
const loadReference = () => import("@mariozechner/pi-coding-agent");
type Reference = Awaited<ReturnType<typeof loadReference>>;
type ReferenceManager = ReturnType<Reference["SessionManager"]["open"]>;

/** Markup that would run or load something if the tree ever parsed text as HTML. */
const hostileMarkup = `<script>alert(1)</script> and <img src=x onerror="window.__pwned=1">`;

interface HostileSession {
  readonly file: string;
  readonly name: string;
  readonly userId: string;
  readonly assistantId: string;
}

/** A genuine Pi session (written by the reference) whose texts, label and name carry markup. */
async function writeHostileSession(sessionDir: string, cwd: string): Promise<HostileSession> {
  const { SessionManager } = await loadReference();
  const session = SessionManager.create(cwd, sessionDir);
  const userId = session.appendMessage({ role: "user", content: `Show this literally: ${hostileMarkup}`, timestamp: Date.now() });
  const assistantId = session.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: `${hostileMarkup} stays text.` }],
    api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop", timestamp: Date.now(),
  });
  session.appendLabelChange(assistantId, `<img src=x onerror="window.__pwned=1">`);
  const name = `Hostile <b>markup</b>`;
  session.appendSessionInfo(name);
  const file = session.getSessionFile();
  if (!file) throw new Error("The reference SessionManager wrote no file for the hostile session.");
  return { file, name, userId, assistantId };
}

/** The file's entries (the header left out), parsed line by line. */
function readEntries(file: string): { id: string; type: string; parentId: string | null; [key: string]: unknown }[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { id: string; type: string; parentId: string | null })
    .filter((entry) => entry.type !== "session");
}

/** What Pi makes of a file: the reference's SessionManager on it. */
async function openWithReference(file: string): Promise<ReferenceManager> {
  return (await loadReference()).SessionManager.open(file);
}

/** Runs `node` in a separate process that appends a user message with the reference; returns its id. */
function appendFromAnotherProcess(file: string, text: string): Promise<string> {
  const script = [
    `const { SessionManager } = await import("@mariozechner/pi-coding-agent");`,
    `const [file, text] = process.argv.slice(1);`,
    `const session = SessionManager.open(file);`,
    `process.stdout.write(session.appendMessage({ role: "user", content: text, timestamp: Date.now() }));`,
  ].join("\n");
  return new Promise((resolve, reject) => {
    // cwd: the repository, so that the bare specifier resolves to its node_modules.
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, file, text], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 && /^[0-9a-f]{8}$/.test(out) ? resolve(out) : reject(new Error(`The appending process exited ${code}: ${out}\n${err}`))));
  });
}

/**
 * Another process that appends a user message to `file` every `everyMs`, each a child of the last
 * line, as Pi's writer lays them out (plain Node: loading the reference takes seconds on a busy machine).
 */
function appendContinuously(file: string, everyMs: number): { appended(): number; stop(): Promise<void> } {
  const script = [
    `const { appendFileSync, readFileSync } = require("node:fs");`,
    `const { randomBytes } = require("node:crypto");`,
    `const [file, every] = process.argv.slice(1);`,
    `let parentId = JSON.parse(readFileSync(file, "utf8").trim().split("\\n").pop()).id;`,
    `let n = 0;`,
    `setInterval(() => {`,
    `  const id = randomBytes(4).toString("hex");`,
    `  const now = Date.now();`,
    `  appendFileSync(file, JSON.stringify({ type: "message", id, parentId, timestamp: new Date(now).toISOString(), message: { role: "user", content: "tick " + ++n, timestamp: now } }) + "\\n");`,
    `  parentId = id;`,
    `  process.stdout.write(n + "\\n");`,
    `}, Number(every));`,
  ].join("\n");
  const child = spawn(process.execPath, ["-e", script, file, String(everyMs)], { stdio: ["ignore", "pipe", "inherit"] });
  let count = 0;
  child.stdout.on("data", (chunk: Buffer) => (count += chunk.toString().split("\n").filter(Boolean).length));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    appended: () => count,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

describe("Arbor's views in a real VS Code (e2e)", function () {
  this.timeout(120_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let samples: SampleSessions;
  let workspaceFolder: string;
  let hostile: HostileSession;
  /** Every alert/confirm/prompt the page opened: none may ever open. */
  const dialogs: string[] = [];

  const workbench = () => session!.workbench;
  const tree = () => conversationTree(workbench());

  /** Brings a session to the tree by clicking its row in the Sessions view, unless it is already shown. */
  async function showSession(name: string): Promise<void> {
    await workbench().openViewContainer("Arbor");
    const shown = (await tree().locator(".session-name").textContent({ timeout: 2_000 }).catch(() => null)) === name;
    if (shown) return waitForCurrentSessionRow(workbench(), name);
    await resumeSessionFromList(workbench(), name);
  }

  before(async () => {
    scratch = createScratchFolder("e2e-tree");
    const workspace = join(scratch.path, "workspace");
    workspaceFolder = workspace;
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    samples = await createSampleSessions({ agentDir, cwd: workspace });
    hostile = await writeHostileSession(samples.sessionDir, workspace);
    session = await openWorkbench({ folder: workspace, theme: "light", env: { PI_CODING_AGENT_DIR: agentDir }, viewport: { width: 1400, height: 1000 } });
    session.page.on("dialog", (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) {
      await session.reportFailure(this.currentTest.fullTitle());
      // A menu or input box left open would block the next test's clicks.
      for (let i = 0; i < 2; i++) await session.page.keyboard.press("Escape").catch(() => undefined);
    }
  });

  after(async () => {
    await session?.close();
    scratch?.dispose();
  });

  it("opens the Arbor container with its Sessions view, and the Conversation Tree in the panel", async () => {
    const sideBar = await workbench().openViewContainer("Arbor");
    await workbench().viewPane("Sessions").waitFor({ state: "attached" });
    await workbench().runCommand("Arbor: Show Conversation Tree");
    await shownTreePanelTab(session!.page).waitFor({ state: "visible" });
    // The webview loaded, said ready, and the host answered: with no session open it says so.
    await tree().locator(".empty", { hasText: "No session is open" }).waitFor({ state: "visible" });
    assert.match((await sideBar.locator(".composite.title h2").textContent()) ?? "", /arbor/i);
  });

  it("resumes the main sample session from the Sessions view and draws its tree: labels, the leaf, the compaction", async () => {
    await showSession(samples.mainName);
    const ids = samples.main;
    const entries = readEntries(samples.mainFile);
    const t = tree();

    // Every entry the default filter shows, on both branches, in file order.
    for (const id of [ids.firstUserId, ids.branchPointId, ids.abandonedLeafId, ids.branchSummaryId, ids.firstKeptEntryId, ids.compactionId, ids.fixedLabelTargetId]) {
      await revealTreeRow(t, id);
    }
    const status = await treeStatus(t);
    assert.equal(status.total, entries.length, `the tree knows every entry of the file (${status.text})`);
    assert.ok(status.shown < status.total, `the default filter hides labels, model changes and the name (${status.text})`);

    // Label badges on their targets.
    for (const [id, label] of [[ids.diagnosisLabelTargetId, "diagnosis"], [ids.fixedLabelTargetId, "fixed"]] as const) {
      const row = await revealTreeRow(t, id);
      assert.equal((await row.locator(".badge.label .badge-text").textContent())?.trim(), label);
      assert.match((await row.getAttribute("aria-label")) ?? "", new RegExp(`label ${label}`));
    }

    // The compaction: its own marker with tokensBefore from the file.
    const compaction = entries.find((e) => e.id === ids.compactionId) as { tokensBefore: number } | undefined;
    assert.ok(compaction && compaction.tokensBefore > 1000);
    const compactionRow = await revealTreeRow(t, ids.compactionId);
    assert.match((await compactionRow.getAttribute("class")) ?? "", /\bkind-compaction\b/);
    assert.equal((await compactionRow.locator(".tag").textContent())?.trim(), "compaction");
    assert.equal((await compactionRow.locator(".badge.detail").textContent())?.trim(), `${Math.round(compaction.tokensBefore / 1000)}k tokens`);

    // The leaf is the session name entry, which the default filter hides: bookkeeping only, so the
    // entry it hangs under stands at its place and is drawn as the leaf, and nothing says "hidden".
    const leaf = entries.find((e) => e.id === ids.leafId);
    assert.ok(leaf?.parentId);
    const leafHolder = entries.find((e) => e.id === leaf.parentId);
    assert.equal(leafHolder?.type, "custom_message", "the sample's leaf hangs under the reminder");
    const leafRow = await revealTreeRow(t, leafHolder.id);
    assert.match((await leafRow.getAttribute("class")) ?? "", /\bleaf\b/);
    assert.match((await leafRow.locator(".marker").getAttribute("class")) ?? "", /codicon-circle-filled/);
    assert.doesNotMatch(status.text, /hidden by the filter/);
    assert.equal(await t.locator('[role="treeitem"]:not([hidden])[aria-current="true"]').count(), 1, "the reminder's row is the leaf's");
    assert.doesNotMatch((await (await revealTreeRow(t, ids.abandonedLeafId)).getAttribute("class")) ?? "", /\bon-path\b/);
    assert.match((await (await revealTreeRow(t, ids.firstKeptEntryId)).getAttribute("class")) ?? "", /\bon-path\b/);
  });

  it("opens VS Code's diff editor from a row's Compare with Current Leaf: both titles in the tab, each side its own branch", async () => {
    await showSession(samples.mainName);
    const { page } = session!;
    const ids = samples.main;
    const leafId = (await openWithReference(samples.mainFile)).getLeafId();
    assert.ok(leafId && leafId !== ids.abandonedLeafId, "the leaf is on the main branch");
    const abandoned = readEntries(samples.mainFile).find((e) => e.id === ids.abandonedLeafId) as { message: { role: string; content: { type: string; text?: string }[] } } | undefined;
    const abandonedText = abandoned?.message.content.map((c) => c.text ?? "").join("").replace(/\s+/g, " ").trim() ?? "";
    assert.ok(abandonedText.length > 20);

    const row = await revealTreeRow(tree(), ids.abandonedLeafId);
    await pickWebviewContextMenuItem(page, row, "Compare with Current Leaf...");

    // The tab: one title naming both entries, the abandoned reply first.
    const tab = page.locator(".tabs-container .tab.active");
    await tab.filter({ hasText: "↔" }).waitFor({ state: "visible" });
    const title = ((await tab.locator(".label-name").textContent()) ?? "").trim();
    const [leftTitle, rightTitle] = title.split(" ↔ ");
    assert.ok(leftTitle?.startsWith(`assistant: ${abandonedText.slice(0, 20)}`), `the left title names the abandoned reply: ${title}`);
    assert.ok(rightTitle && rightTitle.length > 0, `the right title names the leaf: ${title}`);

    // The diff editor, side by side: each side is the Markdown of its own branch.
    const diff = page.locator(".editor-instance .monaco-diff-editor");
    await diff.waitFor({ state: "visible" });
    const sideText = async (side: "original" | "modified") =>
      ((await diff.locator(`.editor.${side} .view-lines`).textContent()) ?? "").replace(/\u00a0/g, " ");
    const left = await waitUntil("the left side's text", async () => ((await sideText("original")).includes(`Entry: ${ids.abandonedLeafId}`) ? sideText("original") : undefined));
    const right = await waitUntil("the right side's text", async () => ((await sideText("modified")).includes(`Entry: ${leafId}`) ? sideText("modified") : undefined));
    assert.ok(left.includes(`Branch to assistant: ${abandonedText.slice(0, 20)}`), left.slice(0, 300));
    assert.ok(!left.includes(`Entry: ${leafId}`) && !right.includes(`Entry: ${ids.abandonedLeafId}`), "each side shows only its own branch");
    assert.match(left, /From the common ancestor [0-9a-f]{8}/);
    assert.match(right, /From the common ancestor [0-9a-f]{8}/);
    await workbench().runCommand("View: Close All Editors");
    await diff.waitFor({ state: "detached" });
  });

  it("keeps the filter, the search and the selected row when the view is hidden and shown again", async () => {
    await showSession(samples.mainName);
    const { page } = session!;
    const ids = samples.main;
    const first = readEntries(samples.mainFile).find((e) => e.id === ids.firstUserId) as { message: { content: string } } | undefined;
    const word = (first?.message.content ?? "").split(/\W+/).find((w) => w.length >= 5);
    assert.ok(word, "the first user message has a word to search for");
    const t = tree();

    // A filter other than the default, from the toolbar's dropdown.
    await t.locator('vscode-dropdown[aria-label="Filter"]').click();
    await t.locator("vscode-option", { hasText: /^\s*User messages\s*$/ }).click();
    await t.locator(".status", { hasText: /· User messages/ }).waitFor({ state: "visible" });
    // A search, typed.
    await t.locator('.toolbar vscode-text-field').click();
    await page.keyboard.type(word);
    await waitUntil("the search to narrow the rows", async () => (await treeStatus(t)).shown < (await treeStatus(t)).total && (await t.locator(".row.placeholder:not([hidden])").count()) === 0 && (await treeRow(t, ids.firstUserId).count()) === 1);
    await selectTreeRowWithKeys(page, t, ids.firstUserId);
    const statusBefore = (await treeStatus(t)).text;

    // Hidden: the panel closed (the webview and its page go away), then opened again.
    await workbench().runCommand("View: Toggle Panel Visibility");
    await t.locator(".tree").waitFor({ state: "detached" });
    await workbench().runCommand("View: Toggle Panel Visibility");
    const shown = tree();
    await shown.locator(".status", { hasText: statusBefore }).waitFor({ state: "visible" });
    assert.equal(await shown.locator('.toolbar vscode-text-field').evaluate((f: unknown) => (f as { value: string }).value), word);
    assert.equal(await shown.locator('vscode-dropdown[aria-label="Filter"]').evaluate((f: unknown) => (f as { value: string }).value), "user-only");
    const selected = shown.locator(`[role="treeitem"]:not([hidden])[aria-selected="true"][data-vscode-context*='"entryId":"${ids.firstUserId}"']`);
    await selected.waitFor({ state: "visible" });
    assert.ok(await rowInView(selected), "the selected row is on screen without scrolling");

    // Back to the defaults for the other tests.
    await shown.locator('.toolbar vscode-text-field input').fill("");
    await shown.locator('vscode-dropdown[aria-label="Filter"]').click();
    await shown.locator("vscode-option", { hasText: /^\s*Default\s*$/ }).click();
    await waitUntil("the default view", async () => (await treeStatus(shown)).text.includes("· Default") && (await treeStatus(shown)).total > (await treeStatus(shown)).shown && (await shown.locator('.toolbar vscode-text-field').evaluate((f: unknown) => (f as { value: string }).value)) === "");
  });

  it("saves screenshots of the Conversation Tree in the light and the dark theme", async () => {
    await showSession(samples.mainName);
    const { page, setTheme } = session!;
    const pane = await showConversationTreeLarge(page, workbench(), { panelHeight: 420 });

    // Selecting the compaction (keys only select; a click would check it out) opens its details,
    // fetched from the extension host: the summary, tokensBefore and the span it replaced.
    await selectTreeRowWithKeys(page, tree(), samples.main.compactionId);
    const compaction = readEntries(samples.mainFile).find((e) => e.id === samples.main.compactionId) as { summary: string; tokensBefore: number } | undefined;
    assert.ok(compaction);
    // Beside the rows in the panel; in a view narrower than 640 px they show under the rows only when asked for.
    const toggle = tree().locator("button.details-toggle");
    if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
    const details = tree().locator(".details");
    await details.locator(".details-text", { hasText: compaction.summary }).waitFor({ state: "visible" });
    assert.match((await details.locator(".details-facts").textContent()) ?? "", new RegExp(`^${Math.round(compaction.tokensBefore / 1000)}k tokens before · replaced \\d+ entries$`));
    await treeRow(tree(), samples.main.firstKeptEntryId).locator(".badge.kept").waitFor({ state: "visible" });

    const shots: Record<string, string> = {};
    for (const theme of ["light", "dark"] as const) {
      await setTheme(theme);
      // The webview takes the theme's colours from the workbench: wait until its body shows them.
      await tree().locator(`body.vscode-${theme}`).waitFor({ state: "attached" });
      shots[theme] = await workbench().screenshot(`conversation-tree-${theme}-page`);
      const path = join(repoRoot, "test-results", `conversation-tree-${theme}.png`);
      await pane.screenshot({ path });
      shots[`${theme}-pane`] = path;
    }
    // The README's copies are refreshed on request only, so that a test run leaves the tree clean.
    if (process.env.ARBOR_UPDATE_DOCS_SCREENSHOTS === "1") {
      mkdirSync(join(repoRoot, "docs/screenshots"), { recursive: true });
      for (const theme of ["light", "dark"]) copyFileSync(shots[`${theme}-pane`]!, join(repoRoot, "docs/screenshots", `conversation-tree-${theme}.png`));
    }
    await setTheme("light");
    for (const path of Object.values(shots)) assert.ok(readFileSync(path).length > 10_000, `${path} holds a real image`);
    // The same pane drawn in two themes: the pictures differ (a pane that did not follow the theme, or
    // drew nothing, would not).
    assert.ok(!readFileSync(shots["light-pane"]!).equals(readFileSync(shots["dark-pane"]!)), "the light and the dark pane look different");
  });

  it("checks out an entry on the abandoned branch with a click; the file and the reference package agree on the new leaf", async () => {
    await showSession(samples.mainName);
    const ids = samples.main;
    const before = await openWithReference(samples.mainFile);
    const contextBefore = before.buildSessionContext();
    const linesBefore = readEntries(samples.mainFile).length;

    const target = await revealTreeRow(tree(), ids.abandonedLeafId);
    await target.click();

    // On screen: the clicked assistant reply is now the leaf itself.
    await tree().locator(`[role="treeitem"]:not([hidden])[aria-current="true"][data-vscode-context*='"entryId":"${ids.abandonedLeafId}"']`).waitFor({ state: "visible" });
    const row = treeRow(tree(), ids.abandonedLeafId);
    assert.match((await row.getAttribute("class")) ?? "", /\bleaf\b/);
    assert.match((await row.getAttribute("class")) ?? "", /\bon-path\b/);
    assert.match((await row.locator(".marker").getAttribute("class")) ?? "", /codicon-circle-filled/);
    assert.equal(await tree().locator('[role="treeitem"]:not([hidden]).leaf-inside').count(), 0, "the old leaf mark is gone");
    const leftBehind = await revealTreeRow(tree(), ids.firstKeptEntryId);
    assert.doesNotMatch((await leftBehind.getAttribute("class")) ?? "", /\bon-path\b/, "the branch left behind is off the active path");

    // In the file: one checkout marker under the clicked entry, appended last, after the checkpoint
    // of the files the old leaf was left with (the workspace's first snapshot, so there is one).
    const marker = await waitUntil("the checkout marker in the session file", () => {
      const entries = readEntries(samples.mainFile);
      const last = entries[entries.length - 1];
      return entries.length > linesBefore && last?.customType === "arbor.checkout" ? last : undefined;
    });
    assert.equal(marker.parentId, ids.abandonedLeafId);
    const added = readEntries(samples.mainFile).slice(linesBefore);
    assert.deepEqual(added.map((e) => e.customType), ["arbor.checkpoint", "arbor.checkout"], "a checkout appends the checkpoint of the branch it leaves and its marker");
    assert.equal(added[0].parentId, before.getLeafId(), "the checkpoint hangs under the leaf that was left");

    // In Pi: the reference resumes at the marker, whose context is exactly the clicked entry's.
    const after = await openWithReference(samples.mainFile);
    assert.equal(after.getLeafId(), marker.id);
    const atEntry = await openWithReference(samples.mainFile);
    atEntry.branch(ids.abandonedLeafId);
    const contextAfter = after.buildSessionContext();
    assert.deepEqual(contextAfter, atEntry.buildSessionContext());
    assert.notDeepEqual(contextAfter.messages, contextBefore.messages);
    const last = contextAfter.messages[contextAfter.messages.length - 1] as { role: string; content: { type: string; text?: string }[] };
    assert.equal(last.role, "assistant");
    assert.match(last.content.map((block) => block.text ?? "").join(""), /chunk boundary can fall between/);
  });

  it("labels an entry from the row's context menu and shows the badge", async () => {
    await showSession(samples.mainName);
    const { page } = session!;
    const id = samples.main.firstUserId;
    const label = `e2e-${Date.now().toString(36)}`;
    const row = await revealTreeRow(tree(), id);
    assert.equal(await row.locator(".badge.label").count(), 0, "the entry has no label yet");

    await pickWebviewContextMenuItem(page, row, "Label...");
    await answerInputBox(page, label);

    await treeRow(tree(), id).locator(".badge.label .badge-text", { hasText: label }).waitFor({ state: "visible" });
    assert.match((await treeRow(tree(), id).getAttribute("aria-label")) ?? "", new RegExp(`label ${label}`));
    const reference = await waitUntil("the label in the session file", async () => {
      const manager = await openWithReference(samples.mainFile);
      return manager.getLabel(id) === label ? manager : undefined;
    });
    assert.equal(reference.getLabel(samples.main.diagnosisLabelTargetId), "diagnosis", "other labels are untouched");

    // The row's menu now offers Clear Label (its `hasLabel` context follows the badge).
    await treeRow(tree(), id).click({ button: "right" });
    await page.locator(".context-view .monaco-menu").getByRole("menuitem", { name: "Clear Label", exact: true }).waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
  });

  it("acts on the selected row with the keys L (label), C (copy its text) and F (fork from it)", async () => {
    await showSession(samples.mainName);
    const { page } = session!;
    const id = samples.main.firstKeptEntryId;
    const entry = readEntries(samples.mainFile).find((e) => e.id === id) as { message: { role: string; content: unknown } } | undefined;
    assert.ok(entry && entry.message.role === "user");
    const content = entry.message.content;
    const text = typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("\n\n");
    const list = tree().locator(".tree");

    // L: the label box, as from the row's menu; the badge and the file follow.
    await selectTreeRowWithKeys(page, tree(), id);
    const label = `keyed-${Date.now().toString(36)}`;
    await page.keyboard.press("l");
    await answerInputBox(page, label);
    await treeRow(tree(), id).locator(".badge.label .badge-text", { hasText: label }).waitFor({ state: "visible" });
    await waitUntil("the label in the session file", async () => (await openWithReference(samples.mainFile)).getLabel(id) === label);

    // C: the entry's text on the clipboard, read back from the page.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(session!.url).origin });
    const clipboard = () => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
    await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { writeText(t: string): Promise<void> } } }).navigator.clipboard.writeText("copied before"));
    await list.focus();
    await tree().locator(`[role="treeitem"]:not([hidden])[aria-selected="true"][data-vscode-context*='"entryId":"${id}"']`).waitFor({ state: "visible" });
    await page.keyboard.press("c");
    await waitUntil("the entry's text on the clipboard", async () => (await clipboard()) === text);

    // F: a new session forked before the user message, which the tree shows; its text goes to the chat's input.
    const before = new Set(readdirSync(samples.sessionDir));
    await list.focus();
    await page.keyboard.press("f");
    const fork = await waitUntil("the fork's session file", () =>
      readdirSync(samples.sessionDir).filter((f) => f.endsWith(".jsonl") && !before.has(f)).map((f) => join(samples.sessionDir, f))
        .find((f) => (JSON.parse(readFileSync(f, "utf8").split("\n")[0]!) as { parentSession?: string }).parentSession === samples.mainFile));
    const forkEntries = readEntries(fork);
    assert.ok(!forkEntries.some((e) => e.id === id), "forked before the user message: it is not in the fork");
    const parentId = readEntries(samples.mainFile).find((e) => e.id === id)?.parentId;
    assert.ok(parentId && forkEntries.some((e) => e.id === parentId), "the fork holds the path up to the message's parent");
    await waitUntil("the fork in the tree", async () => (await treeStatus(tree())).total === forkEntries.length);
    await chatView(workbench()).locator("textarea.input").waitFor({ state: "visible" });
    await waitUntil("the message's text in the chat's input", async () => (await chatView(workbench()).locator("textarea.input").inputValue()) === text);
    // The Sessions view lists the fork, marked open, before the next test clicks a row there (a row
    // inserted under the click moved the list by one in a clean-clone run).
    const firstUser = forkEntries.find((e) => e.type === "message" && (e as { message?: { role?: string } }).message?.role === "user") as { message: { content: unknown } } | undefined;
    const firstContent = firstUser?.message.content;
    const firstText = typeof firstContent === "string" ? firstContent : ((firstContent ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? "").join(" ");
    await waitForCurrentSessionRow(workbench(), firstText.slice(0, 30));
  });

  it("shows entries that another process appends to the open session, without any user action, following the leaf", async () => {
    await showSession(samples.mainName);
    // The leaf's row on screen, as after reading the latest reply: the tree follows the new leaf.
    await revealLeafRow(tree());
    const totalBefore = (await treeStatus(tree())).total;
    const text = `Appended from a terminal ${Date.now().toString(36)}`;
    const id = await appendFromAnotherProcess(samples.mainFile, text);

    // No click, no refresh, no scrolling by the test: only waiting.
    await tree().locator(".status", { hasText: new RegExp(`^\\d+ of ${totalBefore + 1} entries`) }).waitFor({ state: "visible", timeout: 10_000 });
    const row = treeRow(tree(), id);
    await row.waitFor({ state: "visible", timeout: 10_000 });
    await waitUntil("the new leaf's row on screen", () => rowInView(row));
    assert.match((await row.getAttribute("class")) ?? "", /\bleaf\b/);
    assert.equal((await row.locator(".text").textContent())?.trim(), text);
    assert.match((await row.getAttribute("class")) ?? "", /\bkind-user\b/);
  });

  it("lists a session that Pi writes from a terminal, and drops it when the file goes away", async () => {
    const name = `Started in a terminal ${Date.now().toString(36)}`;
    const script = [
      `const { SessionManager } = await import("@mariozechner/pi-coding-agent");`,
      `const [cwd, dir, name] = process.argv.slice(1);`,
      `const s = SessionManager.create(cwd, dir);`,
      `s.appendMessage({ role: "user", content: "hello from pi", timestamp: Date.now() });`,
      `s.appendMessage({ role: "assistant", content: [{ type: "text", text: "hi" }], api: "x", provider: "p", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: Date.now() });`,
      `s.appendSessionInfo(name);`,
      `process.stdout.write(s.getSessionFile());`,
    ].join("\n");
    const file = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script, workspaceFolder, samples.sessionDir, name], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.on("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`pi process exited ${code}`))));
    });
    // No refresh click: the view follows its folder.
    await sessionRow(workbench(), name).waitFor({ state: "visible", timeout: 10_000 });
    rmSync(file);
    await waitUntil("the deleted session's row to go away", async () => (await workbench().viewPane("Sessions").locator(".monaco-list-row", { hasText: name }).count()) === 0);
  });

  it("resumes another session with the Sessions view's inline Resume action and switches the tree to it", async () => {
    await showSession(samples.mainName);
    await resumeSessionInline(workbench(), samples.forkName);

    const forkEntries = readEntries(samples.forkFile);
    await waitUntil("the fork's entry count in the status line", async () => (await treeStatus(tree())).total === forkEntries.length);
    const forkOnly = forkEntries.filter((e) => !readEntries(samples.mainFile).some((m) => m.id === e.id) && e.type === "message");
    assert.ok(forkOnly.length > 0, "the fork has messages of its own");
    for (const entry of forkOnly) await revealTreeRow(tree(), entry.id);
    // The Sessions view marks the resumed session as the open one (no inline Resume any more).
    const forkRow = sessionRow(workbench(), samples.forkName);
    await forkRow.hover();
    await forkRow.locator(".actions").getByRole("button", { name: "Rename", exact: true }).waitFor({ state: "visible" });
    assert.equal(await forkRow.locator(".actions").getByRole("button", { name: "Resume", exact: true }).count(), 0);
  });

  it("resumes a session with one click while another process appends to a session file every 50 ms", async () => {
    await showSession(samples.mainName);
    const sessions = workbench().viewPane("Sessions");
    const writtenTitle = "Add a --json flag to the ls command.";
    const writer = appendContinuously(samples.linearFile, 50);
    try {
      // The session being written moves to the top once (newest first); after that only its own
      // row changes while the appends go on.
      await waitUntil("the other process's first append", () => writer.appended() > 0, 60_000);
      await waitUntil("the session being written to lead the list", async () =>
        ((await sessions.locator(".monaco-list-row").first().textContent()) ?? "").includes(writtenTitle), 60_000);
      const before = writer.appended();
      await waitUntil("more appends", () => writer.appended() >= before + 10);
      // One click, no retry: resumeSessionFromList clicks once and then only waits.
      await resumeSessionFromList(workbench(), samples.forkName);
      assert.ok(writer.appended() > before + 10, "the other process kept appending around the click");
    } finally {
      await writer.stop();
    }
    const forkEntries = readEntries(samples.forkFile);
    await waitUntil("the fork's entry count in the status line", async () => (await treeStatus(tree())).total === forkEntries.length);
  });

  it("forks a session that another process holds with one click on the read-only banner's Fork button", async () => {
    const { SessionManager } = await loadReference();
    const name = `Held elsewhere ${Date.now().toString(36)}`;
    const written = SessionManager.create(workspaceFolder, samples.sessionDir);
    written.appendMessage({ role: "user", content: "Plan the release notes.", timestamp: Date.now() });
    written.appendMessage({
      role: "assistant", content: [{ type: "text", text: "Here is a plan for the notes." }],
      api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5",
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop", timestamp: Date.now(),
    });
    written.appendSessionInfo(name);
    const file = written.getSessionFile()!;
    const original = readFileSync(file, "utf8");
    // Another writer (this test's process, as another Arbor window would) holds the session's lock.
    const holder = await ArborSessionManager.open(file, { lock: { heartbeatMs: 100, staleMs: 60_000 } });
    try {
      await workbench().openViewContainer("Arbor");
      await resumeSessionFromList(workbench(), name);
      const banner = tree().locator(".banner");
      await banner.waitFor({ state: "visible" });
      assert.match((await banner.locator(".banner-text").textContent()) ?? "", /^Read-only: .*Fork to continue here\.$/);
      const before = new Set(readdirSync(samples.sessionDir));

      await banner.locator("vscode-button", { hasText: "Fork" }).click();

      await banner.waitFor({ state: "hidden" });
      const fork = await waitUntil("the fork's session file", () =>
        readdirSync(samples.sessionDir).filter((f) => f.endsWith(".jsonl") && !before.has(f)).map((f) => join(samples.sessionDir, f))
          .find((f) => (JSON.parse(readFileSync(f, "utf8").split("\n")[0]!) as { parentSession?: string }).parentSession === file));
      // The tree shows the fork, which Pi reads with the same conversation; the held file is untouched.
      await waitUntil("the fork in the tree", async () => (await treeStatus(tree())).total === readEntries(fork).length);
      assert.deepEqual((await openWithReference(fork)).buildSessionContext().messages, (await openWithReference(file)).buildSessionContext().messages);
      assert.deepEqual(readEntries(fork).filter((e) => e.type === "message").map((e) => e.id), readEntries(file).filter((e) => e.type === "message").map((e) => e.id));
      assert.equal(readFileSync(file, "utf8"), original, "the held session is not written");
      assert.equal(await tree().locator(".banner:not([hidden])").count(), 0);
    } finally {
      await holder.close();
    }
  });

  it("renders markup in a session's texts, label and name as inert text in the real webview", async () => {
    await showSession(hostile.name);
    const t = tree();
    const userRow = await revealTreeRow(t, hostile.userId);
    const assistantRow = await revealTreeRow(t, hostile.assistantId);
    assert.equal((await userRow.locator(".text").textContent())?.trim(), `Show this literally: ${hostileMarkup}`);
    assert.equal((await assistantRow.locator(".text").textContent())?.trim(), `${hostileMarkup} stays text.`);
    assert.equal((await assistantRow.locator(".badge.label .badge-text").textContent())?.trim(), `<img src=x onerror="window.__pwned=1">`);
    assert.equal((await t.locator(".session-name").textContent())?.trim(), hostile.name);

    // Nothing was parsed as HTML: no image anywhere, and no script beyond the webview's own bundle.
    const app = t.locator("body");
    const counts = await app.evaluate((body: unknown) => {
      const doc = (body as { ownerDocument: { querySelectorAll(s: string): { length: number; [i: number]: { textContent: string | null; getAttribute(n: string): string | null } } } }).ownerDocument;
      const scripts = doc.querySelectorAll("script");
      const inline: string[] = [];
      for (let i = 0; i < scripts.length; i++) if ((scripts[i]!.textContent ?? "").includes("alert")) inline.push(scripts[i]!.textContent ?? "");
      return { img: doc.querySelectorAll("img").length, bold: doc.querySelectorAll("b").length, scripts: scripts.length, alertScripts: inline.length };
    });
    assert.ok(counts.scripts >= 1, "the query looked at the webview's own document (its bundle is a script)");
    assert.deepEqual({ img: counts.img, bold: counts.bold, alertScripts: counts.alertScripts }, { img: 0, bold: 0, alertScripts: 0 });
    const pwned = await app.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);
    assert.equal(pwned, undefined);
    assert.equal(await session!.page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(dialogs, [], "no alert or other dialog ever opened");
  });
});
