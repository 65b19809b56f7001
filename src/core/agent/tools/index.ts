/** The tool interface and the core coding tools (read, write, edit, bash, grep, find, ls), all scoped to the session cwd. */
import { createBashTool } from "./bash-tool";
import { createEditTool } from "./edit-tool";
import { createFindTool } from "./find-tool";
import { createGrepTool } from "./grep-tool";
import { createLsTool } from "./ls-tool";
import { createReadTool } from "./read-tool";
import type { RipgrepLocator } from "./ripgrep";
import { createWriteTool } from "./write-tool";
import type { AgentTool } from "./tool";

export * from "./tool";
export { PathOutsideCwdError, resolveInCwd } from "./paths";
export { applyEdits, type TextEdit } from "./edit-tool";
export { RIPGREP_MISSING_MESSAGE, ripgrepLocator, type RipgrepLocator } from "./ripgrep";
export { createBashTool, createEditTool, createFindTool, createGrepTool, createLsTool, createReadTool, createWriteTool };

/** Pi's default tools (what `pi` offers without `--tools`). */
export const PI_DEFAULT_TOOLS: readonly string[] = ["read", "bash", "edit", "write"];

/** Arbor's default active tools: Pi's, plus the read-only searches that spare a bash approval each. */
export const DEFAULT_ACTIVE_TOOLS: readonly string[] = [...PI_DEFAULT_TOOLS, "grep", "find", "ls"];

/** Every built-in tool name, in the order they are offered. */
export const BUILTIN_TOOL_NAMES: readonly string[] = ["read", "write", "edit", "bash", "grep", "find", "ls"];

export interface CodingToolsOptions {
  shellPath?: string;
  /** Pi's `shellCommandPrefix`, read at each bash call. */
  commandPrefix?: () => string | undefined;
  /** Where `grep` and `find` find ripgrep (default: `rg` on the PATH). */
  ripgrep?: RipgrepLocator;
}

/** Arbor's built-in tools: Pi's read, write, edit and bash, and its grep, find and ls. */
export function createCodingTools(options: CodingToolsOptions = {}): AgentTool[] {
  return [
    createReadTool(),
    createWriteTool(),
    createEditTool(),
    createBashTool({ shellPath: options.shellPath, commandPrefix: options.commandPrefix }),
    createGrepTool({ ripgrep: options.ripgrep }),
    createFindTool({ ripgrep: options.ripgrep }),
    createLsTool(),
  ];
}
