/**
 * What a prompt carries besides its text, in a real VS Code (code-server, the packaged extension,
 * chromium) over the scripted OpenAI-compatible server: a PNG pasted into the chat's input shows as
 * a thumbnail that can be removed, and goes to the model as image content; `@` lists the
 * workspace's files (not the ignored ones) and Enter puts the path in; a file dropped on the input
 * becomes a reference; a large paste is a marker in the input and is sent in full.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { reply, type ScriptedServer } from "../support/scripted-openai-server";
import { png } from "../support/test-images";
import type { WorkbenchSession } from "./harness";
import { waitUntil } from "./harness/arbor-views";
import { openChatWorkbench, type ChatWorkbench } from "./harness/chat-workbench";
import { SCRIPTED_MODEL } from "./harness/pi-user";

/** The few DOM constructors the page-side code uses (the e2e build has no DOM library). */
interface PageDom {
  DataTransfer: new () => { setData(type: string, value: string): void; items: { add(file: unknown): void } };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
  DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
}

/** A 24x16 PNG (real pixels, from the codec the extension bundles). */
const pngBase64 = (): string => png(24, 16, false).toString("base64");

describe("images, @ files, drops and large pastes in the chat's input in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;
  let workspace: string;

  const chat = () => bench!.chat();
  const input = () => bench!.input();
  const userContent = (index: number): unknown => {
    const body = server.requests[index]!.body as { messages: { role: string; content: unknown }[] };
    return body.messages.filter((m) => m.role === "user").at(-1)!.content;
  };
  const asText = (content: unknown): string => (typeof content === "string" ? content : (content as { type: string; text?: string }[]).flatMap((p) => (p.type === "text" ? [p.text ?? ""] : [])).join("\n"));

  before(async () => {
    bench = await openChatWorkbench("e2e-prompt-attachments", {
      // A model that takes images, as a Pi user declares one in models.json.
      models: [{ id: SCRIPTED_MODEL, input: ["text", "image"] }],
      prepare: ({ workspace }) => {
        mkdirSync(join(workspace, "src/extension"), { recursive: true });
        mkdirSync(join(workspace, "build"), { recursive: true });
        writeFileSync(join(workspace, "src/extension/chat-controller.ts"), "export {};\n");
        writeFileSync(join(workspace, "notes.md"), "# notes\n");
        writeFileSync(join(workspace, "build/out.js"), "// built\n");
        writeFileSync(join(workspace, ".gitignore"), "build/\n");
      },
    });
    ({ session, server, workspace } = bench);
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await bench?.close();
  });

  /** Pastes into the chat's input as the clipboard would: an image file, or plain text. */
  async function paste(what: { png: string } | { text: string }): Promise<void> {
    await input().evaluate((element, what) => {
      const dom = globalThis as unknown as PageDom;
      const data = new dom.DataTransfer();
      if ("png" in what) {
        const bytes = Uint8Array.from(atob(what.png), (c) => c.charCodeAt(0));
        data.items.add(new dom.File([bytes], "screenshot.png", { type: "image/png" }));
      } else {
        data.setData("text/plain", what.text);
      }
      (element as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(new dom.ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    }, what);
  }

  it("a pasted PNG shows as a thumbnail, its remove button takes it away, and a second one goes to the model as an image", async () => {
    const png = pngBase64();
    await input().click();
    await paste({ png });
    const tile = chat().locator(".attachments .attachment:not(.pending)");
    await tile.waitFor({ state: "visible" });
    assert.equal(await tile.getAttribute("title"), "24×16");
    await tile.locator("button.attachment-remove").click();
    await waitUntil("the thumbnail removed", async () => (await chat().locator(".attachments .attachment").count()) === 0);

    await paste({ png });
    await tile.waitFor({ state: "visible" });
    server.script(reply.text("A small picture."));
    await input().click();
    await session!.page.keyboard.type("What is in this picture?");
    await session!.page.keyboard.press("Enter");
    await chat().locator(".item-assistant:not(.live)", { hasText: "A small picture." }).waitFor({ state: "visible" });
    assert.equal(server.requests.length, 1);
    const content = userContent(0) as { type: string; text?: string; image_url?: { url: string } }[];
    assert.ok(Array.isArray(content), "the user message has parts");
    assert.deepEqual(
      content.map((p) => p.type),
      ["text", "image_url"],
    );
    assert.equal(content[0]!.text, "What is in this picture?");
    assert.equal(content[1]!.image_url!.url, `data:image/png;base64,${png}`, "a small image goes as it was pasted");
    assert.equal(await chat().locator(".attachments .attachment").count(), 0, "sent images leave the input");
  });

  it("@ lists the workspace's files, not the ignored ones; Enter puts the path in", async () => {
    await input().fill("");
    await input().click();
    await session!.page.keyboard.type("look at @o");
    const popup = chat().locator(".mention-popup");
    await popup.locator(".slash-row[data-path='notes.md']").waitFor({ state: "visible" });
    const paths = await popup.locator(".slash-row").evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { path?: string } }).dataset.path));
    assert.ok(paths.includes("src/extension/chat-controller.ts"), `listed: ${paths.join(", ")}`);
    assert.ok(!paths.includes("build/out.js"), `.gitignore'd build/ is not listed: ${paths.join(", ")}`);
    await session!.page.keyboard.press("Backspace");
    await session!.page.keyboard.type("chctl");
    await waitUntil("the controller first", async () => (await popup.locator(".slash-row").first().getAttribute("data-path")) === "src/extension/chat-controller.ts");
    await session!.page.keyboard.press("Enter");
    await waitUntil("the path in the input", async () => (await input().inputValue()) === "look at @src/extension/chat-controller.ts ");
    assert.equal(await popup.isVisible(), false);
  });

  it("a file dropped on the input from VS Code becomes a reference at the caret", async () => {
    await input().fill("compare");
    const uri = pathToFileURL(join(workspace, "notes.md")).href;
    await chat().locator(".composer").evaluate((element, uri) => {
      const dom = globalThis as unknown as PageDom;
      const data = new dom.DataTransfer();
      data.setData("application/vnd.code.uri-list", uri);
      (element as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(new dom.DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    }, uri);
    await waitUntil("the reference in the input", async () => (await input().inputValue()) === "compare @notes.md ");
  });

  it("a paste of 12 lines is a marker in the input, and the model gets the 12 lines", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `log line ${i + 1}`).join("\n");
    await input().fill("");
    await input().click();
    await session!.page.keyboard.type("Explain: ");
    await paste({ text: lines });
    assert.equal(await input().inputValue(), "Explain: [paste #1 +12 lines]");
    server.script(reply.text("Twelve lines."));
    await session!.page.keyboard.press("Enter");
    await chat().locator(".item-assistant:not(.live)", { hasText: "Twelve lines." }).waitFor({ state: "visible" });
    assert.equal(asText(userContent(server.requests.length - 1)), `Explain: ${lines}`);
  });
});
