import * as vscode from "vscode";
import type { AgentSession } from "../../core/agent/agent-session";
import { AgentError } from "../../core/agent/errors";
import { BUILTIN_SLASH_COMMANDS, parseSlashCommand } from "../../core/agent/slash-commands";
import type { ModelInfo } from "../../core/agent/providers/provider";
import { THINKING_LEVELS, type ImageContent, type ThinkingLevel } from "../../core/session/types";
import type { SlashCommand } from "../../protocol/chat-messages";
import { pricesNow } from "../../core/models/model-prices";
import { sessionStatsOf, type SessionStats } from "../../core/session/session-stats";
import type { SessionHost } from "../session-host";
import { RESTRICTED_MODE_REASON } from "../tool-safety";
import { thinkingLevelsOf, type ChatActions } from "./chat-controller";

/** Said in the chat when no model is set, with the one-click way to add one next to it. */
export const NO_MODEL_TEXT = "No model is set up yet. Add one to chat: an API key, a local server (Ollama, LM Studio) or a VS Code chat model.";

/** Said in the chat of an untrusted workspace. */
export const RESTRICTED_TEXT = RESTRICTED_MODE_REASON;

/** Why the agent's tools are limited in this session (Restricted Mode, no working folder, a folder outside the workspace), or null. */
function restrictionText(session: AgentSession | undefined): string | null {
  const restrictions = session?.getToolRestrictions();
  if (restrictions?.reason) return restrictions.reason;
  if (restrictions?.foreignFolder) return `This session works in ${restrictions.foreignFolder}, outside the open workspace: the agent's tools ask before they run there.`;
  return vscode.workspace.isTrusted ? null : RESTRICTED_TEXT;
}

export interface ChatActionDeps {
  host: SessionHost;
  /** Whether any model could answer now (with no session open, the chat asks for one only when none can). */
  hasModel(): boolean;
  /** The model and level a new session would start with. */
  defaults?(): { model: ModelInfo | undefined; thinkingLevel: ThinkingLevel };
  /** Shows an entry in the Conversation Tree. */
  revealEntry(entryId: string): void;
  /** Shows the Conversation Tree where its view lives, the keyboard staying in the chat. */
  showTree?(): void;
  /** Extension commands (registered by Pi extensions), when any. */
  extensionCommands?: () => SlashCommand[];
  runExtensionCommand?: (name: string, args: string) => Promise<boolean>;
  /** Shows `/session`'s report in the chat. */
  showSessionStats?(stats: SessionStats): void;
  /** Whether `/name` is a Pi prompt template or `skill:` command: then the text is sent as a prompt (the session expands it). */
  isPromptCommand?: (name: string) => boolean;
}

/** Runs a VS Code command, or says it is not available (a command another part adds may be missing). */
async function run(command: string, ...args: unknown[]): Promise<void> {
  const known = await vscode.commands.getCommands(true);
  if (!known.includes(command)) throw new Error(`${command} is not available in this version of Arbor.`);
  await vscode.commands.executeCommand(command, ...args);
}

function lastReplyText(session: AgentSession): string | undefined {
  const sm = session.sessionManager;
  const path = sm.getPathIds();
  for (let i = path.length - 1; i >= 0; i--) {
    // Only assistant messages are read (a long path's other entries stay on disk).
    if (sm.getEntryRole(path[i]!) !== "assistant") continue;
    const e = sm.getEntry(path[i]!);
    if (e?.type === "message" && e.message.role === "assistant") {
      const text = e.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      if (text) return text;
    }
  }
  return undefined;
}

/**
 * What the chat's input does: prompts and `!cmd` go to the agent session (a session is started
 * first when none is open), `/commands` run Arbor's commands or an extension's.
 */
export function createChatActions(deps: ChatActionDeps): ChatActions {
  const { host } = deps;

  const ensureSession = async (): Promise<AgentSession> => {
    if (!host.session) {
      await host.create();
      // A session the chat started shows its tree too, as one opened from the Sessions list does.
      deps.showTree?.();
    }
    const session = host.session;
    if (!session) throw new Error("Could not start a session.");
    return session;
  };

  const prompt = async (text: string, images?: ImageContent[]): Promise<void> => {
    const session = await ensureSession();
    try {
      await session.prompt(text, images ? { images } : {});
    } catch (error) {
      if (error instanceof AgentError && error.code === "no-model") throw new Error(NO_MODEL_TEXT);
      throw error;
    }
  };

  const slash = async (name: string, args: string): Promise<void> => {
    switch (name) {
      case "compact":
        return run("arbor.compactSession", args);
      case "name": {
        if (!args) return run("arbor.renameSession");
        const session = await ensureSession();
        session.setSessionName(args);
        return;
      }
      case "new":
        return run("arbor.newSession");
      case "fork":
        return run("arbor.forkFromEntry");
      case "clone":
        return run("arbor.cloneSession");
      case "resume":
        return run("arbor.resumeSession");
      case "tree": {
        // Shown already, focusing it changes nothing one can see: the leaf is selected and scrolled to as well.
        await run("arbor.conversationTree.focus");
        const leaf = host.current?.getLeafId();
        if (leaf) deps.revealEntry(leaf);
        return;
      }
      case "model":
        return run("arbor.selectModel");
      case "thinking": {
        if (!args) return run("arbor.setThinkingLevel");
        const session = await ensureSession();
        const level = args.toLowerCase() as ThinkingLevel;
        if (!(THINKING_LEVELS as readonly string[]).includes(level)) throw new Error(`Unknown thinking level "${args}": use one of ${THINKING_LEVELS.join(", ")}.`);
        const offered = thinkingLevelsOf(session.getModel());
        if (!offered.includes(level)) throw new Error(`This model offers the thinking levels ${offered.join(", ")}.`);
        session.setThinkingLevel(level);
        return;
      }
      case "export":
        return run("arbor.exportSession", args ? { format: args } : undefined);
      case "copy": {
        const session = host.session;
        const text = session && lastReplyText(session);
        if (!text) throw new Error("There is no reply to copy yet.");
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage("$(copy) Reply copied", 2000);
        return;
      }
      case "session": {
        const session = host.session;
        if (!session) throw new Error("No session is open: resume one or start a new one first.");
        deps.showSessionStats?.(await sessionStatsOf(session.sessionManager, pricesNow()));
        return;
      }
      default:
        if (deps.runExtensionCommand && (await deps.runExtensionCommand(name, args))) return;
        if (deps.isPromptCommand?.(name)) return prompt(args ? `/${name} ${args}` : `/${name}`);
        throw new Error(`Unknown command /${name}. Type / to see the commands.`);
    }
  };

  return {
    async send(text: string, images?: ImageContent[]): Promise<void> {
      const trimmed = text.trim();
      if (!trimmed) return;
      const command = trimmed.startsWith("/") ? parseSlashCommand(trimmed) : undefined;
      if (command) return slash(command.name, command.args);
      return prompt(text, images);
    },
    commands(): SlashCommand[] {
      return [...BUILTIN_SLASH_COMMANDS, ...(deps.extensionCommands?.() ?? [])];
    },
    pickModel: () => run("arbor.selectModel"),
    addModel: () => run("arbor.addModel"),
    revealEntry: deps.revealEntry,
    restriction: () => restrictionText(host.session),
    defaults: deps.defaults,
    noModelText: (session) => ((session ? session.getModel() : deps.hasModel()) ? null : NO_MODEL_TEXT),
  };
}
