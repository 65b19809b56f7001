import * as vscode from "vscode";
import type { AgentSessionConfig } from "../core/agent/agent-session";
import type { SessionManager } from "../core/session/session-manager";
import type { ModelService } from "./models/model-service";
import { vscodeRipgrep } from "./builtin-tools-config";
import { SECTION } from "./settings";

/**
 * What every agent session of this window gets: its models (every source, through the ModelService),
 * compaction settings, and no shell in an untrusted workspace.
 */
export function sessionConfig(models: ModelService, outputDirectory: string): (sm: SessionManager) => Promise<AgentSessionConfig> {
  return async () => {
    const c = vscode.workspace.getConfiguration(SECTION);
    return {
      ...(await models.sessionConfig()),
      allowShell: vscode.workspace.isTrusted,
      ripgrep: vscodeRipgrep(),
      outputDirectory,
      compaction: {
        enabled: c.get<boolean>("compaction.enabled", true),
        reserveTokens: c.get<number>("compaction.reserveTokens", 16384),
        keepRecentTokens: c.get<number>("compaction.keepRecentTokens", 20000),
      },
    };
  };
}
