/**
 * How a markdown text is cut for drawing (webview/shared/markdown-sections.ts): a tame text is one
 * section, a long one is cut at block boundaries without losing a character, deep nesting and
 * overlong lines are plain text, and a streaming text settles only past its last complete block.
 */
import * as assert from "node:assert/strict";
import { MAX_DEPTH, markdownSections, nestingDepth, PLAIN_CHARS, SECTION_BLOCKS, SECTION_CHARS, settledEnd, type MarkdownSection } from "../../webview/shared/markdown-sections";

/** The characters of the sections, blank lines between blocks left out. */
const squash = (text: string): string => text.replace(/\s+/g, "");
const joined = (sections: MarkdownSection[]): string => sections.map((s) => (s.kind === "code" ? s.text : s.text)).join("");

describe("markdown sections", () => {
  it("keeps a short, tame text whole (parsed as one, so its markdown means what it says)", () => {
    const text = "# Title\n\n- a\n  - b\n\n[ref]: https://example.com\n\n```ts\nconst a = 1;\n```";
    assert.deepEqual(markdownSections(text), [{ kind: "markdown", text }]);
    assert.deepEqual(markdownSections(""), []);
  });

  it("cuts a long text at blank lines into sections under the limit, keeping every character", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `Paragraph ${i} with *some* text.`).join("\n\n");
    const sections = markdownSections(text);
    assert.ok(sections.length > 10);
    assert.ok(sections.every((s) => s.kind === "markdown" && s.text.length <= SECTION_CHARS));
    assert.equal(squash(joined(sections)), squash(text));
  });

  it("cuts dense markup (emphasis runs, table cells) four times smaller, and groups at most SECTION_BLOCKS short blocks", () => {
    const emphasis = `${"*a".repeat(40)}\n`.repeat(400);
    const dense = markdownSections(emphasis);
    assert.ok(dense.every((s) => s.kind === "markdown" && s.text.length <= SECTION_CHARS / 4), `longest ${Math.max(...dense.map((s) => s.text.length))}`);
    assert.equal(squash(joined(dense)), squash(emphasis));
    const table = `| a | b |\n| - | - |\n${"| x | y |\n".repeat(2000)}`;
    assert.ok(markdownSections(table).every((s) => s.text.length <= SECTION_CHARS / 4));
    const prose = `${"A long line of plain words that carries no markup at all, written out. ".repeat(2)}\n`.repeat(200);
    assert.ok(markdownSections(prose).some((s) => s.text.length > SECTION_CHARS / 2), "plain prose keeps the wide cut");
    const short = Array.from({ length: 2000 }, (_, i) => `p${i}`).join("\n\n");
    const groups = markdownSections(short);
    assert.ok(groups.every((s) => s.text.split("\n\n").length <= SECTION_BLOCKS));
    assert.equal(squash(joined(groups)), squash(short));
  });

  it("makes a long fence one code section with its info string, blank lines inside it kept", () => {
    const code = Array.from({ length: 1000 }, (_, i) => (i % 10 === 0 ? "" : `let x${i} = ${i};`)).join("\n");
    const sections = markdownSections(`intro\n\n\`\`\`ts title\n${code}\n\`\`\`\n\nafter`);
    assert.deepEqual(
      sections.map((s) => s.kind),
      ["markdown", "code", "markdown"],
    );
    assert.deepEqual(sections[1], { kind: "code", text: code, info: "ts title" });
    // Unclosed: the code runs to the end.
    const open = markdownSections(`~~~\n${code}`);
    assert.deepEqual(open, [{ kind: "code", text: code, info: "" }]);
  });

  it("cuts a long block at line breaks, and shows a line longer than the limit as plain text", () => {
    const lines = Array.from({ length: 800 }, (_, i) => `- item ${i}`).join("\n");
    const sections = markdownSections(lines);
    assert.ok(sections.length > 1 && sections.every((s) => s.kind === "markdown" && s.text.length <= SECTION_CHARS));
    const line = "_a".repeat(10_000);
    const pieces = [];
    for (let i = 0; i < line.length; i += PLAIN_CHARS) pieces.push({ kind: "plain", text: line.slice(i, i + PLAIN_CHARS) });
    assert.ok(pieces.length > 1);
    assert.deepEqual(markdownSections(`short\n${line}\nshort again`), [{ kind: "markdown", text: "short" }, ...pieces, { kind: "markdown", text: "short again" }]);
  });

  it("shows a block nested deeper than the limit as plain text, even when it is short", () => {
    assert.equal(nestingDepth("> > - 1. text"), 4);
    assert.equal(nestingDepth("        code"), 2);
    const deep = `${">".repeat(MAX_DEPTH + 1)} x`;
    assert.deepEqual(markdownSections(`a\n\n${deep}\n\nb`), [{ kind: "markdown", text: "a" }, { kind: "plain", text: deep }, { kind: "markdown", text: "b" }]);
    assert.deepEqual(markdownSections(`${">".repeat(MAX_DEPTH)} x`), [{ kind: "markdown", text: `${">".repeat(MAX_DEPTH)} x` }]);
  });

  it("settles a growing text after its last blank line outside a fence", () => {
    assert.equal(settledEnd("one\n\ntwo", 0), 5);
    assert.equal(settledEnd("one\n\ntwo\n\nthr", 0), 10);
    assert.equal(settledEnd("one\n\n```\na\n\nb", 0), 5, "a blank line inside an open fence settles nothing");
    assert.equal(settledEnd("one\n\n```\na\n\nb\n```\n\nc", 5), 19);
    assert.equal(settledEnd("no blank yet\n", 0), 0);
  });
});
