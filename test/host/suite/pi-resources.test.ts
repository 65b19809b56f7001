/**
 * Pi's resources in a real extension host, through the scripted model server: a session's request
 * carries the user's and the project's AGENTS.md and the skill list; `/template args` and
 * `/skill:name` typed in the chat are expanded; the chat lists the templates and skills after "/"
 * and names the context files at its top.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { setPiProvider, until, useScriptedModel } from "./model-helpers";
import { RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly chat: ChatController;
    readonly piExtensions: { statuses(): { extension: { name: string; path: string }; state: string }[] };
  };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("Pi's resources in the extension host", function () {
  this.timeout(90_000);
  let arbor: Api;
  let server: ScriptedServer;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  const made: string[] = [];
  const chat = (): ChatController => arbor.testing!.chat;
  const workspace = (): string => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const agentDir = (): string => process.env.PI_CODING_AGENT_DIR!;
  const send = (text: string) => chat().receive(surface, { type: "send", text });
  const requestCount = () => server.requests.length;
  const messagesOf = (index: number) => (server.requests[index]!.body as { messages: { role: string; content: unknown }[] }).messages;
  const text = (content: unknown): string => (typeof content === "string" ? content : (content as { text?: string }[]).map((c) => c.text ?? "").join(""));
  const sendAndWait = async (prompt: string): Promise<{ system: string; user: string }> => {
    const before = requestCount();
    server.script(reply.text("done"));
    send(prompt);
    await until(() => requestCount() > before && arbor.testing!.agentSession?.isIdle() === true, `the reply to ${prompt}`);
    const messages = messagesOf(before);
    return { system: text(messages[0]!.content), user: text(messages.filter((m) => m.role === "user").at(-1)!.content) };
  };

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    const files: [string, string][] = [
      [join(agentDir(), "AGENTS.md"), "Global rule from the agent folder."],
      [join(workspace(), "AGENTS.md"), "Project rule from the workspace."],
      [join(agentDir(), "skills", "host-review", "SKILL.md"), "---\nname: host-review\ndescription: Reviews a change in the host test\n---\nReview body: check the error paths."],
      [join(workspace(), ".pi", "prompts", "host-fix.md"), "---\ndescription: Fix an issue\nargument-hint: <issue> [notes]\n---\nFix issue $1 ($@)."],
    ];
    for (const [path, content] of files) {
      write(path, content);
      made.push(path);
    }
    server = await startScriptedServer();
    await useScriptedModel("resources-endpoint", server.baseUrl);
    surface = new RecordingSurface();
    detach = chat().attach(surface);
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.currentSession !== undefined && chat().state().model?.id === "scripted-model", "a new session with the scripted model");
  });

  after(async () => {
    detach?.dispose();
    for (const path of made) rmSync(path, { force: true });
    rmSync(join(workspace(), ".pi", "prompts"), { recursive: true, force: true });
    rmSync(join(agentDir(), "skills", "host-review"), { recursive: true, force: true });
    rmSync(join(agentDir(), "git", "example.com"), { recursive: true, force: true });
    setPiProvider("resources-endpoint", undefined);
    await server?.close();
  });

  it("sends the context files, outermost first, and the skill list (not its body)", async () => {
    const { system } = await sendAndWait("hello");
    const global = system.indexOf(`## ${join(agentDir(), "AGENTS.md")}\n\nGlobal rule from the agent folder.`);
    const project = system.indexOf(`## ${join(workspace(), "AGENTS.md")}\n\nProject rule from the workspace.`);
    assert.ok(global >= 0 && project > global, system);
    assert.match(system, /<name>host-review<\/name>\s*<description>Reviews a change in the host test<\/description>/);
    assert.ok(!system.includes("Review body"), "the skill's body stays out of the system prompt");
    const info = chat().state().session;
    assert.deepEqual(info?.contextFiles.map((f) => f.path), [join(agentDir(), "AGENTS.md"), join(workspace(), "AGENTS.md")]);
    assert.equal(info?.contextFiles[1]?.label, "AGENTS.md");
  });

  it("expands /template args typed in the chat", async () => {
    const { user } = await sendAndWait('/host-fix 42 "with care"');
    assert.equal(user, "Fix issue 42 (42 with care).");
  });

  it("sends the skill's instructions for /skill:name args", async () => {
    const { user } = await sendAndWait("/skill:host-review the parser");
    assert.match(user, /^<skill name="host-review" location="[^"]+SKILL\.md">/);
    assert.ok(user.includes("Review body: check the error paths.") && user.endsWith("\n\nthe parser"), user);
  });

  it("lists the templates, with description and argument hint, and the skills after /", () => {
    const commands = chat().state().commands;
    assert.deepEqual(commands.find((c) => c.name === "host-fix"), { name: "host-fix", description: "Fix an issue", args: "<issue> [notes]", source: "prompt template" });
    assert.equal(commands.find((c) => c.name === "skill:host-review")?.description, "Reviews a change in the host test");
  });

  it("loads the extensions and skills of a Pi package that pi installed (the packages setting)", async () => {
    const root = join(agentDir(), "git", "example.com", "me", "host-pkg");
    write(join(root, "extensions", "host-pkg-ext.ts"), 'export default function (pi) { pi.registerCommand("host-pkg-hello", { description: "from a package", handler: async () => {} }); }\n');
    write(join(root, "skills", "host-pkg-skill", "SKILL.md"), "---\nname: host-pkg-skill\ndescription: A skill from a package\n---\nbody");
    const settingsFile = join(agentDir(), "settings.json");
    const before = (() => {
      try {
        return readFileSync(settingsFile, "utf8");
      } catch {
        return undefined;
      }
    })();
    write(settingsFile, JSON.stringify({ ...(before ? (JSON.parse(before) as object) : {}), packages: ["git:example.com/me/host-pkg"] }));
    try {
      await vscode.commands.executeCommand("arbor.newSession");
      await until(() => arbor.testing!.piExtensions.statuses().some((s) => s.extension.name === "host-pkg-ext" && s.state === "loaded"), "the package's extension to load");
      await until(() => chat().state().commands.some((c) => c.name === "host-pkg-hello"), "its command in the / list");
      assert.ok(chat().state().commands.some((c) => c.name === "skill:host-pkg-skill"), "the package's skill is offered");
    } finally {
      if (before === undefined) rmSync(settingsFile, { force: true });
      else writeFileSync(settingsFile, before);
    }
  });
});
