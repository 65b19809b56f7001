/** The agent session: prompting, tools, `!cmd`, compaction and tree navigation over a SessionManager. */
export * from "./agent-session";
export * from "./errors";
export * from "./events";
export * from "./hooks";
export { DEFAULT_QUEUE_MODES, queueModeFrom, resolveQueueModes, type QueueMode, type QueueModes, type QueuedMessageInfo, type WithdrawnMessage } from "./message-queue";
export { measureContextUsage, type ContextUsage } from "./auto-compaction";
export { buildSystemPrompt, type SystemPromptInput } from "./system-prompt";
export { TOOL_MESSAGES, ToolSet, type ToolConfirmationRequest, type ToolPolicy } from "./tool-runner";
export type { NavigateTreeOptions, NavigateTreeResult } from "./tree-navigation";
export { DEFAULT_OUTPUT_LIMITS, truncateHead, truncateTail, type OutputLimits } from "./output/output-limits";
export { runShellCommand, type ShellOptions, type ShellResult } from "./shell/run-shell";
export { killAllProcessGroups, ProcessGroups } from "./shell/process-groups";
export * from "./safety/approvals";
export { NO_WORKING_FOLDER_MESSAGE, type WorkingFolderState } from "./safety/working-folder";
export { READ_ONLY_REASON, type ToolRestrictions } from "./safety/tool-guard";
export * from "./tools";
export type { BashRunResult } from "./bash-command";
export type { CompactionRunOutcome } from "./compaction-runner";
