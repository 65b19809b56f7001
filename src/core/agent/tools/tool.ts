/**
 * The tool interface of the agent loop: what the model may call, and how a call is carried out.
 * Hosts register tools (the core coding tools, or their own), may disable some and may require a
 * confirmation before others run.
 */
import type { ImageContent, TextContent } from "../../session/types";
import type { ToolDefinition } from "../providers/provider";
import type { OutputLimits } from "../output/output-limits";
import type { ProcessGroups } from "../shell/process-groups";
import type { RipgrepLocator } from "./ripgrep";

/** What a tool call gets besides its arguments. */
export interface ToolContext {
  /** The session's working directory; file tools only work inside it. */
  cwd: string;
  toolCallId: string;
  /** Aborted when the user stops the run. */
  signal: AbortSignal;
  /** Caps on inline output (see output-limits). */
  limits: OutputLimits;
  /** Whether the host allows running shell commands (false in untrusted workspaces). */
  allowShell: boolean;
  /** Folder for full-output files (default: the system temp folder). */
  outputDirectory?: string;
  /** Streams partial output to the front end while the tool runs. */
  onUpdate?: (text: string) => void;
  /** Where shell tools track the process groups they start, so none outlives the session. */
  processGroups?: ProcessGroups;
  /** Shell tools stop a command after this long unless the call sets its own timeout (0 or unset: none). */
  commandTimeoutMs?: number;
  /**
   * Besides `cwd`, the folders (or files) the reading tools may reach in this call: the workspace's
   * folders, the host's readable roots (skill folders), and a path outside them that the user allowed
   * for the call. Reading tools refuse anything else outside `cwd`.
   */
  readableRoots?: readonly string[];
  /** The host's ripgrep, for search tools made without one of their own (an extension's Pi-made `grep`). */
  ripgrep?: RipgrepLocator;
}

/** A tool's answer; it becomes the `toolResult` message. */
export interface ToolOutcome {
  content: (TextContent | ImageContent)[];
  /** Structured extras kept in the session (e.g. truncation facts); never sent to the model. */
  details?: unknown;
  isError?: boolean;
}

/** A tool the agent can run for the model. */
export interface AgentTool {
  /** The name, description and JSON Schema parameters the model sees. */
  readonly definition: ToolDefinition;
  /**
   * Tools that run shell commands ask the user before each call (unless approved for the session
   * or auto-approved) and are refused when the host disallows shell execution.
   */
  readonly runsShell?: boolean;
  /** Only reads: the one kind of tool offered when the host allows no writes (Restricted Mode). */
  readonly readOnly?: boolean;
  /**
   * For tools that write files: the path a call writes, as given (relative to the cwd or absolute).
   * A write outside the workspace folders asks the user first; no writes run when the host allows none.
   */
  readonly writesFile?: (args: Record<string, unknown>) => string | undefined;
  /**
   * For tools that read files: the path a call reads, as given (default: the tool reads nothing by
   * path). A read outside the session's folder, the workspace and the host's readable roots asks first.
   */
  readonly readsPath?: (args: Record<string, unknown>) => string | undefined;
  /** The tool cuts its own output to `context.limits` (with its own note); other tools' output is cut by the runner. */
  readonly capsOwnOutput?: boolean;
  /** One line for the system prompt's tool list (an extension tool without one is offered but not listed, as in Pi). */
  readonly promptSnippet?: string;
  /** Bullets added to the system prompt's guidelines while the tool is active. */
  readonly promptGuidelines?: readonly string[];
  /** Who added the tool: Arbor ("builtin", the default) or an extension (its name). */
  readonly source?: string;
  /**
   * Carries out one call. Throwing is fine: the message becomes an error result the model reads.
   * Must stop promptly when `context.signal` aborts.
   */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

/** A text-only outcome. */
export function textOutcome(text: string, isError = false, details?: unknown): ToolOutcome {
  const outcome: ToolOutcome = { content: [{ type: "text", text }] };
  if (isError) outcome.isError = true;
  if (details !== undefined) outcome.details = details;
  return outcome;
}

/** Reads a required string argument, or throws a message the model can act on. */
export function requireString(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== "string") throw new Error(`The "${name}" argument is required and must be a string.`);
  return value;
}

/** Reads an optional positive integer argument, or throws. */
export function optionalPositiveInt(args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new Error(`The "${name}" argument must be a whole number of at least 1.`);
  }
  return value;
}
