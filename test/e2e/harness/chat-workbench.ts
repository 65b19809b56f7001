/**
 * A workbench set up as a Pi user with a local model: a scratch folder holding the workspace, Pi's
 * agent folder (a models.json provider at the scripted OpenAI-compatible server) and a sessions
 * folder; the packaged extension in code-server; the Arbor side bar shown and the Chat's input
 * ready. What the chat end-to-end tests share before their own steps.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FrameLocator, Locator } from "playwright-core";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { chatView } from "./arbor-views";
import { SCRIPTED_MODEL, SCRIPTED_PROVIDER } from "./pi-user";
import { createScratchFolder } from "./sandbox";
import { openWorkbench, type WorkbenchSession } from "./session";

export interface ChatWorkbenchOptions {
  /** The models of the scripted provider in Pi's models.json (default: one plain model). */
  readonly models?: readonly Record<string, unknown>[];
  /** Writes what the test needs into the folders before the workbench starts. */
  readonly prepare?: (folders: { workspace: string; agentDir: string }) => void;
  /** User settings; `arbor.sessionsDirectory` is the scratch sessions folder unless given. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly viewport?: { width: number; height: number };
}

export interface ChatWorkbench {
  readonly workspace: string;
  readonly agentDir: string;
  readonly sessionDir: string;
  readonly server: ScriptedServer;
  readonly session: WorkbenchSession;
  chat(): FrameLocator;
  input(): Locator;
  close(): Promise<void>;
}

export async function openChatWorkbench(label: string, options: ChatWorkbenchOptions = {}): Promise<ChatWorkbench> {
  const scratch = createScratchFolder(label);
  const workspace = join(scratch.path, "workspace");
  const agentDir = join(scratch.path, "agent");
  const sessionDir = join(scratch.path, "sessions");
  for (const dir of [workspace, agentDir, sessionDir]) mkdirSync(dir, { recursive: true });
  options.prepare?.({ workspace, agentDir });
  const server = await startScriptedServer();
  const provider = { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "local", models: options.models ?? [{ id: SCRIPTED_MODEL }] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { [SCRIPTED_PROVIDER]: provider } }));
  let session: WorkbenchSession;
  try {
    session = await openWorkbench({
      folder: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir },
      viewport: options.viewport ?? { width: 1400, height: 1000 },
      settings: { "arbor.sessionsDirectory": sessionDir, ...options.settings },
    });
  } catch (error) {
    await server.close();
    scratch.dispose();
    throw error;
  }
  const chat = (): FrameLocator => chatView(session.workbench);
  const input = (): Locator => chat().locator("textarea.input");
  await session.workbench.openViewContainer("Arbor");
  await session.workbench.runCommand("Arbor: Open Chat");
  await input().waitFor({ state: "visible" });
  return {
    workspace,
    agentDir,
    sessionDir,
    server,
    session,
    chat,
    input,
    close: async () => {
      await session.close();
      await server.close();
      scratch.dispose();
    },
  };
}
