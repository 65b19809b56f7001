/**
 * How long a label or a session name typed into Arbor may be. Pi sets no limit, and a session
 * written elsewhere may hold longer ones (the tree shortens those to draw them); what Arbor writes
 * stays short enough to read in a row, a tab title or a quick pick.
 */
export const MAX_LABEL_LENGTH = 200;
export const MAX_SESSION_NAME_LENGTH = 200;

/** The input box's complaint about a value, or undefined when it fits. */
export function tooLong(value: string, max: number, what: string): string | undefined {
  return value.trim().length > max ? `Keep ${what} under ${max + 1} characters (this one has ${value.trim().length})` : undefined;
}

/** Refuses a value given to a command (from a keybinding, a command URI, another extension) that is too long. */
export function assertFits(value: string, max: number, what: string): void {
  const problem = tooLong(value, max, what);
  if (problem) throw new Error(problem);
}
