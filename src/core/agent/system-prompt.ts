import type { ToolDefinition } from "./providers/provider";

export interface SystemPromptInput {
  cwd: string;
  /** The tools offered in this request. */
  tools: readonly ToolDefinition[];
  /** Today's date for the model (default: now). */
  now?: Date;
  /** Host or user instructions added at the end (e.g. from settings). */
  appendix?: string;
  /** Extra guideline bullets (extension tools' `promptGuidelines`, while they are active). */
  guidelines?: readonly string[];
}

/**
 * Arbor's standing instructions to the coding agent (our own wording). Sent through
 * `ModelRequest.systemPrompt`; backends without a system role fold it into the first user message.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const lines = [
    "You are a coding agent working with a developer inside their editor.",
    "Help with the task at hand: read the code before changing it, make focused changes, and say briefly what you did.",
    "Prefer small, verifiable steps. When something is unclear or risky, ask before acting.",
  ];
  if (input.tools.length > 0) {
    lines.push("", "Tools you can call:");
    for (const tool of input.tools) lines.push(`- ${tool.name}: ${tool.description}`);
    lines.push(
      "",
      "Use tools rather than guessing at file contents. Paths are relative to the working directory; the user is asked before a tool reads outside the workspace, and changes stay inside the working directory.",
      "Read a file before editing it; edits replace exact text, so copy the text to replace precisely.",
    );
  } else {
    lines.push("", "No tools are available in this conversation: answer from what is in it.");
  }
  if (input.guidelines && input.guidelines.length > 0) lines.push("", "Guidelines:", ...input.guidelines.map((g) => `- ${g}`));
  lines.push("", `Working directory: ${input.cwd}`, `Today's date: ${(input.now ?? new Date()).toISOString().slice(0, 10)}`);
  if (input.appendix?.trim()) lines.push("", input.appendix.trim());
  return lines.join("\n");
}
