/**
 * The built-in search tools and reads outside the folder in a real extension host: the model's
 * `grep` runs with the ripgrep VS Code ships and asks nothing; `arbor.tools.active` chooses what the
 * model is offered; a read outside the session's folder shows the read dialog and reads after Allow.
 * Prompts go through the scripted OpenAI-compatible server on 127.0.0.1; dialogs are answered
 * through the test seam (ARBOR_TEST_HOOKS=1), which receives what the modal would show.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PhotonImage } from "@silvia-odwyer/photon-node";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ToolResultMessage } from "../../../src/core/session/types";
import { vscodeRipgrepCandidates } from "../../../src/extension/builtin-tools-config";
import type { ApprovalDialog, ApprovalPresenter } from "../../../src/extension/tool-approvals";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { setPiProvider, useScriptedModel } from "./model-helpers";

interface Api {
  readonly testing?: {
    readonly agentSession: AgentSession | undefined;
    interceptApprovals(presenter: ApprovalPresenter): vscode.Disposable;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

function results(sm: SessionManager): ToolResultMessage[] {
  return sm.getBranch().flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
}
const textOf = (r: ToolResultMessage) => r.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("search tools and reads outside the folder in the extension host", function () {
  this.timeout(90_000);
  const workspace = process.env.ARBOR_HOST_WORKSPACE!;
  const config = () => vscode.workspace.getConfiguration("arbor");
  let hooks: NonNullable<Api["testing"]>;
  let server: ScriptedServer;
  let outside: string;

  async function freshSession(): Promise<{ session: AgentSession; sm: SessionManager }> {
    const before = hooks.agentSession;
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => hooks.agentSession !== before && hooks.agentSession?.getModel()?.id === "scripted-model", "a new session with the scripted model");
    return { session: hooks.agentSession!, sm: hooks.agentSession!.sessionManager };
  }

  function answerWith(title: string): { seen: ApprovalDialog[]; dispose(): void } {
    const seen: ApprovalDialog[] = [];
    const seam = hooks.interceptApprovals((dialog) => {
      seen.push(dialog);
      return title;
    });
    return { seen, dispose: () => seam.dispose() };
  }

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
    assert.ok(ext);
    const api = (await ext.activate()) as Api;
    assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    hooks = api.testing;
    server = await startScriptedServer();
    await useScriptedModel("search-endpoint", server.baseUrl);
    outside = realpathSync(mkdtempSync(join(tmpdir(), "arbor-outside-")));
    writeFileSync(join(outside, "elsewhere.md"), "words from elsewhere\n");
  });

  after(async () => {
    setPiProvider("search-endpoint", undefined);
    await config().update("tools.active", undefined, vscode.ConfigurationTarget.Global);
    await server.close();
    rmSync(outside, { recursive: true, force: true });
  });

  it("VS Code ships a ripgrep where Arbor looks for it", () => {
    assert.ok(vscodeRipgrepCandidates(vscode.env.appRoot).some((path) => existsSync(path)), `one of ${vscodeRipgrepCandidates(vscode.env.appRoot).join(", ")}`);
  });

  it("the model's grep call runs without a dialog and finds the line, skipping ignored files", async () => {
    const folder = join(workspace, "search-tools-test");
    mkdirSync(folder);
    writeFileSync(join(folder, "search-me.txt"), "alpha\nneedle-7f3 here\n");
    writeFileSync(join(folder, ".gitignore"), "ignored-*.txt\n");
    writeFileSync(join(folder, "ignored-search.txt"), "needle-7f3 ignored\n");
    const { session, sm } = await freshSession();
    const dialogs = answerWith("Deny");
    server.script(reply.toolCall({ id: "call_grep", name: "grep", arguments: { pattern: "needle-7f3", path: "search-tools-test" } }), reply.text("Found it."));
    try {
      await session.prompt("Where is the needle?");
    } finally {
      dialogs.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
    assert.equal(dialogs.seen.length, 0, "no approval for a search");
    const [grep] = results(sm);
    assert.equal(grep!.isError, false, textOf(grep!));
    assert.equal(textOf(grep!), "search-me.txt:2: needle-7f3 here");
  });

  it("arbor.tools.active chooses the built-in tools offered to the model", async () => {
    const bodyTools = (i: number) => ((server.requests[i]!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
    const { session } = await freshSession();
    server.script(reply.text("one"));
    await session.prompt("which tools?");
    assert.deepEqual(bodyTools(server.requests.length - 1), ["read", "write", "edit", "bash", "grep", "find", "ls"]);
    await config().update("tools.active", ["read", "grep"], vscode.ConfigurationTarget.Global);
    server.script(reply.text("two"));
    await session.prompt("and now?");
    assert.deepEqual(bodyTools(server.requests.length - 1), ["read", "grep"], "read on every request, no rebuild");
    await config().update("tools.active", undefined, vscode.ConfigurationTarget.Global);
  });

  it("an image read by the tool is scaled down as Pi scales it, with the codec the bundle carries", async () => {
    const pixels = new Uint8Array(2500 * 500 * 4).fill(200);
    const picture = new PhotonImage(pixels, 2500, 500);
    writeFileSync(join(workspace, "wide-test-image.png"), Buffer.from(picture.get_bytes()));
    picture.free();
    const { session, sm } = await freshSession();
    server.script(reply.toolCall({ id: "call_img", name: "read", arguments: { path: "wide-test-image.png" } }), reply.text("A grey strip."));
    try {
      await session.prompt("What is in the picture?");
    } finally {
      rmSync(join(workspace, "wide-test-image.png"));
    }
    const [read] = results(sm);
    assert.equal(read!.isError, false, textOf(read!));
    assert.match(textOf(read!), /shown at 2000x400/);
    assert.deepEqual(read!.details, { image: { originalWidth: 2500, originalHeight: 500, width: 2000, height: 400, mimeType: "image/png" } });
  });

  it("a read outside the session's folder shows the read dialog and reads the file after Allow", async () => {
    const { session, sm } = await freshSession();
    const dialogs = answerWith("Allow Once");
    const path = join(outside, "elsewhere.md");
    server.script(reply.toolCall({ id: "call_out", name: "read", arguments: { path } }), reply.text("Read it."));
    try {
      await session.prompt("Read the file elsewhere");
    } finally {
      dialogs.dispose();
    }
    assert.equal(dialogs.seen.length, 1);
    assert.equal(dialogs.seen[0]!.message, "The agent wants to read a file outside the workspace");
    assert.ok(dialogs.seen[0]!.detail.startsWith(`${path}\n`), dialogs.seen[0]!.detail);
    assert.deepEqual(dialogs.seen[0]!.buttons.map((b) => b.title), ["Allow Once", "Allow for This Session", "Deny"]);
    const [read] = results(sm);
    assert.equal(read!.isError, false);
    assert.equal(textOf(read!), "words from elsewhere\n");
  });
});
