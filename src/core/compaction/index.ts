/** The pure parts of compaction and branch summaries: cut points, inputs, prompts, file lists. */
export * from "./branch-summary";
export * from "./cut-point";
export * from "./file-operations";
export * from "./prepare-compaction";
export * from "./prompts";
export * from "./serialize-conversation";
export * from "./summary-requests";
export * from "./tokens";
export * from "./compaction-report";
