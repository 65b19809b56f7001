import * as vscode from "vscode";
import { isThinkingLevel } from "../../core/agent/model-selection";
import { parseModelKey, type ModelKey } from "../../core/models/default-model";
import { DEFAULT_ENDPOINT_LIMITS, type EndpointLimits } from "../../core/models/endpoint-guard";
import type { ThinkingLevel } from "../../core/session/types";

/** The `arbor.model.*` settings. */
export interface ModelSettings {
  /** `arbor.model.default` ("provider/id"), when set and well formed. */
  defaultModel: ModelKey | undefined;
  /** `arbor.model.defaultThinkingLevel`, when set. */
  defaultThinkingLevel: ThinkingLevel | undefined;
  /** `arbor.model.enabled`: patterns of the models cycling steps through, when set (not empty). */
  enabledModels: string[] | undefined;
  /** From `arbor.model.requestTimeout` (seconds). */
  limits: EndpointLimits;
}

export function readModelSettings(): ModelSettings {
  const c = vscode.workspace.getConfiguration("arbor.model");
  const level = c.get<string>("defaultThinkingLevel", "");
  const timeoutSeconds = c.get<number>("requestTimeout", DEFAULT_ENDPOINT_LIMITS.timeoutMs / 1000);
  return {
    defaultModel: parseModelKey(c.get<string>("default", "")),
    defaultThinkingLevel: isThinkingLevel(level) ? level : undefined,
    enabledModels: enabledPatterns(c.get<unknown>("enabled")),
    limits: {
      ...DEFAULT_ENDPOINT_LIMITS,
      timeoutMs: Number.isFinite(timeoutSeconds) && timeoutSeconds >= 10 ? timeoutSeconds * 1000 : DEFAULT_ENDPOINT_LIMITS.timeoutMs,
    },
  };
}

function enabledPatterns(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const patterns = value.filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return patterns.length > 0 ? patterns : undefined;
}

/** Fires when an `arbor.model.*` setting changes. */
export function onDidChangeModelSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration("arbor.model")) listener();
  });
}
