/**
 * File checkpoints in a real VS Code (code-server, the packaged extension, chromium) over the
 * scripted OpenAI-compatible server: a turn with the write tool, a turn with bash, then one click on
 * the second prompt's row in the Conversation Tree and "Conversation and files" in VS Code's quick
 * pick take the workspace back to the first turn's files; the notification says what changed, and
 * Show Changes opens VS Code's multi-file diff. One click on the last reply's row takes the files
 * forward again. The reference reads the session file afterwards.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, type ScriptedServer } from "../support/scripted-openai-server";
import type { WorkbenchSession } from "./harness";
import { openChatWorkbench, type ChatWorkbench } from "./harness/chat-workbench";
import { conversationTree, conversationTreeIn, revealTreeRow, sendInChat, waitUntil } from "./harness/arbor-views";
import { shownTreePanelTab } from "./harness/layout";

type Entry = { type: string; id: string; parentId: string | null; customType?: string; message?: { role: string; content: unknown } };

function entriesOf(dir: string): Entry[] {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1, `one session file in ${dir}: ${files.join(", ")}`);
  return readFileSync(join(dir, files[0]!), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Entry);
}

describe("file checkpoints in a real VS Code (e2e)", function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;
  let workspace: string;
  let sessionDir: string;

  const chat = () => bench!.chat();
  const tree = () => conversationTree(session!.workbench);
  const notes = () => readFileSync(join(workspace, "notes.txt"), "utf8");

  before(async () => {
    bench = await openChatWorkbench("e2e-checkpoints", {
      prepare: ({ workspace }) => writeFileSync(join(workspace, "notes.txt"), "as the user left it\n"),
      settings: { "arbor.tools.autoApprove": "commands", "arbor.tree.askToSummarizeBranch": false },
    });
    ({ session, server, workspace, sessionDir } = bench);
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await bench?.close();
  });

  it("one click on an earlier prompt and 'Conversation and files' take the files back; one click on the last reply takes them forward", async () => {
    server.script(
      reply.toolCall({ id: "w", name: "write", arguments: { path: "notes.txt", content: "written by the tool\n" } }),
      reply.text("Written."),
      reply.toolCall({ id: "b", name: "bash", arguments: { command: "echo changed by bash > notes.txt && echo new > created.txt" } }),
      reply.text("Changed."),
    );
    assert.equal(await shownTreePanelTab(session!.page).isVisible(), false, "no tree before there is a session");
    await sendInChat(session!.workbench, "Write the notes");
    await chat().locator(".item-assistant:not(.live)", { hasText: "Written." }).waitFor({ state: "visible" });
    // The session the chat started shows its tree in the panel, the keyboard staying in the chat.
    await shownTreePanelTab(session!.page).waitFor({ state: "visible" });
    assert.equal(await chat().locator("textarea.input").evaluate((node) => node.ownerDocument.hasFocus() && node.ownerDocument.activeElement === node), true, "the caret stays in the chat's input");
    assert.equal(notes(), "written by the tool\n");
    await sendInChat(session!.workbench, "Change the notes with bash");
    await chat().locator(".item-assistant:not(.live)", { hasText: "Changed." }).waitFor({ state: "visible" });
    assert.equal(notes(), "changed by bash\n");
    assert.ok(existsSync(join(workspace, "created.txt")));

    const entries = entriesOf(sessionDir);
    const secondPrompt = entries.find((e) => e.message?.role === "user" && JSON.stringify(e.message.content).includes("with bash"))!;
    const lastReply = [...entries].reverse().find((e) => e.message?.role === "assistant")!;
    assert.ok(entries.some((e) => e.customType === "arbor.checkpoint"), "the snapshots are in the session file");

    // Back: one click on the row, one answer to the question.
    await (await revealTreeRow(tree(), secondPrompt.id)).click();
    await session!.workbench.pickQuickInput("", "Conversation and files");
    await waitUntil("the first turn's files", async () => notes() === "written by the tool\n" && !existsSync(join(workspace, "created.txt")));
    const toast = session!.page.locator(".notifications-toasts .notification-toast", { hasText: "Restored 2 files: 1 changed, 1 removed, 0 back" });
    await toast.waitFor({ state: "visible" });
    await toast.locator(".monaco-button", { hasText: "Show Changes" }).click();
    await session!.page.locator(".part.editor .tab.active", { hasText: "Files restored by the checkout" }).waitFor({ state: "visible" });

    // Forward: the last reply's files.
    await (await revealTreeRow(tree(), lastReply.id)).click();
    await session!.workbench.pickQuickInput("", "Conversation and files");
    await waitUntil("the second turn's files", async () => existsSync(join(workspace, "created.txt")) && notes() === "changed by bash\n");
    await tree().locator(`[role="treeitem"][aria-current="true"][data-vscode-context*='"entryId":"${lastReply.id}"']`).waitFor({ state: "visible" });

    const { SessionManager } = (await import("@mariozechner/pi-coding-agent")) as unknown as { SessionManager: { open(path: string): { getLeafId(): string | null; buildSessionContext(): { messages: unknown[] } } } };
    const file = join(sessionDir, readdirSync(sessionDir).find((f) => f.endsWith(".jsonl"))!);
    const ref = SessionManager.open(file);
    const leaf = ref.getLeafId();
    // Pi resumes at the checkout marker under the last reply, with the whole conversation.
    assert.equal(entriesOf(sessionDir).find((e) => e.id === leaf)?.parentId, lastReply.id);
    const messages = entriesOf(sessionDir).filter((e) => e.type === "message").length;
    assert.equal(messages, 8, "two prompts, each with a tool call, its result and the last reply");
    assert.equal(ref.buildSessionContext().messages.length, messages, "the snapshots and the checkouts are not in Pi's context");
  });

  it("marks the rows where files were recorded, and the editor-tab tree lists the turn's files with line counts, each one click from its diff", async () => {
    const entries = entriesOf(sessionDir);
    const lastReply = [...entries].reverse().find((e) => e.message?.role === "assistant")!;
    const firstUser = entries.find((e) => e.message?.role === "user")!;
    const marked = await revealTreeRow(tree(), lastReply.id);
    await marked.locator(".badge.checkpoint").waitFor({ state: "visible" });
    assert.equal(await (await revealTreeRow(tree(), firstUser.id)).locator(".badge.checkpoint").count(), 0, "a row without a checkpoint has no mark");

    await session!.workbench.runCommand("Arbor: Open Conversation Tree in Editor");
    const editor = await conversationTreeIn(session!.workbench, "editor");
    // The leaf (the last reply) is selected: its turn changed notes.txt and created created.txt.
    const files = editor.locator(".details.beside .turn-files");
    await files.locator(".details-files-title", { hasText: "Files this turn changed (2)" }).waitFor({ state: "visible" });
    const rows = await files.locator("li.turn-file").evaluateAll((items) => items.map((i) => (i as unknown as { textContent: string }).textContent.trim()));
    assert.deepEqual(rows.sort(), ["created.txt +1 \u22120", "notes.txt +1 \u22121"]);
    await files.locator("li.turn-file.modified button.turn-file-path").click();
    await session!.page.locator(".part.editor .tab.active", { hasText: "notes.txt (this turn)" }).waitFor({ state: "visible" });
  });
});
