/**
 * What an extension gets when it imports `@mariozechner/pi-coding-agent` in Arbor: Arbor's own
 * implementations of the helpers Pi's package exports to extensions (the reference package is a
 * test-only dependency and never ships). Names Arbor does not provide (Pi's terminal UI classes,
 * its own runtime) import fine and fail with a clear message only when used.
 */
import { convertToLlm } from "../context/convert-to-llm";
import { serializeConversation } from "../compaction/serialize-conversation";
import { SessionManager } from "../session/session-manager";
import {
  createBashTool,
  createCodingTools,
  createEditTool,
  createFindTool,
  createGrepTool,
  createLocalBashOperations,
  createLsTool,
  createReadTool,
  createWriteTool,
  withFileMutationQueue,
} from "./builtin-tools";
import { parseFrontmatter, stripFrontmatter } from "./frontmatter";
import { BorderedLoader } from "./loader";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, truncateLine, truncateTail } from "./truncation";
import { moduleWithFallback } from "./unsupported";

/** The version of Pi's extension API Arbor follows. */
export const PI_API_VERSION = "0.73.1";

const isToolResult = (name: string) => (event: { toolName?: string }) => event.toolName === name;

/** The module for one extension (`extension` names it in messages about what Arbor lacks). */
export function codingAgentModule(extension: string, agentDir: () => string): Record<string, unknown> {
  return moduleWithFallback("@mariozechner/pi-coding-agent", extension, {
    VERSION: PI_API_VERSION,
    getAgentDir: () => agentDir(),
    defineTool: <T>(tool: T): T => tool,
    isToolCallEventType: (name: string, event: { toolName?: string }) => event.toolName === name,
    isBashToolResult: isToolResult("bash"),
    isReadToolResult: isToolResult("read"),
    isEditToolResult: isToolResult("edit"),
    isWriteToolResult: isToolResult("write"),
    isGrepToolResult: isToolResult("grep"),
    isFindToolResult: isToolResult("find"),
    isLsToolResult: isToolResult("ls"),
    createReadTool,
    createWriteTool,
    createEditTool,
    createBashTool,
    createGrepTool,
    createFindTool,
    createLsTool,
    createCodingTools,
    createLocalBashOperations,
    withFileMutationQueue,
    convertToLlm,
    serializeConversation,
    truncateHead,
    truncateTail,
    truncateLine,
    formatSize,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    parseFrontmatter,
    stripFrontmatter,
    SessionManager,
    // Shown as VS Code's progress notification when an extension passes one to ctx.ui.custom().
    BorderedLoader,
  });
}
