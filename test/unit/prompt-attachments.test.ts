/**
 * What a prompt carries besides its text, in its pure parts: pasted images checked by their bytes
 * and fitted as the read tool fits them (the real codec), Pi's images.blockImages on the wire, the
 * `@` word read and written as Pi's editor does, the ranking of files for it, large-paste markers,
 * and the protocol guards of the new messages.
 */
import * as assert from "node:assert/strict";
import { preparePromptImage, promptImageSettings, MAX_PROMPT_IMAGE_BYTES } from "../../src/core/agent/prompt-images";
import { IMAGE_BLOCKED_TEXT, withoutImages } from "../../src/core/context/blocked-images";
import type { LlmMessage } from "../../src/core/session/types";
import { rankFiles, scoreFile } from "../../src/extension/chat/file-match";
import { isAttachmentToChatMessage, isAttachmentToHostMessage, isPromptImages } from "../../src/protocol/chat-attachments";
import { isChatToHostMessage } from "../../src/protocol/chat-guards";
import { applyMention, insertReferences, mentionAt } from "../../webview/chat/mention-query";
import { cleanPaste, pasteMarker, PasteStore } from "../../webview/chat/paste-markers";
import { png as testPng } from "../support/test-images";

const png = (width: number, height: number): Buffer => testPng(width, height, true, 7);


describe("prompt attachments: images", () => {
  it("a small PNG goes as it is, typed by its bytes", async () => {
    const bytes = png(40, 30);
    const prepared = await preparePromptImage(bytes.toString("base64"), promptImageSettings(undefined));
    assert.ok(prepared.ok);
    assert.equal(prepared.image.mimeType, "image/png");
    assert.equal(prepared.image.data, bytes.toString("base64"));
    assert.deepEqual([prepared.width, prepared.height, prepared.original], [40, 30, undefined]);
  });

  it("a picture over 2000 pixels wide is scaled down, and says its old size; with autoResize off it goes whole", async () => {
    const data = png(2600, 100).toString("base64");
    const scaled = await preparePromptImage(data, promptImageSettings({ autoResize: true }));
    assert.ok(scaled.ok);
    assert.ok(scaled.width <= 2000, `width ${scaled.width}`);
    assert.deepEqual(scaled.original, { width: 2600, height: 100 });
    const whole = await preparePromptImage(data, promptImageSettings({ autoResize: false }));
    assert.ok(whole.ok);
    assert.equal(whole.width, 2600);
    assert.equal(whole.image.data, data);
  });

  it("refuses bytes that are no PNG, JPEG, GIF or WebP, an empty image and an oversized one, saying why", async () => {
    const text = await preparePromptImage(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64"), promptImageSettings(undefined));
    assert.ok(!text.ok);
    assert.match(text.error, /PNG, JPEG, GIF and WebP/);
    const empty = await preparePromptImage("", promptImageSettings(undefined));
    assert.ok(!empty.ok && /empty/.test(empty.error));
    const huge = await preparePromptImage(Buffer.alloc(MAX_PROMPT_IMAGE_BYTES + 1).toString("base64"), promptImageSettings(undefined));
    assert.ok(!huge.ok && /too large/.test(huge.error));
    // A PNG signature with garbage after it cannot be decoded.
    const torn = Buffer.concat([png(10, 10).subarray(0, 16), Buffer.alloc(64, 7)]);
    const broken = await preparePromptImage(torn.toString("base64"), promptImageSettings(undefined));
    assert.ok(!broken.ok, "a torn PNG is refused");
  });

  it("Pi's images settings keep their defaults for anything but booleans", () => {
    assert.deepEqual(promptImageSettings({ autoResize: "no", blockImages: 1 }), { autoResize: true, blockImages: false });
    assert.deepEqual(promptImageSettings({ autoResize: false, blockImages: true }), { autoResize: false, blockImages: true });
    assert.deepEqual(promptImageSettings([true]), { autoResize: true, blockImages: false });
  });

  it("blockImages sends one line per run of images, in user messages and tool results; assistant text is left alone", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    const messages = [
      { role: "user", content: [{ type: "text", text: "look" }, image, image, { type: "text", text: "and" }, image], timestamp: 1 },
      { role: "toolResult", toolCallId: "c", toolName: "read", content: [image], isError: false, timestamp: 2 },
      { role: "user", content: "plain", timestamp: 3 },
    ] as unknown as LlmMessage[];
    const out = withoutImages(messages) as unknown as { content: unknown }[];
    assert.deepEqual(out[0]!.content, [{ type: "text", text: "look" }, { type: "text", text: IMAGE_BLOCKED_TEXT }, { type: "text", text: "and" }, { type: "text", text: IMAGE_BLOCKED_TEXT }]);
    assert.deepEqual(out[1]!.content, [{ type: "text", text: IMAGE_BLOCKED_TEXT }]);
    assert.equal(out[2], messages[2], "a message without images is the same object");
  });
});

describe("prompt attachments: the @ word, files and pastes", () => {
  it("reads the @ word at the caret as Pi's editor does, quoted or not, and only at a word's start", () => {
    assert.deepEqual(mentionAt("see @src/ch", 11), { start: 4, query: "src/ch", quoted: false });
    assert.deepEqual(mentionAt('see @"my fi', 11), { start: 4, query: "my fi", quoted: true });
    assert.deepEqual(mentionAt("@", 1), { start: 0, query: "", quoted: false });
    assert.equal(mentionAt("mail me@host", 12), undefined);
    assert.equal(mentionAt("@src done", 9), undefined, "a finished word");
    assert.deepEqual(mentionAt("line one\n@rea", 13), { start: 9, query: "rea", quoted: false });
  });

  it("puts the chosen path in with a space after it, quoting a path with a space", () => {
    assert.deepEqual(applyMention("see @ch and", 7, { start: 4, query: "ch", quoted: false }, "src/chat.ts"), { text: "see @src/chat.ts  and", caret: 17 });
    const quoted = applyMention('open @"my', 9, { start: 5, query: "my", quoted: true }, "my file.md");
    assert.equal(quoted.text, 'open @"my file.md" ');
    assert.deepEqual(insertReferences("fix", 3, ["@a.ts", '@"b c.ts"']), { text: 'fix @a.ts @"b c.ts" ', caret: 20 });
    assert.deepEqual(insertReferences("", 0, []), { text: "", caret: 0 });
  });

  it("ranks the file named as the query first, then names that start or contain it, then letters in order", () => {
    const files = ["docs/chat.md", "src/extension/chat/chat-controller.ts", "src/chat.ts", "test/unit/chat-webview.test.ts", "README.md", "src/chatter/index.ts"];
    assert.deepEqual(rankFiles(files, "chat.ts").slice(0, 1), ["src/chat.ts"]);
    assert.equal(rankFiles(files, "chctl")[0], "src/extension/chat/chat-controller.ts");
    assert.equal(scoreFile("README.md", "zzz"), 0);
    assert.equal(rankFiles(files, "").length, files.length);
    assert.equal(rankFiles(Array.from({ length: 500 }, (_, i) => `f${i}.ts`), "f").length, 20, "Pi's 20 results");
  });

  it("a paste over 10 lines or 1,000 characters becomes a marker that is sent as what was pasted", () => {
    const store = new PasteStore();
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n");
    assert.equal(store.add("short"), undefined);
    const marker = store.add(lines);
    assert.equal(marker, "[paste #1 +12 lines]");
    const long = store.add("x".repeat(1500));
    assert.equal(long, "[paste #2 1500 chars]");
    assert.equal(store.expand(`before ${marker} after ${long}`), `before ${lines} after ${"x".repeat(1500)}`);
    assert.equal(store.expand("[paste #9 +3 lines] stays"), "[paste #9 +3 lines] stays");
    assert.equal(pasteMarker(1, "a\n".repeat(9)), undefined, "ten lines go in as they are");
    assert.equal(cleanPaste("a\r\nb\tc\u0007"), "a\nb    c");
  });
});

describe("prompt attachments: protocol guards", () => {
  const image = { data: Buffer.from("png").toString("base64"), mimeType: "image/png" };
  it("a send takes a bounded list of typed base64 images", () => {
    assert.ok(isChatToHostMessage({ type: "send", text: "hi", images: [image] }));
    assert.ok(isChatToHostMessage({ type: "send", text: "hi" }));
    assert.ok(!isChatToHostMessage({ type: "send", text: "hi", images: [{ ...image, mimeType: "image/svg+xml" }] }));
    assert.ok(!isChatToHostMessage({ type: "send", text: "hi", images: [{ ...image, data: "not base64!" }] }));
    assert.ok(!isPromptImages(Array.from({ length: 21 }, () => image)));
  });

  it("the webview's attachment requests and the host's answers are checked field by field", () => {
    assert.ok(isAttachmentToHostMessage({ type: "attachImage", requestId: 1, data: image.data }));
    assert.ok(!isAttachmentToHostMessage({ type: "attachImage", requestId: -1, data: image.data }));
    assert.ok(isAttachmentToHostMessage({ type: "searchFiles", requestId: 2, query: "src" }));
    assert.ok(!isAttachmentToHostMessage({ type: "resolveDrop", requestId: 3, uris: [] }));
    assert.ok(isChatToHostMessage({ type: "resolveDrop", requestId: 3, uris: ["file:///w/a.ts"] }));
    assert.ok(isAttachmentToChatMessage({ type: "fileResults", requestId: 2, files: [{ path: "a/b.ts", name: "b.ts" }], unavailable: false }));
    assert.ok(!isAttachmentToChatMessage({ type: "imageAttached", requestId: 1, image: null, error: null, note: null }), "a refusal says why");
    assert.ok(isAttachmentToChatMessage({ type: "imageAttached", requestId: 1, image: { ...image, width: 2, height: 2 }, error: null, note: null }));
  });
});
