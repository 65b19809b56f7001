import type { ToolDefinition } from "./providers/provider";

/** A skill as the system prompt lists it (never its body: the model reads the file when it needs it). */
export interface PromptSkill {
  name: string;
  description: string;
  /** The skill's file. */
  path: string;
  /** Only the user runs it (`/skill:name`); it is not listed. */
  disableModelInvocation?: boolean;
}

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
  /** SYSTEM.md: replaces Arbor's base prompt (the sections below are still added). */
  customPrompt?: string;
  /** APPEND_SYSTEM.md: added right after the base prompt. */
  appendSystemPrompt?: string;
  /** AGENTS.md / CLAUDE.md files, outermost first, each sent whole with its path. */
  contextFiles?: readonly { path: string; content: string }[];
  /** Listed only when the read tool is offered (the model loads a skill by reading its file). */
  skills?: readonly PromptSkill[];
}

/** Arbor's own base prompt: who the agent is, its tools and how to use them (our own wording). */
function basePrompt(input: SystemPromptInput): string[] {
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
      "Use tools rather than guessing at file contents. Paths are relative to the working directory; the user is asked before a tool reads outside the workspace (skill files listed below excepted), and changes stay inside the working directory.",
      "Read a file before editing it; edits replace exact text, so copy the text to replace precisely.",
    );
  } else {
    lines.push("", "No tools are available in this conversation: answer from what is in it.");
  }
  if (input.guidelines && input.guidelines.length > 0) lines.push("", "Guidelines:", ...input.guidelines.map((g) => `- ${g}`));
  return lines;
}

const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** The context files, each under a heading that names its path. */
export function contextSection(files: readonly { path: string; content: string }[]): string | undefined {
  if (files.length === 0) return undefined;
  const parts = ["# Project context", "", "Instructions the user and the project keep for agents; follow them:"];
  for (const file of files) parts.push("", `## ${file.path}`, "", file.content);
  return parts.join("\n");
}

/** The skills the model may use, in the Agent Skills form (name, description, location; no body). */
export function skillsSection(skills: readonly PromptSkill[]): string | undefined {
  const listed = skills.filter((s) => !s.disableModelInvocation);
  if (listed.length === 0) return undefined;
  const lines = [
    "# Skills",
    "",
    "Skills hold instructions for particular kinds of task. When a task matches a skill's description, read its file with the read tool first and follow it.",
    "A path a skill mentions is relative to the folder of its file: turn it into an absolute path before using it in a tool call.",
    "",
    "<available_skills>",
  ];
  for (const skill of listed) {
    lines.push("  <skill>", `    <name>${escapeXml(skill.name)}</name>`, `    <description>${escapeXml(skill.description)}</description>`, `    <location>${escapeXml(skill.path)}</location>`, "  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

/**
 * The system prompt of a request, in Pi's order of sections: the base prompt (Arbor's, or
 * SYSTEM.md), APPEND_SYSTEM.md, the host's appendix, the context files, the skills (when the read
 * tool is offered), then the working directory and the date. Sent through
 * `ModelRequest.systemPrompt`; backends without a system role fold it into the first user message.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const sections = [input.customPrompt?.trim() ? input.customPrompt : basePrompt(input).join("\n")];
  if (input.appendSystemPrompt?.trim()) sections.push(input.appendSystemPrompt.trim());
  if (input.appendix?.trim()) sections.push(input.appendix.trim());
  const context = contextSection(input.contextFiles ?? []);
  if (context) sections.push(context);
  const skills = input.tools.some((t) => t.name === "read") ? skillsSection(input.skills ?? []) : undefined;
  if (skills) sections.push(skills);
  sections.push(`Working directory: ${input.cwd.replace(/\\/g, "/")}\nToday's date: ${(input.now ?? new Date()).toISOString().slice(0, 10)}`);
  return sections.join("\n\n");
}
