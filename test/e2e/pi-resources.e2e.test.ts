/**
 * A Pi user's setup in a real VS Code (code-server, the packaged extension, chromium), over the
 * scripted OpenAI-compatible server: the workspace's `AGENTS.md`, a project prompt template and a
 * skill in Pi's agent folder. Typing `/` in the chat lists the template (with its description and
 * argument hint) and the skill; choosing the template with the keyboard and sending it sends the
 * expanded text, with the context file and the skill list (never its body) in the system prompt.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, type ScriptedServer } from "../support/scripted-openai-server";
import type { WorkbenchSession } from "./harness";
import { waitUntil } from "./harness/arbor-views";
import { openChatWorkbench, type ChatWorkbench } from "./harness/chat-workbench";

describe("Pi's context files, templates and skills in the chat of a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;

  const chat = () => bench!.chat();
  const input = () => bench!.input();

  before(async () => {
    bench = await openChatWorkbench("e2e-pi-resources", {
      prepare: ({ workspace, agentDir }) => {
        mkdirSync(join(workspace, ".pi/prompts"), { recursive: true });
        writeFileSync(join(workspace, "AGENTS.md"), "Project rule: name every test after the behaviour it checks.\n");
        writeFileSync(
          join(workspace, ".pi/prompts/review.md"),
          "---\ndescription: Review one file for naming\nargument-hint: <file> [focus]\n---\nReview $1 carefully. Focus on: ${@:2}.\n",
        );
        mkdirSync(join(agentDir, "skills/lint-fix"), { recursive: true });
        writeFileSync(
          join(agentDir, "skills/lint-fix/SKILL.md"),
          "---\nname: lint-fix\ndescription: Fixes lint errors one rule at a time\n---\nSECRET-BODY: run the linter, then fix each rule.\n",
        );
      },
    });
    session = bench.session;
    server = bench.server;
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await bench?.close();
  });

  it("typing / lists the project's template with its description and argument hint, and the agent folder's skill", async () => {
    await input().click();
    await session!.page.keyboard.type("/");
    const template = chat().locator(".slash-popup .slash-row[data-command='review']");
    await template.waitFor({ state: "visible" });
    assert.equal(await template.locator(".slash-desc").textContent(), "Review one file for naming");
    assert.equal(await template.locator(".slash-args").textContent(), "<file> [focus]");
    await chat().locator(".slash-popup .slash-row[data-command='skill:lint-fix']").waitFor({ state: "visible" });
    // Typing narrows the list: the template comes first.
    await session!.page.keyboard.type("rev");
    await waitUntil("the template first in the list", async () => (await chat().locator(".slash-popup .slash-row").first().getAttribute("data-command")) === "review");
  });

  it("Enter chooses the template, and sending it sends the expanded text with AGENTS.md and the skill list in the system prompt", async () => {
    server.script(reply.text("Reviewed."));
    await session!.page.keyboard.press("Enter");
    await waitUntil("the template's name in the input", async () => (await input().inputValue()) === "/review ");
    await session!.page.keyboard.type("src/app.ts test names");
    await session!.page.keyboard.press("Enter");
    await chat().locator(".item-assistant:not(.live)", { hasText: "Reviewed." }).waitFor({ state: "visible" });

    assert.equal(server.requests.length, 1, "one model call");
    const body = server.requests[0]!.body as { messages: { role: string; content: unknown }[] };
    const text = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));
    const system = body.messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => text(m.content)).join("\n");
    const user = body.messages.filter((m) => m.role === "user").map((m) => text(m.content)).join("\n");
    assert.match(system, /Project rule: name every test after the behaviour it checks\./);
    assert.match(system, /AGENTS\.md/);
    assert.match(system, /lint-fix/);
    assert.match(system, /Fixes lint errors one rule at a time/);
    assert.doesNotMatch(system, /SECRET-BODY/, "a skill's body is read only when the agent asks for it");
    assert.match(user, /Review src\/app\.ts carefully\. Focus on: test names\./);

    // The chat says what the agent was told, one click from each file.
    const contextLine = chat().locator(".context-count");
    await contextLine.waitFor({ state: "visible" });
    assert.equal(await contextLine.textContent(), "Context: 1 file");
    assert.equal(await chat().locator("button.context-file").textContent(), "AGENTS.md");
  });
});
