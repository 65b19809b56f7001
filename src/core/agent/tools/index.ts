/** The tool interface and the core coding tools (read, write, edit, bash), all scoped to the session cwd. */
import { createBashTool } from "./bash-tool";
import { createEditTool } from "./edit-tool";
import { createReadTool } from "./read-tool";
import { createWriteTool } from "./write-tool";
import type { AgentTool } from "./tool";

export * from "./tool";
export { PathOutsideCwdError, resolveInCwd } from "./paths";
export { applyEdits, type TextEdit } from "./edit-tool";
export { createBashTool, createEditTool, createReadTool, createWriteTool };

/** Pi's core coding tools: read, write, edit and bash. */
export function createCodingTools(options: { shellPath?: string } = {}): AgentTool[] {
  return [createReadTool(), createWriteTool(), createEditTool(), createBashTool(options)];
}
