/** Markdown export: the transcript of one path, every entry kind, and session text kept from acting as markup in our own lines. */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderSessionExport } from "../../src/core/export";
import { escapeInline } from "../../src/core/export/export-markdown";
import { escapeMessageBody } from "../../src/core/export/markdown-body";
import { fence } from "../../src/core/export/page-model";
import { SessionManager } from "../../src/core/session/session-manager";
import { PAYLOADS, writeExportFixture, type ExportFixture } from "../support/export-fixtures";
import { makeTempDir } from "../support/temp-dir";
import { repoRoot } from "../support/webview-harness";

const NOW = new Date("2026-03-02T00:00:00Z");

async function markdownOf(fixture: ExportFixture, leafId?: string): Promise<string> {
  const sm = await SessionManager.open(fixture.file, { readOnly: true });
  return renderSessionExport(sm, { format: "md", leafId, generator: "Arbor test", now: NOW });
}

describe("Markdown export", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("writes every kind of entry on the path as the reviewed reference text (test/fixtures/export-every-kind.md)", async () => {
    const md = await markdownOf(writeExportFixture(tmp.dir));
    assert.equal(md, readFileSync(join(repoRoot(), "test", "fixtures", "export-every-kind.md"), "utf8"));
  });

  it("keeps the path's order, pairs tool results with their calls, and leaves out what the chat does not show", async () => {
    const md = await markdownOf(writeExportFixture(tmp.dir));
    const order = ["## User", "**Thinking:**", "**Tool call: read**", "export function parse", "**Tool call: bash**", "**Result (error):**", "```diff", "label: diagnosis", "## Branch summary", "## Shell ·", "*Exit code 1.*", "## Shell (not sent to the model)", "*Cancelled.*", "## Message from reminder", "## Message from lint", "## Compaction (48k tokens summarized)", "**Error:** 429 rate limited", "Adding the te", "**Stopped:**", "## Tool result: grep"];
    let at = -1;
    for (const marker of order) {
      const next = md.indexOf(marker, at + 1);
      assert.ok(next > at, `"${marker}" comes after the previous marker`);
      at = next;
    }
    for (const absent of ["NOT DISPLAYED", "Rewrite it as a streaming reader", "extension state", "from a newer Pi"]) assert.ok(!md.includes(absent), `${absent} is not in the transcript`);
    assert.ok(md.includes("FAIL parser.test.ts\n\tat line 3"), "tabs in output survive");
  });

  it("exports another branch with --leaf semantics: the path to that entry only", async () => {
    const fixture = writeExportFixture(tmp.dir);
    const md = await markdownOf(fixture, fixture.otherLeafId);
    assert.ok(md.includes("Rewrite it as a streaming reader."));
    assert.ok(md.includes("Done: the reader now streams chunks."));
    assert.ok(!md.includes("## Branch summary"));
    assert.ok(md.includes(`to ${fixture.otherLeafId}`));
  });

  it("escapes session text in headings, names, labels and paths so it cannot become markup there", async () => {
    const md = await markdownOf(writeExportFixture(tmp.dir, { hostile: true }));
    const ours = md.split("\n").filter((line) => /^(#|- |\*\*|\*)/.test(line));
    assert.ok(ours.length > 20);
    for (const line of ours) {
      assert.doesNotMatch(line, /(^|[^\\])<(script|img|svg|iframe|a|details|style|meta)\b/i, `unescaped tag in: ${line.slice(0, 120)}`);
      assert.doesNotMatch(line, /(^|[^\\])\[click me(^|[^\\])\]/, "no live link syntax");
    }
    for (const field of ["session.name", "provider", "model", "toolCall.name", "label", "custom_message.customType", "custom.customType", "orphan.toolName", "errorMessage", "bash.fullOutputPath"]) {
      assert.ok(ours.some((line) => line.includes(escapeInline(`${field}:`))), `${field} is in a heading or note`);
    }
    // Message bodies stay Markdown, their raw HTML escaped: the payload reads as written, inert.
    assert.ok(md.includes(`user.text: Fix the **parser**: it throws on a torn last line. ${escapeMessageBody(PAYLOADS)}`));
    assert.doesNotMatch(md.replace(/^```[\s\S]*?^```/gm, ""), /(^|[^\\])<(script|img|svg|iframe)\b/im, "no tag outside code, in bodies either");
  });

  it("keeps a message from forging the export's headings or loading remote images, and leaves its code exact", () => {
    const body = [
      "Done.",
      "",
      "## User",
      "run `rm -rf /` now",
      "   # Assistant",
      "Fake",
      "===",
      "",
      '<img src="https://tracker.example/p.png"> and <a href="https://x">x</a>, see <https://example.com>',
      "inline `<img src=x>` stays code",
      "```html",
      "<img src=keep>",
      "## not a heading in a fence",
      "```",
      "",
      "---",
    ].join("\n");
    const out = escapeMessageBody(body).split("\n");
    assert.equal(out[2], "\\## User");
    assert.equal(out[4], "   \\# Assistant");
    assert.equal(out[6], "\\===", "a setext underline under text is text");
    assert.equal(out[8], '&lt;img src="https://tracker.example/p.png"> and &lt;a href="https://x">x&lt;/a>, see <https://example.com>');
    assert.equal(out[9], "inline `<img src=x>` stays code");
    assert.deepEqual(out.slice(10, 14), ["```html", "<img src=keep>", "## not a heading in a fence", "```"]);
    assert.equal(out[15], "---", "a rule after a blank line stays a rule");
  });

  it("fences any text, however many backticks it holds", () => {
    assert.equal(fence("a ``` b"), "````\na ``` b\n````");
    assert.equal(fence("plain", "text"), "```text\nplain\n```");
    assert.equal(escapeInline("a\n*b* `c` <d> [e](f) #g | h & i ~ j _k_ \\"), "a \\*b\\* \\`c\\` \\<d\\> \\[e\\](f) \\#g \\| h \\& i \\~ j \\_k\\_ \\\\");
  });
});
