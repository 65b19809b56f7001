/**
 * Model cycling, as Pi's Ctrl+P, Shift+Ctrl+P and Shift+Tab: step the session's model through the
 * scoped models (`arbor.model.enabled`, else Pi's `enabledModels`; every usable model when neither
 * names any), and its thinking level through the levels the model takes. The keybindings act only
 * while the chat has focus (package.json); the backward one only on macOS, since elsewhere
 * Ctrl+Shift+P is the Command Palette.
 */
import * as vscode from "vscode";
import { THINKING_LEVELS } from "../../core/session/types";
import { nextInCycle, nextThinkingLevel, resolveModelScope } from "../../core/models/model-scope";
import { registerCommandSet } from "../register-commands";
import type { SessionHost } from "../session-host";
import type { ModelActions } from "./model-actions";
import type { ModelService } from "./model-service";

export const CYCLE_COMMAND_IDS = ["arbor.cycleModel", "arbor.cycleModelBackward", "arbor.cycleThinkingLevel"] as const;

/** Registers the cycling commands. */
export function registerCycleCommands(host: SessionHost, models: ModelService, actions: ModelActions, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const cycleModel = async (direction: "forward" | "backward"): Promise<string | undefined> => {
    await models.ready;
    // Models without a key are passed over, as Pi passes over models without credentials.
    const usable = models.entries().filter((entry) => !entry.keyMissing);
    const patterns = models.enabledModelPatterns();
    const scope = patterns.length > 0 ? resolveModelScope(patterns, usable) : usable.map((model) => ({ model, thinkingLevel: undefined }));
    const session = host.session;
    const current = session?.getModel() ?? models.defaultModel();
    const next = nextInCycle(
      scope.map((s) => s.model),
      current,
      direction,
    );
    if (!next) {
      const why = patterns.length > 0 ? `The scoped models (${patterns.join(", ")}) name no other usable model.` : "No other model is set up.";
      vscode.window.setStatusBarMessage(`$(sparkle) ${why}`, 4000);
      return undefined;
    }
    const levelBefore = session?.getThinkingLevel();
    if (!(await actions.useModel(next))) return undefined;
    // A level named in the pattern (`model:high`) is used; otherwise the session keeps its level, clamped.
    const level = scope.find((s) => s.model === next)?.thinkingLevel ?? levelBefore;
    if (session && !session.isDisposed() && level) session.setThinkingLevel(level);
    const applied = session && !session.isDisposed() ? session.getThinkingLevel() : undefined;
    vscode.window.setStatusBarMessage(`$(sparkle) Model: ${next.name}${applied ? ` · thinking: ${applied}` : ""}`, 4000);
    return `${next.provider}/${next.id}`;
  };

  const cycleThinkingLevel = async (): Promise<string | undefined> => {
    await models.ready;
    const session = host.session;
    if (!session || session.isDisposed()) {
      vscode.window.setStatusBarMessage("$(lightbulb) No session is open: Arbor: Set Thinking Level... sets the level new sessions start with.", 4000);
      return undefined;
    }
    const model = session.getModel();
    const levels = model?.thinkingLevels ?? [...THINKING_LEVELS];
    const next = nextThinkingLevel(levels, session.getThinkingLevel());
    if (!next) {
      vscode.window.setStatusBarMessage(`$(lightbulb) ${model?.name ?? "This model"} takes no thinking levels.`, 4000);
      return undefined;
    }
    session.setThinkingLevel(next);
    vscode.window.setStatusBarMessage(`$(lightbulb) Thinking: ${session.getThinkingLevel()}`, 4000);
    return session.getThinkingLevel();
  };

  return registerCommandSet(
    CYCLE_COMMAND_IDS,
    {
      "arbor.cycleModel": () => cycleModel("forward"),
      "arbor.cycleModelBackward": () => cycleModel("backward"),
      "arbor.cycleThinkingLevel": cycleThinkingLevel,
    },
    log,
  );
}
