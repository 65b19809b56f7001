import type { ImageContent, TextContent, ToolCall, ToolResultMessage } from "../session/types";
import { OutputCapture } from "./output/output-capture";
import { type OutputLimits } from "./output/output-limits";
import type { ToolDefinition } from "./providers/provider";
import type { ToolGuard } from "./safety/tool-guard";
import type { ToolConfirmationRequest, ToolPolicy } from "./safety/tool-policy";
import type { ProcessGroups } from "./shell/process-groups";
import type { RipgrepLocator } from "./tools/ripgrep";
import type { AgentTool, ToolContext, ToolOutcome } from "./tools/tool";

export type { ToolConfirmationRequest, ToolPolicy } from "./safety/tool-policy";

/** Result texts the model reads when a call is not carried out. */
export const TOOL_MESSAGES = {
  cancelled: "The tool call was cancelled before it finished.",
  declined: (name: string) => `The user declined this ${name} call.`,
  disabled: (name: string) => `The tool "${name}" is disabled here.`,
  unknown: (name: string, available: string[]) =>
    `There is no tool named "${name}".${available.length ? ` Available tools: ${available.join(", ")}.` : " No tools are available."}`,
} as const;

export interface ToolRunOptions {
  cwd: string;
  signal: AbortSignal;
  limits: OutputLimits;
  allowShell: boolean;
  outputDirectory?: string;
  onUpdate?: (toolCallId: string, text: string) => void;
  /** Where shell tools track the process groups they start. */
  processGroups?: ProcessGroups;
}

/**
 * The registered tools under the host's policy and the safety rules of its guard: what the model
 * is offered, and how its calls run (refused, asked about, or carried out).
 */
export class ToolSet {
  private readonly byName = new Map<string, AgentTool>();
  private extensionTools: readonly AgentTool[] = [];
  private active: ReadonlySet<string> | undefined;

  constructor(
    private readonly builtins: readonly AgentTool[],
    private readonly guard: ToolGuard,
    private readonly getPolicy: () => ToolPolicy,
    /** Handed to every call, for search tools made without their own (extensions' Pi-made ones). */
    private readonly ripgrep?: RipgrepLocator,
  ) {
    this.index();
  }

  private get policy(): ToolPolicy {
    return this.getPolicy();
  }

  private index(): void {
    this.byName.clear();
    for (const tool of this.builtins) this.byName.set(tool.definition.name, tool);
    for (const tool of this.extensionTools) {
      const builtin = this.builtins.find((b) => b.definition.name === tool.definition.name);
      this.byName.set(tool.definition.name, builtin ? withSafetyOf(builtin, tool) : tool);
    }
  }

  /** Tools added by extensions; one named like a built-in tool replaces it (Pi's tool override). */
  setExtensionTools(tools: readonly AgentTool[]): void {
    this.extensionTools = [...tools];
    this.index();
  }

  /** Only these tools are offered and run (Pi's setActiveTools); undefined offers every tool. */
  setActiveTools(names: readonly string[] | undefined): void {
    this.active = names ? new Set(names) : undefined;
  }

  /** Every tool by name (an extension's override in place of the built-in), active or not. */
  allTools(): AgentTool[] {
    return [...this.byName.values()];
  }

  /** The names of the tools offered now. */
  activeToolNames(): string[] {
    return this.definitions().map((d) => d.name);
  }

  /** The enabled tools the host's restrictions allow here (also for the system prompt's snippets and guidelines). */
  offeredTools(): AgentTool[] {
    return [...this.byName.values()].filter((t) => !this.isDisabled(t) && this.guard.offers(t));
  }

  private isDisabled(tool: AgentTool): boolean {
    if (this.active && !this.active.has(tool.definition.name)) return true;
    return this.policy.disabledTools?.includes(tool.definition.name) === true;
  }

  /** The definitions sent to the model: the offered tools. */
  definitions(): ToolDefinition[] {
    return this.offeredTools().map((t) => t.definition);
  }

  /** Runs one call and returns its toolResult message; never throws. */
  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolResultMessage> {
    const outcome = await this.outcomeOf(call, options);
    const content = this.byName.get(call.name)?.capsOwnOutput ? outcome.content : await capContent(outcome.content, options);
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content,
      isError: outcome.isError === true,
      timestamp: Date.now(),
    };
    if (outcome.details !== undefined) message.details = outcome.details;
    return message;
  }

  /** The result recorded for a call that never ran because the run was stopped. */
  static cancelledResult(call: ToolCall): ToolResultMessage {
    return { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: TOOL_MESSAGES.cancelled }], isError: true, timestamp: Date.now() };
  }

  private async outcomeOf(call: ToolCall, options: ToolRunOptions): Promise<ToolOutcome> {
    const error = (text: string): ToolOutcome => ({ content: [{ type: "text", text }], isError: true });
    const tool = this.byName.get(call.name);
    if (!tool) return error(TOOL_MESSAGES.unknown(call.name, this.definitions().map((d) => d.name)));
    if (this.isDisabled(tool)) return error(TOOL_MESSAGES.disabled(call.name));
    const refusal = this.guard.refusalOf(tool);
    if (refusal) return error(refusal);
    if (options.signal.aborted) return error(TOOL_MESSAGES.cancelled);
    const args = call.arguments ?? {};
    if (this.needsConfirmation(call.name)) {
      const request: ToolConfirmationRequest = { toolCallId: call.id, toolName: call.name, args, cwd: options.cwd, signal: options.signal };
      let allowed = false;
      try {
        allowed = this.policy.confirm ? await this.policy.confirm(request) : false;
      } catch {
        allowed = false;
      }
      if (options.signal.aborted) return error(TOOL_MESSAGES.cancelled);
      if (!allowed) return error(TOOL_MESSAGES.declined(call.name));
    }
    const admission = await this.guard.admitCall(tool, call, options.signal);
    if (admission.refusal) return error(admission.refusal.cancelled || options.signal.aborted ? TOOL_MESSAGES.cancelled : admission.refusal.text);
    const context: ToolContext = {
      cwd: options.cwd,
      toolCallId: call.id,
      signal: options.signal,
      limits: options.limits,
      allowShell: options.allowShell,
      outputDirectory: options.outputDirectory,
      onUpdate: options.onUpdate ? (text) => options.onUpdate!(call.id, text) : undefined,
      processGroups: options.processGroups,
      commandTimeoutMs: this.policy.commandTimeoutMs,
      readableRoots: admission.readableRoots,
      ripgrep: this.ripgrep,
    };
    try {
      return await tool.execute(args, context);
    } catch (err) {
      return error(options.signal.aborted ? TOOL_MESSAGES.cancelled : err instanceof Error ? err.message : String(err));
    }
  }

  private needsConfirmation(name: string): boolean {
    const confirm = this.policy.confirmTools;
    return confirm === "all" || (Array.isArray(confirm) && confirm.includes(name));
  }
}

/**
 * An extension's tool that takes a built-in's name (Pi's tool override: a sandboxed `bash`, a
 * logging `write`) is held to the built-in's safety rules: a `bash` still asks before each command,
 * a `write` still asks before a write outside the workspace, and only a read-only tool that says so
 * itself stays available in Restricted Mode. Its own code and definition are untouched.
 */
function withSafetyOf(builtin: AgentTool, tool: AgentTool): AgentTool {
  const safety: Partial<AgentTool> = {
    runsShell: tool.runsShell === true || builtin.runsShell === true,
    readOnly: tool.readOnly === true && builtin.readOnly === true,
    writesFile: tool.writesFile ?? builtin.writesFile,
    readsPath: tool.readsPath ?? builtin.readsPath,
  };
  // Object.create keeps the tool's own prototype methods (`execute` may be one) and `this`.
  return Object.assign(Object.create(tool) as AgentTool, safety);
}

/** Any tool's text output is capped like a shell run's: the tail stays, the whole goes to a file. */
async function capContent(content: (TextContent | ImageContent)[], options: ToolRunOptions): Promise<(TextContent | ImageContent)[]> {
  const out: (TextContent | ImageContent)[] = [];
  for (const block of content) {
    if (block.type !== "text") {
      out.push(block);
      continue;
    }
    const bytes = Buffer.byteLength(block.text, "utf8");
    const lines = block.text.split("\n").length;
    if (bytes <= options.limits.maxBytes && lines <= options.limits.maxLines) {
      out.push(block);
      continue;
    }
    const capture = new OutputCapture({ limits: options.limits, directory: options.outputDirectory, prefix: "arbor-tool" });
    capture.append(block.text);
    const captured = await capture.finish();
    const note = captured.fullOutputPath ? `[Output cut to its last lines. Full output: ${captured.fullOutputPath}]` : "[Output cut to its last lines.]";
    out.push({ type: "text", text: `${note}\n${captured.output}` });
  }
  return out;
}
