/**
 * Where Export Session may write a path it is given as an argument (issue 9.6 for exports): inside
 * the workspace or sessions folders only, links resolved, only export file types, never through a
 * link or a second name of another file, and not at all in Restricted Mode. Real folders and links.
 */
import * as assert from "node:assert/strict";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertExportTarget, ExportTargetError } from "../../src/core/export/export-target";
import { makeTempDir } from "../support/temp-dir";

describe("Export Session's target from an argument", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let workspace: string;
  let sessions: string;
  let outside: string;
  let rules: { roots: string[]; trusted: boolean };
  before(() => {
    tmp = makeTempDir();
    workspace = join(tmp.dir, "workspace");
    sessions = join(tmp.dir, "agent", "sessions");
    outside = join(tmp.dir, "home");
    for (const d of [join(workspace, "docs"), join(sessions, "--w--"), outside]) mkdirSync(d, { recursive: true });
    writeFileSync(join(outside, ".bashrc.md"), "the user's own file");
    symlinkSync(outside, join(workspace, "linked-out"));
    symlinkSync(join(outside, ".bashrc.md"), join(workspace, "notes.md"));
    linkSync(join(outside, ".bashrc.md"), join(workspace, "hard.md"));
    writeFileSync(join(workspace, "old.html"), "an earlier export");
    rules = { roots: [workspace, sessions], trusted: true };
  });
  after(() => tmp.cleanup());

  const refused = async (path: string, pattern: RegExp, r = rules) =>
    assert.rejects(assertExportTarget(path, r), (e: unknown) => e instanceof ExportTargetError && pattern.test(e.message));

  it("accepts export files in the workspace and the sessions folders, new or an earlier export", async () => {
    assert.equal(await assertExportTarget(join(workspace, "docs", "s.md"), rules), join(workspace, "docs", "s.md"));
    assert.equal(await assertExportTarget(join(workspace, "old.html"), rules), join(workspace, "old.html"));
    assert.equal(await assertExportTarget(join(sessions, "--w--", "s.markdown"), rules), join(sessions, "--w--", "s.markdown"));
  });

  it("refuses folders outside them, also through '..' and a linked folder", async () => {
    await refused(join(outside, "x.html"), /only inside the workspace or sessions folders .*choose another place in the save dialog/);
    await refused(join(workspace, "..", "home", "x.html"), /only inside the workspace or sessions folders/);
    await refused(join(workspace, "linked-out", "x.html"), /only inside the workspace or sessions folders/);
    await refused("/etc/x.md", /only inside the workspace or sessions folders/);
  });

  it("refuses a link or a hard link at the file, other file types, relative paths and missing folders", async () => {
    await refused(join(workspace, "notes.md"), /symbolic link/);
    await refused(join(workspace, "hard.md"), /more than one name/);
    await refused(join(workspace, "x.jsonl"), /only \.html, \.htm, \.md or \.markdown/);
    await refused(join(workspace, ".bashrc"), /only \.html/);
    await refused("docs/x.md", /must be absolute/);
    await refused(join(workspace, "nope", "x.md"), /does not exist/);
  });

  it("refuses every path in Restricted Mode (only the save dialog chooses there)", async () => {
    await refused(join(workspace, "docs", "s.md"), /in Restricted Mode an export is written only where you choose in the save dialog/, { ...rules, trusted: false });
  });
});
