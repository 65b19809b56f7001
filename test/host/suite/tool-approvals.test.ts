/**
 * Tool approvals in a real extension host: a prompt through the configured model endpoint (the
 * scripted OpenAI-compatible server on 127.0.0.1) calls the bash tool, the approval dialog is
 * answered, and the command runs after Allow or not at all after Deny, with the denial in the file.
 * The dialog is answered through the test seam (ARBOR_TEST_HOOKS=1), which receives exactly what the
 * modal would show; the end-to-end tier clicks the real modal.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ApprovalDialog, ApprovalPresenter } from "../../../src/extension/tool-approvals";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { setPiProvider, useScriptedModel } from "./model-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    interceptApprovals(presenter: ApprovalPresenter): vscode.Disposable;
  };
}

interface RefEntry {
  type: string;
  message?: { role: string; toolCallId?: string; isError?: boolean; content?: { type: string; text?: string }[] };
}
const loadReference = () =>
  import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): { getEntries(): RefEntry[] } } }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function testing(): Promise<NonNullable<Api["testing"]>> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext);
  const api = (await ext.activate()) as Api;
  assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
  return api.testing;
}

/** What Pi reads back as the result of one tool call. */
async function toolResultInFile(file: string, toolCallId: string): Promise<{ isError: boolean; text: string }> {
  const { SessionManager } = await loadReference();
  const entry = SessionManager.open(file).getEntries().find((e) => e.type === "message" && e.message?.role === "toolResult" && e.message.toolCallId === toolCallId);
  assert.ok(entry?.message, `the file holds the result of ${toolCallId}`);
  return { isError: entry.message.isError === true, text: (entry.message.content ?? []).map((b) => b.text ?? "").join("") };
}

describe("tool approvals in the extension host", function () {
  this.timeout(90_000);
  const workspace = process.env.ARBOR_HOST_WORKSPACE!;
  const config = () => vscode.workspace.getConfiguration("arbor");
  let hooks: NonNullable<Api["testing"]>;
  let server: ScriptedServer;

  /** A fresh session in the workspace, built with the scripted model. */
  async function freshSession(): Promise<{ session: AgentSession; sm: SessionManager }> {
    const before = hooks.agentSession;
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => hooks.agentSession !== before && hooks.agentSession?.getModel()?.id === "scripted-model", "a new session with the scripted model");
    const session = hooks.agentSession!;
    return { session, sm: session.sessionManager };
  }

  /** Answers every dialog with `title`, keeping what was shown. */
  function answerWith(title: string | undefined): { seen: ApprovalDialog[]; dispose(): void } {
    const seen: ApprovalDialog[] = [];
    const seam = hooks.interceptApprovals((dialog) => {
      seen.push(dialog);
      return title;
    });
    return { seen, dispose: () => seam.dispose() };
  }

  before(async () => {
    hooks = await testing();
    server = await startScriptedServer();
    await useScriptedModel("approvals-endpoint", server.baseUrl);
  });

  after(async () => {
    setPiProvider("approvals-endpoint", undefined);
    await config().update("tools.autoApprove", undefined, vscode.ConfigurationTarget.Global);
    await config().update("tools.protectedPaths", undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it("a bash call asks, showing the exact command and folder, and runs after Allow", async () => {
    const { session, sm } = await freshSession();
    const dialogs = answerWith("Allow Once");
    server.script(reply.toolCall({ id: "call_allow", name: "bash", arguments: { command: "echo approved > approved.txt" } }), reply.text("Created it."));
    try {
      await session.prompt("Create approved.txt");
    } finally {
      dialogs.dispose();
    }
    assert.equal(dialogs.seen.length, 1);
    assert.equal(dialogs.seen[0]!.message, "The agent wants to run this command");
    assert.ok(dialogs.seen[0]!.detail.startsWith(`echo approved > approved.txt\n\nin ${workspace}\n`), dialogs.seen[0]!.detail);
    assert.deepEqual(dialogs.seen[0]!.buttons.map((b) => b.title), ["Allow Once", "Allow for This Session", "Deny"]);
    assert.equal(readFileSync(join(workspace, "approved.txt"), "utf8"), "approved\n");
    await sm.flush();
    assert.deepEqual(await toolResultInFile(sm.getSessionFile()!, "call_allow"), { isError: false, text: "(no output)" });
    rmSync(join(workspace, "approved.txt"));
  });

  it("Deny runs nothing and records the denial as the call's result, which the model reads next", async () => {
    const { session, sm } = await freshSession();
    const dialogs = answerWith("Deny");
    const requestsBefore = server.requests.length;
    server.script(reply.toolCall({ id: "call_deny", name: "bash", arguments: { command: "touch denied.txt" } }), reply.text("Understood."));
    try {
      await session.prompt("Create denied.txt");
    } finally {
      dialogs.dispose();
    }
    assert.equal(dialogs.seen.length, 1);
    assert.equal(existsSync(join(workspace, "denied.txt")), false, "the denied command did not run");
    await sm.flush();
    const result = await toolResultInFile(sm.getSessionFile()!, "call_deny");
    assert.equal(result.isError, true);
    assert.match(result.text, /^The user denied this command, so it did not run\./);
    assert.match(JSON.stringify(server.requests[requestsBefore + 1]!.body), /The user denied this command/);
  });

  it("closing the dialog without an answer is a denial", async () => {
    const { session, sm } = await freshSession();
    const dialogs = answerWith(undefined);
    server.script(reply.toolCall({ id: "call_dismissed", name: "bash", arguments: { command: "touch dismissed.txt" } }), reply.text("ok"));
    try {
      await session.prompt("Create dismissed.txt");
    } finally {
      dialogs.dispose();
    }
    assert.equal(existsSync(join(workspace, "dismissed.txt")), false);
    await sm.flush();
    assert.equal((await toolResultInFile(sm.getSessionFile()!, "call_dismissed")).isError, true);
  });

  it("a workspace's settings cannot turn approvals off; the user's settings can", async () => {
    const settingsFile = join(workspace, ".vscode", "settings.json");
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    // The timeout is a sentinel: once it reads 321, VS Code has loaded this file.
    writeFileSync(settingsFile, JSON.stringify({ "arbor.tools.autoApprove": "always", "arbor.tools.commandTimeout": 321 }));
    try {
      await until(() => config().get("tools.commandTimeout") === 321, "the workspace settings to load");
      const { session } = await freshSession();
      const dialogs = answerWith("Deny");
      server.script(reply.toolCall({ id: "call_ws", name: "bash", arguments: { command: "touch from-workspace.txt" } }), reply.text("ok"));
      try {
        await session.prompt("Create from-workspace.txt");
      } finally {
        dialogs.dispose();
      }
      assert.equal(dialogs.seen.length, 1, "the workspace's auto-approve was ignored: the user was asked");
      assert.equal(existsSync(join(workspace, "from-workspace.txt")), false);
    } finally {
      rmSync(join(workspace, ".vscode"), { recursive: true, force: true });
    }
    await until(() => config().get("tools.commandTimeout") === 600, "the workspace settings to go away");

    await config().update("tools.autoApprove", "commands", vscode.ConfigurationTarget.Global);
    const { session } = await freshSession();
    const dialogs = answerWith("Deny");
    server.script(reply.toolCall({ id: "call_user", name: "bash", arguments: { command: "touch from-user.txt" } }), reply.text("ok"));
    try {
      await session.prompt("Create from-user.txt");
    } finally {
      dialogs.dispose();
      await config().update("tools.autoApprove", undefined, vscode.ConfigurationTarget.Global);
    }
    assert.equal(dialogs.seen.length, 0, "the user's auto-approve let the command through without a dialog");
    assert.equal(existsSync(join(workspace, "from-user.txt")), true);
    rmSync(join(workspace, "from-user.txt"));
  });

  it("a write to .pi/extensions/ asks under the user's auto-approve 'always'; a workspace cannot unprotect it, the user can", async () => {
    const extension = join(workspace, ".pi", "extensions", "x.ts");
    const writeIt = (id: string) => reply.toolCall({ id, name: "write", arguments: { path: ".pi/extensions/x.ts", content: "export default function () {}\n" } });
    const settingsFile = join(workspace, ".vscode", "settings.json");
    await config().update("tools.autoApprove", "always", vscode.ConfigurationTarget.Global);
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ "arbor.tools.protectedPaths": { ".pi/**": false }, "arbor.tools.commandTimeout": 321 }));
    try {
      await until(() => config().get("tools.commandTimeout") === 321, "the workspace settings to load");
      const { session, sm } = await freshSession();
      const dialogs = answerWith("Deny");
      server.script(writeIt("call_protected"), reply.text("ok"));
      try {
        await session.prompt("Add an extension");
      } finally {
        dialogs.dispose();
      }
      assert.deepEqual(dialogs.seen.map((d) => d.message), ["The agent wants to write a protected file"]);
      assert.ok(dialogs.seen[0]!.detail.startsWith(`${extension}\n\nProtected by ".pi/**"`), dialogs.seen[0]!.detail);
      assert.deepEqual(dialogs.seen[0]!.buttons.map((b) => b.title), ["Allow Once", "Allow This File for This Session", "Deny"]);
      assert.equal(existsSync(extension), false);
      await sm.flush();
      assert.match((await toolResultInFile(sm.getSessionFile()!, "call_protected")).text, /^The user denied this write of .*x\.ts, a protected file/);
    } finally {
      rmSync(join(workspace, ".vscode"), { recursive: true, force: true });
    }
    await until(() => config().get("tools.commandTimeout") === 600, "the workspace settings to go away");

    await config().update("tools.protectedPaths", { ".pi/**": false }, vscode.ConfigurationTarget.Global);
    try {
      const { session } = await freshSession();
      const dialogs = answerWith("Deny");
      server.script(writeIt("call_unprotected"), reply.text("ok"));
      try {
        await session.prompt("Add an extension");
      } finally {
        dialogs.dispose();
      }
      assert.equal(dialogs.seen.length, 0, "the user's own setting took the pattern out");
      assert.equal(existsSync(extension), true);
    } finally {
      await config().update("tools.protectedPaths", undefined, vscode.ConfigurationTarget.Global);
      await config().update("tools.autoApprove", undefined, vscode.ConfigurationTarget.Global);
      rmSync(join(workspace, ".pi"), { recursive: true, force: true });
    }
  });
});
