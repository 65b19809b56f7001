/**
 * Steering end to end in a real VS Code (code-server) driven in chromium, against the scripted
 * model server: a prompt typed (Enter) while the reply streams, before its tool call, shows above
 * the input as "Steering" and stays there until it is delivered, after the tool result and before
 * the next model call, as Pi delivers it. A follow-up (Alt+Enter) typed meanwhile is taken back into
 * the input with its button, another with Alt+Up. The reply waits on a gate the test opens, not on time.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { createScratchFolder, openWorkbench, WorkbenchSession, writePiModelsJson } from "./harness";
import { chatView, conversationTree, waitUntil } from "./harness/arbor-views";

describe("steering the agent from the chat (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;
  let sessionDir: string;

  const chat = () => chatView(session!.workbench);
  const input = () => chat().locator("textarea.input");
  const queued = () => chat().locator(".queued-prompts .queued-prompt");

  /** Types into the chat's input, then presses `key` (Enter, or Alt+Enter). */
  async function type(text: string, key = "Enter"): Promise<void> {
    await input().click();
    await input().pressSequentially(text, { delay: 5 });
    await session!.page.keyboard.press(key);
  }

  /** The message entries of the one session file, as `role: text`. */
  function messages(): string[] {
    const files = readdirSync(sessionDir).filter((f) => f.endsWith(".jsonl"));
    assert.equal(files.length, 1, `one session file in ${sessionDir}: ${files.join(", ")}`);
    return readFileSync(join(sessionDir, files[0]!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; message?: { role: string; content: unknown; toolName?: string } })
      .filter((e) => e.type === "message")
      .map(({ message }) => {
        if (message!.role === "toolResult") return `toolResult: ${message!.toolName}`;
        const blocks = typeof message!.content === "string" ? [{ type: "text", text: message!.content }] : (message!.content as { type: string; text?: string; name?: string }[]);
        return `${message!.role}: ${blocks.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : "")).join("")}`;
      });
  }

  before(async () => {
    scratch = createScratchFolder("e2e-steering");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# steering e2e\n");
    sessionDir = join(scratch.path, "sessions");
    mkdirSync(sessionDir);
    server = await startScriptedServer();
    writePiModelsJson(agentDir, server.baseUrl);
    session = await openWorkbench({
      folder: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir },
      viewport: { width: 1400, height: 1000 },
      settings: { "arbor.sessionsDirectory": sessionDir },
    });
    await session.workbench.openViewContainer("Arbor");
    // Both webviews loaded and answered by the host before anything is typed (the tree in the panel).
    await session.workbench.runCommand("Arbor: Show Conversation Tree");
    await conversationTree(session.workbench).locator(".empty", { hasText: "No session is open" }).waitFor({ state: "visible" });
    await session.workbench.runCommand("Arbor: Open Chat");
    await input().waitFor({ state: "visible" });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    await server?.close();
    scratch?.dispose();
  });

  it("a prompt typed while the reply streams steers it: queued above the input, delivered after the tool result", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const [toolCall] = reply.toolCall({ name: "read", arguments: { path: "README.md" } }).steps.slice(0, 1);
    const rest = reply.toolCall({ name: "read", arguments: { path: "README.md" } }).steps.slice(1);
    server.script(
      reply.steps(toolCall!, { type: "chunk", delta: { content: "Reading the README first." } }, { type: "wait", until: gate }, ...rest),
      reply.text("Steered: kept it short."),
    );
    await type("Read the README");
    await chat().locator(".live .md", { hasText: "Reading the README first." }).waitFor({ state: "visible" });

    await type("STEER: keep it short");
    const steer = queued().filter({ hasText: "STEER: keep it short" });
    await steer.waitFor({ state: "visible" });
    assert.match((await steer.textContent()) ?? "", /Steering:/);
    assert.equal(await input().inputValue(), "", "the input is cleared once the steer is queued");

    // A follow-up (Alt+Enter) is listed after the steer; its button takes it back into the input.
    await type("FOLLOW-UP: taken back", "Alt+Enter");
    const followUp = queued().filter({ hasText: "FOLLOW-UP: taken back" });
    await followUp.waitFor({ state: "visible" });
    assert.match((await followUp.textContent()) ?? "", /Follow-up:/);
    assert.deepEqual(await queued().allTextContents().then((rows) => rows.map((r) => r.split(":")[0])), ["Steering", "Follow-up"]);
    await followUp.locator("button.queued-take-back").click();
    await waitUntil("the follow-up back in the input", async () => (await input().inputValue()) === "FOLLOW-UP: taken back");
    await followUp.waitFor({ state: "detached" });
    await input().fill("");

    // Another one, and Alt+Up takes it back (the steer stays queued: one row each, and this one is the last).
    await type("FOLLOW-UP: Alt+Up", "Alt+Enter");
    await queued().filter({ hasText: "FOLLOW-UP: Alt+Up" }).waitFor({ state: "visible" });
    await input().click();
    await session!.page.keyboard.press("Alt+ArrowUp");
    await waitUntil("every queued prompt back in the input", async () => (await input().inputValue()) === "STEER: keep it short\n\nFOLLOW-UP: Alt+Up");
    await chat().locator(".queued-prompts").waitFor({ state: "hidden" });
    // Sent again as a steer, it waits with the reply: still queued, nothing more asked of the model.
    await input().fill("STEER: keep it short");
    await session!.page.keyboard.press("Enter");
    await steer.waitFor({ state: "visible" });
    assert.equal(server.requests.filter((r) => r.path.endsWith("/chat/completions")).length, 1);

    open();
    await chat().locator(".item-assistant:not(.live)", { hasText: "Steered: kept it short." }).waitFor({ state: "visible" });
    await chat().locator(".queued-prompts").waitFor({ state: "hidden" });
    await chat().locator(".item-user", { hasText: "STEER: keep it short" }).waitFor({ state: "visible" });
    await waitUntil("the steer in the file", () => messages().length === 5);
    assert.deepEqual(messages(), ["user: Read the README", "assistant: Reading the README first.[read]", "toolResult: read", "user: STEER: keep it short", "assistant: Steered: kept it short."]);
    // The second model call ends with the tool's result, then the steer.
    const second = server.requests.filter((r) => r.path.endsWith("/chat/completions"))[1]!.body as { messages: { role: string; content: unknown }[] };
    assert.deepEqual(second.messages.slice(-2).map((m) => m.role), ["tool", "user"]);
    assert.match(JSON.stringify(second.messages.at(-1)!.content), /STEER: keep it short/);
  });
});
