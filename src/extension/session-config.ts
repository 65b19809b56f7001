import * as vscode from "vscode";
import type { AgentSessionConfig } from "../core/agent/agent-session";
import type { QueueMode } from "../core/agent/message-queue";
import { viewSettings, type LoadedResources } from "../core/resources";
import { isThinkingLevel } from "../core/agent/model-selection";
import type { SessionManager } from "../core/session/session-manager";
import type { ModelService } from "./models/model-service";
import { vscodeRipgrep } from "./builtin-tools-config";
import { SECTION } from "./settings";

/** An Arbor setting's value where the user set it (any scope), else undefined: then Pi's settings.json decides. */
function explicit<T>(c: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = c.inspect<T>(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

/**
 * What every agent session of this window gets: its models (every source, through the ModelService),
 * compaction settings, Pi's resources for its folder (read again before each prompt), and no shell in
 * an untrusted workspace. Arbor's own settings win where the user set them; else Pi's settings.json
 * (the user's, merged with the project's) gives compaction, the shell and the queue modes; else the defaults.
 */
export function sessionConfig(models: ModelService, outputDirectory: string, resources?: (cwd: string) => LoadedResources): (sm: SessionManager) => Promise<AgentSessionConfig> {
  return async (sm) => {
    const c = vscode.workspace.getConfiguration(SECTION);
    const loaded = resources?.(sm.getCwd()).settings;
    const pi = loaded?.view;
    // The project's own `.pi/settings.json` defaults (the user's are the ModelService's own, lower down).
    const project = loaded ? viewSettings(loaded.project) : undefined;
    const projectModel = project?.defaultProvider && project.defaultModel ? { provider: project.defaultProvider, id: project.defaultModel } : undefined;
    const projectLevel = project?.defaultThinkingLevel && isThinkingLevel(project.defaultThinkingLevel) ? project.defaultThinkingLevel : undefined;
    return {
      ...(await models.sessionConfig()),
      ...(projectModel ? { defaultModel: () => models.defaultModel(projectModel) } : {}),
      ...(projectLevel ? { defaultThinkingLevel: models.defaultThinkingLevel(projectLevel) } : {}),
      allowShell: vscode.workspace.isTrusted,
      ripgrep: vscodeRipgrep(),
      outputDirectory,
      ...(resources ? { resources } : {}),
      ...(pi?.shellPath ? { shellPath: pi.shellPath } : {}),
      // Read at each delivery, so that a changed setting applies to the next queued message.
      queueModes: () => {
        const chat = vscode.workspace.getConfiguration(SECTION);
        return { steeringMode: explicit<QueueMode>(chat, "chat.steeringMode"), followUpMode: explicit<QueueMode>(chat, "chat.followUpMode") };
      },
      compaction: {
        enabled: explicit<boolean>(c, "compaction.enabled") ?? pi?.compaction.enabled ?? true,
        reserveTokens: explicit<number>(c, "compaction.reserveTokens") ?? pi?.compaction.reserveTokens ?? 16384,
        keepRecentTokens: explicit<number>(c, "compaction.keepRecentTokens") ?? pi?.compaction.keepRecentTokens ?? 20000,
      },
    };
  };
}
