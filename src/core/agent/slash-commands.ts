/**
 * The slash commands of the chat input: Arbor's own, and parsing of what the user typed. Extensions
 * add theirs at run time; front ends list both.
 */

/** A command the input offers after "/". */
export interface SlashCommandInfo {
  name: string;
  description: string;
  /** What may follow the name, as a hint ("[instructions]"). */
  args?: string;
}

/** Arbor's own commands, in the order the input lists them. */
export const BUILTIN_SLASH_COMMANDS: readonly SlashCommandInfo[] = [
  { name: "compact", description: "Summarize older history to free the context window", args: "[instructions]" },
  { name: "name", description: "Name this session", args: "<name>" },
  { name: "new", description: "Start a new session" },
  { name: "fork", description: "Fork a new session from an earlier message" },
  { name: "clone", description: "Copy this session, as it is now, into a new one" },
  { name: "resume", description: "Resume another session" },
  { name: "tree", description: "Show the Conversation Tree" },
  { name: "model", description: "Choose the model" },
  { name: "thinking", description: "Set the thinking level", args: "[level]" },
  { name: "export", description: "Export this session as HTML or Markdown", args: "[html|md]" },
  { name: "copy", description: "Copy the last reply" },
  { name: "session", description: "Show session info: file, messages, tokens and cost" },
];

/** `/name rest` split into the command name and its arguments; undefined when the text is not a command. */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}
