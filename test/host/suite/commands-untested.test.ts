/**
 * Commands that had no test of their own, run as a user runs them in the real extension host:
 * Copy Text (the clipboard read back), Open Chat in Editor (a tab whose page starts) and Import Pi
 * Credentials (Pi's auth.json into SecretStorage after a confirmation, then used by a request).
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { reply, startScriptedServer } from "../../support/scripted-openai-server";
import { samples, until } from "./host-helpers";
import { filesUnder, modelApi, setPiProvider } from "./model-helpers";

type Prompt = (...args: unknown[]) => Thenable<unknown>;

/** Runs `run` with one of the window's prompts answered by `answer` (and restores it). */
async function answering<T>(name: "showWarningMessage", answer: Prompt, run: () => Thenable<T>): Promise<T> {
  const w = vscode.window as unknown as Record<string, Prompt>;
  const original = w[name]!;
  w[name] = answer;
  try {
    return await run();
  } finally {
    w[name] = original;
  }
}

/** The text of a message entry as the session file has it (a string, or its text blocks joined). */
function messageTextInFile(file: string, id: string): string {
  const entry = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id?: string; message?: { content: unknown } }).find((e) => e.id === id);
  assert.ok(entry?.message, `entry ${id} in ${file}`);
  const content = entry.message.content;
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text ?? "").join("\n\n");
}

describe("commands without a test before", function () {
  this.timeout(90_000);

  it("Copy Text puts the entry's text on the clipboard", async () => {
    const arbor = await modelApi();
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    await until(() => arbor.currentSession?.getSessionFile() === s.mainFile, "the main sample session to be open");
    const expected = messageTextInFile(s.mainFile, s.main.firstUserId);
    assert.ok(expected.length > 20, "a real message");
    await vscode.env.clipboard.writeText("something copied before");
    await vscode.commands.executeCommand("arbor.tree.copyText", s.main.firstUserId);
    assert.equal(await vscode.env.clipboard.readText(), expected);
  });

  it("Open Chat in Editor opens one chat tab whose page starts; running it again brings the same tab forward", async () => {
    const arbor = await modelApi();
    const chatTabs = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith("arbor.chatPanel"));
    assert.equal(chatTabs().length, 0, "no chat tab yet");
    const logFolder = dirname(arbor.logUri.fsPath);
    const started = () => filesUnder(logFolder, (name) => name.endsWith(".log")).reduce((n, file) => n + readFileSync(file, "utf8").split("\n").filter((line) => line.includes("the Chat tab page started")).length, 0);
    const startedBefore = started();
    await vscode.commands.executeCommand("arbor.openChatInEditor");
    await until(() => chatTabs().length === 1, "the chat's editor tab");
    assert.equal(chatTabs()[0]!.label, "Arbor Chat");
    // Its page ran its script and said so (Arbor logs each start of a page).
    await until(() => started() > startedBefore, "the chat tab's page to start", 30_000);
    await vscode.commands.executeCommand("workbench.action.focusFirstEditorGroup");
    await vscode.commands.executeCommand("arbor.openChatInEditor");
    await until(() => chatTabs()[0]?.isActive === true, "the chat tab to be brought forward");
    assert.equal(chatTabs().length, 1, "still one chat tab");
    await vscode.window.tabGroups.close(chatTabs());
    await until(() => chatTabs().length === 0, "the chat tab to close");
  });

  it("Import Pi Credentials asks first, then stores the API keys of Pi's auth.json, and requests use them", async () => {
    const arbor = await modelApi();
    const secret = "sk-imported-from-pi-42";
    const server = await startScriptedServer({ apiKey: secret });
    const authFile = join(process.env.PI_CODING_AGENT_DIR!, "auth.json");
    const savedAuth = existsSync(authFile) ? readFileSync(authFile, "utf8") : undefined;
    try {
      // A provider whose own key is a placeholder: only the imported one authorises it.
      setPiProvider("host-import", { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "placeholder", models: [{ id: "import-model" }] });
      await until(() => arbor.models.findEntry({ provider: "host-import", id: "import-model" }) !== undefined, "the models.json provider");
      writeFileSync(authFile, JSON.stringify({ "host-import": { type: "api_key", key: secret }, "host-subscription": { type: "oauth", access: "a", refresh: "b", expires: 1 } }));
      const asked: { message: string; detail: string }[] = [];
      const record = (message: unknown, options: unknown) => asked.push({ message: String(message), detail: String((options as { detail?: string } | undefined)?.detail ?? "") });
      await answering("showWarningMessage", (message, options) => (record(message, options), Promise.resolve(undefined)), () => vscode.commands.executeCommand("arbor.importPiCredentials"));
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.message, `Import 1 API key from ${authFile}?`);
      assert.match(asked[0]!.detail, /Skipped: host-subscription \(a subscription login this version of Arbor cannot use\)/);
      assert.equal(arbor.models.keys.has("host-import"), false, "cancelled: nothing stored");
      assert.equal(await answering("showWarningMessage", () => Promise.resolve("Import"), () => vscode.commands.executeCommand<number>("arbor.importPiCredentials")), 1);
      assert.equal(arbor.models.keys.has("host-import"), true);
      await until(() => arbor.models.findEntry({ provider: "host-import", id: "import-model" })?.keyFrom === "a key stored in Arbor", "the model to use the stored key");
      assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "host-import", id: "import-model" }), true);
      server.script(reply.text("authorised by the imported key"));
      const result = await arbor.agentSession!.prompt("hello");
      assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
      assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${secret}`);
      assert.equal(readFileSync(authFile, "utf8").includes(secret), true, "Pi's file is left as it was");
    } finally {
      await arbor.models.keys.set("host-import", "");
      setPiProvider("host-import", undefined);
      if (savedAuth === undefined) rmSync(authFile, { force: true });
      else writeFileSync(authFile, savedAuth);
      await server.close();
    }
  });
});
