import type { ImageContent, TextContent, ToolCall, ToolResultMessage } from "../session/types";
import { SHELL_DISABLED_MESSAGE } from "./errors";
import { OutputCapture } from "./output/output-capture";
import { type OutputLimits } from "./output/output-limits";
import type { ToolDefinition } from "./providers/provider";
import type { AgentTool, ToolContext, ToolOutcome } from "./tools/tool";

/** What the host is asked before a tool that needs confirmation runs. */
export interface ToolConfirmationRequest {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  cwd: string;
  signal: AbortSignal;
}

/** How the host restricts tools. */
export interface ToolPolicy {
  /** Tools neither offered to the model nor run. */
  disabledTools?: readonly string[];
  /** Tools that ask before every call: a list of names, or "all". */
  confirmTools?: readonly string[] | "all";
  /** Asks the user; false declines the call. Without it, calls that need confirmation are declined. */
  confirm?: (request: ToolConfirmationRequest) => boolean | Promise<boolean>;
}

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
}

/** The registered tools under the host's policy: what the model is offered, and how its calls run. */
export class ToolSet {
  private readonly byName = new Map<string, AgentTool>();
  private extensionTools: readonly AgentTool[] = [];
  private active: ReadonlySet<string> | undefined;

  constructor(
    private readonly builtins: readonly AgentTool[],
    private policy: ToolPolicy = {},
    private readonly allowShell = true,
  ) {
    this.index();
  }

  private index(): void {
    this.byName.clear();
    for (const tool of [...this.builtins, ...this.extensionTools]) this.byName.set(tool.definition.name, tool);
  }

  setPolicy(policy: ToolPolicy): void {
    this.policy = policy;
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

  /** The enabled tools themselves (for the system prompt's snippets and guidelines). */
  offeredTools(): AgentTool[] {
    return [...this.byName.values()].filter((t) => !this.isDisabled(t) && (this.allowShell || !t.runsShell));
  }

  private isDisabled(tool: AgentTool): boolean {
    if (this.active && !this.active.has(tool.definition.name)) return true;
    return this.policy.disabledTools?.includes(tool.definition.name) === true;
  }

  /** The definitions sent to the model: enabled tools, without shell tools when the shell is off. */
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
    if (tool.runsShell && !this.allowShell) return error(SHELL_DISABLED_MESSAGE);
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
    const context: ToolContext = {
      cwd: options.cwd,
      toolCallId: call.id,
      signal: options.signal,
      limits: options.limits,
      allowShell: this.allowShell,
      outputDirectory: options.outputDirectory,
      onUpdate: options.onUpdate ? (text) => options.onUpdate!(call.id, text) : undefined,
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
