/**
 * The HTML export's document: session text only inside the JSON data element (where it cannot
 * close the element or become markup) or escaped in the title; a strict CSP whose hashes match the
 * page's own script and style; the page's script inlined without changing what it does.
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as vm from "node:vm";
import { renderSessionExport, type ExportAssets } from "../../src/core/export";
import { inlineScriptText, renderExportHtml } from "../../src/core/export/export-html";
import { encodeExportData, parseExportPageData, EXPORT_DATA_ELEMENT_ID, type ExportPageData } from "../../src/core/export/page-data";
import { entryPath, indexEntries } from "../../src/core/export/page-model";
import { SessionManager } from "../../src/core/session/session-manager";
import type { SessionEntry } from "../../src/core/session/types";
import { exportAssets } from "../support/export-build";
import { PAYLOADS, writeExportFixture } from "../support/export-fixtures";
import { makeTempDir } from "../support/temp-dir";

const ASSETS: ExportAssets = { script: "document.body.dataset.ran = '1';", style: "body { color: black; }" };

/** The parts of an exported document, found the way an HTML parser finds them for this shape. */
function split(html: string): { csp: string; dataText: string; outside: string; scripts: string[]; styles: string[] } {
  const data = new RegExp(`<script type="application/json" id="${EXPORT_DATA_ELEMENT_ID}">([^]*?)</script>`).exec(html);
  assert.ok(data, "the data element is there");
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(csp, "the CSP meta is there");
  const outside = html.replace(data[0], "");
  const scripts = [...outside.matchAll(/<script>([^]*?)<\/script>/g)].map((m) => m[1]!);
  const styles = [...outside.matchAll(/<style>([^]*?)<\/style>/g)].map((m) => m[1]!);
  return { csp: csp[1]!.replace(/&#39;/g, "'"), dataText: data[1]!, outside, scripts, styles };
}

const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

async function hostileHtml(dir: string, assets = ASSETS): Promise<{ html: string; data: ExportPageData }> {
  const fixture = writeExportFixture(dir, { hostile: true });
  const sm = await SessionManager.open(fixture.file, { readOnly: true });
  const html = renderSessionExport(sm, { format: "html", generator: `Arbor <b>test</b>`, assets });
  const parsed = parseExportPageData(JSON.parse(split(html).dataText));
  assert.ok(typeof parsed !== "string", String(parsed));
  return { html, data: parsed };
}

describe("HTML export document", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("has a strict CSP: nothing but its own script and style by hash, images only from data:", async () => {
    const { html } = await hostileHtml(tmp.dir);
    const { csp, scripts, styles } = split(html);
    assert.deepEqual(scripts, [ASSETS.script]);
    assert.deepEqual(styles, [ASSETS.style]);
    assert.equal(csp, `default-src 'none'; script-src ${sha(ASSETS.script)}; style-src ${sha(ASSETS.style)}; img-src data:; base-uri 'none'; form-action 'none'`);
    assert.doesNotMatch(csp, /unsafe|\*|https?:|'self'/);
    // A meta CSP covers only what follows it: it must come before every style and script.
    const at = html.indexOf("Content-Security-Policy");
    assert.ok(at > 0 && at < html.indexOf("<style>") && at < html.indexOf("<script"), "CSP first");
  });

  it("keeps hostile text of every field inside the data element, where it cannot close the element or become markup", async () => {
    const { html, data } = await hostileHtml(tmp.dir);
    const { dataText, outside } = split(html);
    assert.doesNotMatch(dataText, /[<>&\u2028\u2029]/, "no character of the data can start a tag, an entity or end the element");
    // Outside the data: our own markup only. Session text appears just once, in the escaped title.
    assert.equal((outside.match(/<script/g) ?? []).length, 1, "only the page's own script");
    for (const bad of [/<img/i, /<svg/i, /<iframe/i, /onerror=/i, /onload=/i, /javascript:/i, /<a /i, /<details/i, /<meta http-equiv="refresh"/i, /__pwned/]) {
      const title = /<title>([^]*?)<\/title>/.exec(outside)![1]!;
      assert.doesNotMatch(outside.replace(title, ""), bad, `${bad} outside the data and title`);
      assert.doesNotMatch(title, /[<>"]/, "the title is escaped");
    }
    assert.ok(outside.includes('content="Arbor &#60;b&#62;test&#60;/b&#62;"'), "the generator is escaped too");
    // ...and the data is complete: every hostile field reaches the page intact.
    const json = JSON.stringify(data);
    for (const field of ["session.name", "user.text", "thinking", "toolCall.name", "toolCall.args.path", "toolCall.args.key", "toolResult.text", "details.diff", "bash.command", "bash.output", "bash.fullOutputPath", "custom_message.customType", "custom.customType", "custom.state", "label", "compaction.summary", "compaction.readFile", "branch_summary", "errorMessage", "model_change.provider", "unknown.note"]) {
      assert.ok(json.includes(JSON.stringify(`${field}: `).slice(1, -1)), `${field} is in the data`);
    }
    assert.ok(json.includes(JSON.stringify(PAYLOADS).slice(1, -1)), "the payload survives byte for byte");
    assert.equal(data.session.cwd.endsWith(PAYLOADS), true);
  });

  it("encodes data that JSON.parse reads back unchanged, whatever the strings hold", () => {
    const nasty = ["</script>", "<!--", "<script>", "]]>", "&amp;", "\u2028\u2029", "\ud800 lone surrogate", "\u0000\u001b[31m", "</SCRIPT >"];
    const data: ExportPageData = {
      version: 1,
      generator: nasty.join(" "),
      exportedAt: "2026-01-01T00:00:00.000Z",
      session: { id: nasty[0]!, name: nasty[1]!, cwd: nasty[2]!, startedAt: "x", fileName: nasty[3]! },
      leafId: null,
      entries: nasty.map((n, i) => ({ type: "message", id: `${i}${n}`, parentId: null, timestamp: n, message: { role: "user", content: n, timestamp: 0 } }) as SessionEntry),
      labels: [{ targetId: nasty[4]!, label: nasty[5]! }],
      badLines: 2,
    };
    const text = encodeExportData(data);
    assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(data)));
    assert.deepEqual(parseExportPageData(JSON.parse(text)), JSON.parse(JSON.stringify(data)));
  });

  it("rejects malformed page data with a reason, and drops entries it cannot place", () => {
    assert.equal(typeof parseExportPageData(null), "string");
    assert.equal(typeof parseExportPageData({ version: 99 }), "string");
    const ok = { version: 1, generator: "g", exportedAt: "t", session: { id: "s", name: null, cwd: "/", startedAt: "t", fileName: null }, leafId: "a", entries: [{ id: "a", type: "message", parentId: null }, { type: "x" }, "junk", { id: 5, type: "y" }], labels: [{ targetId: "a", label: "l" }, { targetId: 1 }], badLines: 0 };
    const parsed = parseExportPageData(ok);
    assert.ok(typeof parsed !== "string");
    assert.deepEqual(parsed.entries.map((e) => e.id), ["a"]);
    assert.deepEqual(parsed.labels, [{ targetId: "a", label: "l" }]);
  });

  it("walks a path from any leaf, stopping at a missing parent and at a cycle", () => {
    const e = (id: string, parentId: string | null) => ({ type: "custom", customType: "t", id, parentId, timestamp: "" }) as SessionEntry;
    const byId = indexEntries([e("a", null), e("b", "a"), e("c", "b"), e("x", "missing"), e("p", "q"), e("q", "p")]);
    assert.deepEqual(entryPath(byId, "c").map((x) => x.id), ["a", "b", "c"]);
    assert.deepEqual(entryPath(byId, "x").map((x) => x.id), ["x"]);
    assert.deepEqual(entryPath(byId, "p").map((x) => x.id), ["q", "p"]);
    assert.deepEqual(entryPath(byId, "nope"), []);
    assert.deepEqual(entryPath(byId, null), []);
  });

  it("inlines a script without changing what it does, leaving no sequence that could end or escape the element", () => {
    const programs = [
      `["a<!--b", '</script><script>', "</SCRIPT>"]`,
      "`<!--${1 + 1}</script>`",
      `[/<!--(?:-?>|[^]*?-->)/.test("<!-- x -->"), /<\\/script/i.test("</Script")]`,
      `["\\<!--", "\\\\<!--", /\\<!--/.test("<!--"), /[<]!--/.test("<!--")]`,
      `/* <!-- and </script> in a comment */ 1 + 1`,
      `"line\\r\\nbreak"`,
    ];
    for (const program of programs) {
      const inlined = inlineScriptText(program);
      assert.doesNotMatch(inlined, /<!--|<\/script/i, program);
      assert.equal(JSON.stringify(vm.runInNewContext(inlined)), JSON.stringify(vm.runInNewContext(program)), program);
    }
  });

  it("inlines the real page bundle (marked, DOMPurify, highlight.js carry <!-- in their patterns)", async () => {
    const assets = await exportAssets(tmp.dir);
    assert.match(assets.script, /<!--/, "the raw bundle holds the sequence the inliner must neutralise");
    const { html } = await hostileHtml(tmp.dir, assets);
    const { scripts, csp } = split(html);
    assert.equal(scripts.length, 1);
    assert.doesNotMatch(scripts[0]!, /<!--|<\/script/i);
    assert.ok(csp.includes(`script-src ${sha(scripts[0]!)}`), "the hash is of what the page holds");
  });

  it("refuses a stylesheet that would end its element", () => {
    const fixture = { version: 1 } as unknown as ExportPageData;
    assert.throws(() => renderExportHtml({ ...fixture, session: { id: "s", name: null, cwd: "/", startedAt: "", fileName: null }, entries: [], labels: [], leafId: null, generator: "", exportedAt: "", badLines: 0 }, { script: "", style: "a{}</style><script>x</script>" }), /style/);
  });
});
