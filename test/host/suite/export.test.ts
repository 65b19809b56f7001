/**
 * "Arbor: Export Session..." in a real extension host, on a genuine Pi sample session: HTML and
 * Markdown of the current session through the command (the questions answered by its argument),
 * the session file untouched, and a target that would overwrite a session refused. A path given as
 * an argument is written only inside the workspace or sessions folders (issue 9.6 for exports).
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import * as vscode from "vscode";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { SampleSessions } from "../../support/sample-sessions";
import { acceptInQuickPick, messagesShownBy, until } from "./host-helpers";

interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined };
}


function samples(): SampleSessions {
  const file = process.env.ARBOR_SAMPLE_SESSIONS;
  assert.ok(file, "ARBOR_SAMPLE_SESSIONS is not set by the runner");
  return JSON.parse(readFileSync(file, "utf8")) as SampleSessions;
}

describe("Arbor: Export Session in the extension host", function () {
  this.timeout(60_000);
  let s: SampleSessions;
  let sm: SessionManager;
  let out: string;
  before(async () => {
    s = samples();
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
    assert.ok(ext);
    const api = (await ext.activate()) as Api;
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    assert.ok(api.testing?.currentSession);
    sm = api.testing.currentSession;
    assert.equal(sm.getSessionFile(), s.mainFile);
    // Exports given a path go inside the workspace folder (anywhere else is refused).
    const workspace = process.env.ARBOR_HOST_WORKSPACE;
    assert.ok(workspace);
    out = mkdtempSync(join(workspace, "arbor-export-"));
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  const unchanged = () => ({ bytes: readFileSync(s.mainFile, "utf8"), mtime: statSync(s.mainFile).mtimeMs });

  it("exports the current path as Markdown", async () => {
    const before = unchanged();
    const target = join(out, "session.md");
    const written = await vscode.commands.executeCommand<string | undefined>("arbor.exportSession", { format: "md", path: target });
    assert.equal(written, target);
    const md = readFileSync(target, "utf8");
    assert.ok(md.startsWith(`# ${s.mainName}`), md.slice(0, 200));
    const leaf = sm.getLeafId()!;
    assert.ok(md.includes(`entries to ${leaf}`), "the path of the current leaf");
    const firstUser = sm.getBranch().find((e) => e.type === "message" && e.message.role === "user");
    assert.ok(firstUser && firstUser.type === "message" && firstUser.message.role === "user");
    const text = typeof firstUser.message.content === "string" ? firstUser.message.content : firstUser.message.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    assert.ok(md.includes(text.split("\n")[0]!), "the first user message is there");
    assert.deepEqual(unchanged(), before, "the session file is not written");
  });

  it("exports one self-contained HTML page of the whole tree, opening on the current leaf", async () => {
    const before = unchanged();
    const target = join(out, "session.html");
    const written = await vscode.commands.executeCommand<string | undefined>("arbor.exportSession", { format: "html", path: target });
    assert.equal(written, target);
    const html = readFileSync(target, "utf8");
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[^"]+; img-src data:/);
    const markup = html.replace(/(<script[^>]*>)[^]*?<\/script>/g, "$1</script>").replace(/<style>[^]*?<\/style>/g, "<style></style>");
    assert.doesNotMatch(markup, /<(script|link|img|iframe)[^>]+(src|href)=/i, "nothing loads from elsewhere");
    assert.equal((markup.match(/<script/g) ?? []).length, 2, "the data element and the page's own script");
    const data = JSON.parse(/<script type="application\/json" id="arbor-session-data">([^]*?)<\/script>/.exec(html)![1]!) as { leafId: string; entries: { id: string }[] };
    assert.equal(data.leafId, sm.getLeafId());
    assert.equal(data.entries.length, sm.getEntryCount(), "every entry, so any branch can be read");
    assert.deepEqual(unchanged(), before);
  });

  it("exports at another entry, and takes the format from the file name", async () => {
    const leaf = sm.getLeafId();
    const target = join(out, "abandoned.markdown");
    const written = await vscode.commands.executeCommand<string | undefined>("arbor.exportSession", { path: target, leafId: s.main.abandonedLeafId });
    assert.equal(written, target);
    assert.ok(readFileSync(target, "utf8").includes(`entries to ${s.main.abandonedLeafId}`));
    assert.equal(sm.getLeafId(), leaf, "exporting another path does not move the leaf");
  });

  it("asks for the format, then where to save, offering the workspace folder and the session's name", async () => {
    const folder = process.env.ARBOR_HOST_WORKSPACE;
    assert.ok(folder);
    const expected = join(folder, `${basename(s.mainFile, ".jsonl")}.md`);
    rmSync(expected, { force: true });
    const running = vscode.commands.executeCommand<string | undefined>("arbor.exportSession");
    await acceptInQuickPick("Export Session", /Markdown/);
    // The save dialog opens in the workbench, out of the host's sight: Enter (its default) until it
    // has taken it and the command has finished.
    let finished = false;
    void running.then(() => (finished = true), () => (finished = true));
    await until(async () => {
      if (!finished) await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      return finished;
    }, "the save dialog to take its default", 30_000);
    try {
      assert.equal(await running, expected);
      assert.ok(readFileSync(expected, "utf8").startsWith(`# ${s.mainName}`));
    } finally {
      rmSync(expected, { force: true });
    }
  });

  it("refuses to write over a session file and says so, leaving it intact", async () => {
    const before = unchanged();
    const written = await vscode.commands.executeCommand<string | undefined>("arbor.exportSession", { format: "md", path: s.mainFile });
    assert.equal(written, undefined);
    assert.deepEqual(unchanged(), before);
    assert.equal(await vscode.commands.executeCommand("arbor.exportSession", { format: "pdf", path: join(out, "x.pdf") }), undefined, "a bad format is an error, not a file");
  });

  it("refuses a path outside the workspace and sessions folders, a link out, and a non-file URI, and says why", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "arbor-export-out-"));
    try {
      symlinkSync(elsewhere, join(out, "link-out"));
      const attempts = [join(elsewhere, "x.md"), `file://${join(elsewhere, "y.html")}`, join(out, "link-out", "z.md"), join(out, "..", "..", "w.md")];
      for (const path of attempts) {
        const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.exportSession", { format: "md", path }));
        assert.match(shown.errors.join("\n"), /only inside the workspace or sessions folders .*choose another place in the save dialog/, path);
      }
      assert.equal(existsSync(join(elsewhere, "x.md")) || existsSync(join(elsewhere, "y.html")) || existsSync(join(elsewhere, "z.md")), false, "nothing written outside");
      const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.exportSession", { format: "md", path: "vscode-userdata:/settings.md" }));
      assert.match(shown.errors.join("\n"), /only as a file path/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
