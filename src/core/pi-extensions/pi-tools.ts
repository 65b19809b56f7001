/**
 * A tool an extension registered with `pi.registerTool` as one of Arbor's tools: offered to the
 * model (listed in the system prompt only with a promptSnippet, as in Pi), run through the same
 * tool runner as the built-in tools (so the same approvals apply), its arguments checked against
 * its TypeBox schema first, its `execute` called with Pi's convention.
 */
import { DEFAULT_OUTPUT_LIMITS } from "../agent/output/output-limits";
import type { AgentTool, ToolOutcome } from "../agent/tools/tool";
import type { ImageContent, TextContent } from "../session/types";
import { ARBOR_TOOL_SAFETY, type CarriedSafety, type PiTool } from "./builtin-tools";
import { runInToolScope } from "./tool-scope";

/** Checks and coerces arguments against a tool's schema (pi-ai's validateToolArguments); throws a message the model can act on. */
export type ArgumentValidator = (tool: { name: string; description: string; parameters: unknown }, call: { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }) => unknown;

/** A TypeBox schema as plain JSON Schema (TypeBox keeps its bookkeeping under symbols, which JSON drops). */
export function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  if (typeof schema !== "object" || schema === null) return { type: "object", properties: {} };
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** A snippet is one line of the tool list, as in Pi: line breaks and runs of spaces become one space; empty is none. */
function oneLine(snippet: unknown): string | undefined {
  if (typeof snippet !== "string") return undefined;
  const line = snippet.replace(/\s+/g, " ").trim();
  return line.length > 0 ? line : undefined;
}

/** Guidelines as Pi takes them: trimmed, empty ones dropped, each once. */
function guidelinesOf(guidelines: unknown): string[] | undefined {
  if (!Array.isArray(guidelines)) return undefined;
  return [...new Set(guidelines.filter((g): g is string => typeof g === "string").map((g) => g.trim()).filter((g) => g.length > 0))];
}

export interface PiToolBinding {
  /** The extension's name (the tool's source). */
  extension: string;
  /** Pi's ctx for the extension, made per call. */
  context(): unknown;
  validate?: ArgumentValidator;
}

/** The safety marks of Arbor's own tool that `tool` was made from (by Pi's factories), if any. */
function carriedSafety(tool: PiTool): CarriedSafety {
  const carried = (tool as { [ARBOR_TOOL_SAFETY]?: unknown })[ARBOR_TOOL_SAFETY];
  if (typeof carried !== "object" || carried === null) return {};
  const { runsShell, writesFile } = carried as CarriedSafety;
  return { ...(runsShell === true ? { runsShell } : {}), ...(typeof writesFile === "function" ? { writesFile } : {}) };
}

/**
 * Wraps a registered Pi tool as an Arbor tool. A tool made from Pi's createBashTool or
 * createWriteTool/createEditTool under another name keeps their rules: each command asks, and a
 * write asks when its file is protected or outside the workspace.
 */
export function adaptPiTool(tool: PiTool, binding: PiToolBinding): AgentTool {
  const parameters = jsonSchemaOf(tool.parameters);
  return {
    ...carriedSafety(tool),
    definition: { name: tool.name, description: String(tool.description ?? ""), parameters },
    promptSnippet: oneLine(tool.promptSnippet),
    promptGuidelines: guidelinesOf(tool.promptGuidelines),
    source: binding.extension,
    async execute(args, context): Promise<ToolOutcome> {
      let params: Record<string, unknown> = args;
      if (typeof tool.prepareArguments === "function") params = tool.prepareArguments(args) as Record<string, unknown>;
      if (binding.validate && tool.parameters) {
        params = binding.validate({ name: tool.name, description: String(tool.description ?? ""), parameters: tool.parameters }, {
          type: "toolCall",
          id: context.toolCallId,
          name: tool.name,
          arguments: params,
        }) as Record<string, unknown>;
      }
      const onUpdate = context.onUpdate
        ? (partial: { content?: { type: string; text?: string }[] }) => {
            const text = (partial?.content ?? []).map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
            if (text) context.onUpdate!(text);
          }
        : undefined;
      const scope = {
        cwd: context.cwd,
        allowShell: context.allowShell,
        limits: context.limits ?? DEFAULT_OUTPUT_LIMITS,
        outputDirectory: context.outputDirectory,
        processGroups: context.processGroups,
        commandTimeoutMs: context.commandTimeoutMs,
        readableRoots: context.readableRoots,
        ripgrep: context.ripgrep,
      };
      const result = await runInToolScope(scope, () => tool.execute(context.toolCallId, params, context.signal, onUpdate, binding.context()));
      const content = Array.isArray(result?.content) ? (result.content as (TextContent | ImageContent)[]) : [{ type: "text" as const, text: String(result ?? "") }];
      const outcome: ToolOutcome = { content };
      if (result?.details !== undefined) outcome.details = result.details;
      if (result?.isError === true) outcome.isError = true;
      return outcome;
    },
  };
}
