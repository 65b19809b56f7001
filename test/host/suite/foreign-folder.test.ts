/**
 * A session whose working folder lies outside the open workspace, in the real extension host
 * (issue 20.2): that folder's `.pi/extensions/x.ts` (which writes a marker file the moment it is
 * loaded) does not run when the session is opened, not while the folder question is open and not
 * after Deny (the Extensions list says why); after "Allow for This Session" it loads. The dialog is
 * answered through the test seam (ARBOR_TEST_HOOKS=1), which sees what the modal would show.
 */
import { strict as assert } from "node:assert";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import type { ApprovalDialog, ApprovalPresenter } from "../../../src/extension/tool-approvals";
import { sessionDirFor } from "../../support/sample-sessions";

interface Api {
  readonly testing?: {
    readonly agentSession: AgentSession | undefined;
    readonly piExtensions: PiExtensions;
    interceptApprovals(presenter: ApprovalPresenter): vscode.Disposable;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("a session folder outside the workspace: its extensions wait for the folder question (issue 20.2)", function () {
  this.timeout(90_000);
  let hooks: NonNullable<Api["testing"]>;
  let stranger: string;
  let marker: string;
  let sessionFile: string;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    hooks = ((await ext.activate()) as Api).testing!;
    assert.ok(hooks, "the runner sets ARBOR_TEST_HOOKS=1");
    // A stranger's project, outside the open workspace, with an extension that leaves a marker when loaded.
    stranger = mkdtempSync(join(tmpdir(), "arbor-stranger-"));
    marker = join(stranger, "extension-ran.txt");
    mkdirSync(join(stranger, ".pi", "extensions"), { recursive: true });
    writeFileSync(
      join(stranger, ".pi", "extensions", "x.ts"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport default function () {}\n`,
    );
    // Its session, in Pi's sessions folder as "All Workspaces" lists it.
    const dir = sessionDirFor(process.env.PI_CODING_AGENT_DIR!, stranger);
    mkdirSync(dir, { recursive: true });
    const id = randomUUID();
    const now = new Date().toISOString();
    sessionFile = join(dir, `${now.replace(/[:.]/g, "-")}_${id}.jsonl`);
    const header = { type: "session", version: 3, id, timestamp: now, cwd: stranger };
    const message = { type: "message", id: "a1b2c3d4", parentId: null, timestamp: now, message: { role: "user", content: "hello", timestamp: Date.now() } };
    writeFileSync(sessionFile, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
  });

  after(async () => {
    // Leave a session of the workspace for the suites that follow.
    await vscode.commands.executeCommand("arbor.newSession");
    rmSync(sessionFile, { force: true });
    rmSync(stranger, { recursive: true, force: true });
  });

  /** Answers the dialogs with `title`, recording each and whether the marker existed when it was shown. */
  function answerWith(title: string): { seen: { dialog: ApprovalDialog; markerThen: boolean }[]; dispose(): void } {
    const seen: { dialog: ApprovalDialog; markerThen: boolean }[] = [];
    const seam = hooks.interceptApprovals((dialog) => {
      seen.push({ dialog, markerThen: existsSync(marker) });
      return title;
    });
    return { seen, dispose: () => seam.dispose() };
  }

  const opened = () => hooks.agentSession?.sessionManager.getSessionFile() === sessionFile;
  const states = () => hooks.piExtensions.statuses().filter((s) => s.extension.path.startsWith(stranger)).map((s) => s.state);

  it("opening it asks first, naming the extension; Deny leaves the extension unloaded and says why", async () => {
    const dialogs = answerWith("Deny");
    try {
      await vscode.commands.executeCommand("arbor.resumeSession", sessionFile);
      await until(opened, "the stranger's session to open");
    } finally {
      dialogs.dispose();
    }
    assert.equal(dialogs.seen.length, 1, dialogs.seen.map((s) => s.dialog.message).join("\n"));
    const [{ dialog, markerThen }] = dialogs.seen as [{ dialog: ApprovalDialog; markerThen: boolean }];
    assert.equal(dialog.message, "This session works in a folder outside the open workspace");
    assert.ok(dialog.detail.includes(join(stranger, ".pi", "extensions", "x.ts")), dialog.detail);
    assert.equal(markerThen, false, "nothing had run when the question was asked");
    assert.equal(existsSync(marker), false, "denied: the stranger's extension never ran");
    assert.deepEqual(states(), ["failed"]);
    assert.match(hooks.piExtensions.statuses().find((s) => s.extension.path.startsWith(stranger))!.loadError!, /^Not loaded: this session's folder/);
  });

  it("opening it again and allowing the folder loads the extension, only after the answer", async () => {
    await vscode.commands.executeCommand("arbor.newSession");
    const dialogs = answerWith("Allow for This Session");
    try {
      await vscode.commands.executeCommand("arbor.resumeSession", sessionFile);
      await until(opened, "the stranger's session to open");
      await until(() => existsSync(marker), "the allowed extension to load");
    } finally {
      dialogs.dispose();
    }
    assert.deepEqual(dialogs.seen.map((s) => s.markerThen), [false]);
    assert.deepEqual(states(), ["loaded"]);
  });
});
