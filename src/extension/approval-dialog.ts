/**
 * The words of an approval dialog (no VS Code here, so the unit tests read exactly what the modal
 * shows): the question, exactly what would run or be written and where, and the answers that fit.
 * Text from the model is made reviewable first: control and bidi characters are shown as escapes,
 * and a command padded with blank lines or spaces cannot push its real work out of sight.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../core/agent/safety/approvals";

/** What one approval dialog shows. */
export interface ApprovalDialog {
  /** The question, in bold. */
  message: string;
  /** Exactly what would run or be written, and where. */
  detail: string;
  /** The buttons in order; the last one (Deny) is also what Escape or closing the dialog means. */
  buttons: readonly { title: string; answer: ApprovalAnswer }[];
}

export const ALLOW_ONCE = "Allow Once";
export const ALLOW_FOR_SESSION = "Allow for This Session";
/** A protected file's session grant covers that file only, and says so on its button. */
export const ALLOW_FILE_FOR_SESSION = "Allow This File for This Session";
export const DENY = "Deny";

/** Longer text is shown up to here, with a note that the rest runs too. */
const MAX_SHOWN_CHARACTERS = 8000;
/** A command shows at most this many lines (after blank runs are collapsed). */
const MAX_SHOWN_LINES = 40;
/** Runs of spaces and tabs this long inside a line are shown as a count. */
const LONG_BLANK_RUN = 20;

/**
 * Text from the model made safe to review: control characters and the Unicode marks that reorder
 * or hide text are shown as escapes, so what the dialog shows is what the shell gets.
 */
export function visibleText(text: string): string {
  const shown = escapeInvisible(text);
  if (shown.length <= MAX_SHOWN_CHARACTERS) return shown;
  return `${shown.slice(0, MAX_SHOWN_CHARACTERS)}\n… (${shown.length - MAX_SHOWN_CHARACTERS} more characters not shown; allowing runs all of it)`;
}

function escapeInvisible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

const isBlank = (line: string): boolean => /^[ \t]*$/.test(line);
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * A command as the dialog shows it: a command of several lines starts with its line count; every
 * run of two or more blank lines, and every long run of spaces inside a line, is one marker saying
 * how much was left out; past MAX_SHOWN_LINES lines (or MAX_SHOWN_CHARACTERS characters) a last
 * line says how many more follow. Nothing but blanks is ever left out without a marker.
 */
export function commandPreview(command: string): string {
  const lines = command.split("\n");
  const shown: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (isBlank(lines[i]!)) {
      let end = i;
      while (end < lines.length && isBlank(lines[end]!)) end++;
      const run = end - i;
      shown.push(run >= 2 ? `[… ${plural(run, "blank line")} …]` : "");
      i = end;
      continue;
    }
    const line = lines[i]!.replace(new RegExp(`[ \\t]{${LONG_BLANK_RUN},}`, "g"), (blanks) => ` [… ${plural(blanks.length, "space")} …] `);
    shown.push(escapeInvisible(line));
    i++;
  }
  const whole = shown.join("\n");
  let text = shown.slice(0, MAX_SHOWN_LINES).join("\n");
  if (text.length > MAX_SHOWN_CHARACTERS) text = text.slice(0, MAX_SHOWN_CHARACTERS);
  const head = lines.length > 1 ? `(${plural(lines.length, "line")})\n` : "";
  const moreLines = shown.length - text.split("\n").length;
  const tail =
    text.length < whole.length
      ? `\n… more follows: ${moreLines > 0 ? `${plural(moreLines, "more line")}, ` : ""}${plural(whole.length - text.length, "more character")} not shown (allowing runs all of it)`
      : "";
  return `${head}${text}${tail}`;
}

function folderList(folders: readonly string[]): string {
  return folders.length === 0 ? "no folder is open" : folders.join(", ");
}

/** The dialog for a request: the question, what exactly is at stake, and the answers that fit it. */
export function approvalDialog(request: ApprovalRequest): ApprovalDialog {
  const all = [
    { title: ALLOW_ONCE, answer: "once" as const },
    { title: ALLOW_FOR_SESSION, answer: "session" as const },
    { title: DENY, answer: "deny" as const },
  ];
  switch (request.kind) {
    case "command": {
      const named = request.protectedPaths ?? [];
      const protectedNote =
        named.length === 0
          ? `"${ALLOW_FOR_SESSION}" also runs the agent's later commands in this session without asking.`
          : `It names protected files, so it asks whatever arbor.tools.autoApprove says:\n${named.map((p) => `  ${visibleText(p)}`).join("\n")}\n\n` +
            `"${ALLOW_FOR_SESSION}" also runs the agent's later commands in this session without asking, those that name these files included.`;
      return {
        message: "The agent wants to run this command",
        detail: `${commandPreview(request.command)}\n\nin ${request.cwd}\n\n${protectedNote}`,
        buttons: all,
      };
    }
    case "outside-read":
      return {
        message: `The agent wants to ${request.toolName === "read" ? "read a file" : `search (${request.toolName})`} outside the workspace`,
        detail:
          `${visibleText(request.path)}\n\nThe session's folder: ${request.cwd}\nThe workspace: ${folderList(request.workspaceFolders)}\n\n` +
          `"${ALLOW_FOR_SESSION}" also lets the agent's later reads outside the workspace through, in this session.`,
        buttons: all,
      };
    case "outside-write":
      return {
        message: `The agent wants to ${request.toolName === "edit" ? "edit" : "write"} a file outside the workspace`,
        detail:
          `${visibleText(request.path)}\n\nThe workspace: ${folderList(request.workspaceFolders)}\n\n` +
          `"${ALLOW_FOR_SESSION}" also lets the agent's later changes outside the workspace through, in this session (always inside its folder, ${request.cwd}).`,
        buttons: all,
      };
    case "protected-write":
      return {
        message: `The agent wants to ${request.toolName === "edit" ? "edit" : "write"} a protected file`,
        detail:
          `${visibleText(request.path)}\n\nProtected by "${visibleText(request.pattern)}" (arbor.tools.protectedPaths): changing such a file can make code run without anyone reading it ` +
          `(git hooks, editor settings and tasks, extensions, install scripts, CI), so it is asked whatever arbor.tools.autoApprove says.` +
          `${request.outside ? ` It is also outside the workspace (${folderList(request.workspaceFolders)}).` : ""}\n\n` +
          `"${ALLOW_FILE_FOR_SESSION}" lets the agent's later changes of this one file through in this session; other protected files still ask.`,
        buttons: [all[0]!, { title: ALLOW_FILE_FOR_SESSION, answer: "session" }, all[2]!],
      };
    case "working-folder": {
      const extensions = request.extensions ?? [];
      const extensionNote =
        extensions.length === 0
          ? ""
          : `\n\nThe folder has Pi extensions of its own, which load and run only if you allow it:\n${extensions.map((p) => `  ${visibleText(p)}`).join("\n")}`;
      return {
        message: "This session works in a folder outside the open workspace",
        detail:
          `${visibleText(request.cwd)}\n\nThe session's file names this folder as its working folder. Let the agent's tools read files, change them and run commands there for this session?` +
          `${extensionNote}\n\nThe open workspace: ${folderList(request.workspaceFolders)}`,
        buttons: all.slice(1),
      };
    }
  }
}
