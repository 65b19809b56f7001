import { openInside, replaceContent } from "./confined-files";
import { editDiff } from "./edit-diff";
import { applyEditsToText, fromEditable, toEditable, type TextEdit } from "./edit-matching";
import { requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

export type { TextEdit } from "./edit-matching";

/**
 * The edits of a call. Besides the `edits` list, the single-edit form (`oldText`/`newText` at the
 * top level, what older sessions used) is taken, also together with a list, and so is a list sent
 * as a JSON string (some models do), as Pi takes them.
 */
function readEdits(args: Record<string, unknown>): TextEdit[] {
  let list: unknown = args.edits;
  if (typeof list === "string") {
    try {
      const parsed: unknown = JSON.parse(list);
      if (Array.isArray(parsed)) list = parsed;
    } catch {
      // Not JSON: reported below as a list that is missing.
    }
  }
  const edits: unknown[] = Array.isArray(list) ? [...(list as unknown[])] : [];
  if (typeof args.oldText === "string" && typeof args.newText === "string") edits.push({ oldText: args.oldText, newText: args.newText });
  if (edits.length === 0) throw new Error('The "edits" argument must be a non-empty list of { oldText, newText }.');
  return edits.map((edit, i) => {
    const e = edit as { oldText?: unknown; newText?: unknown } | null;
    if (typeof e?.oldText !== "string" || typeof e.newText !== "string") throw new Error(`edits[${i}] needs "oldText" and "newText" strings.`);
    return { oldText: e.oldText, newText: e.newText };
  });
}

/**
 * Applies `edits` to a file's whole content as the edit tool does: BOM and line endings set aside
 * and put back, the edits' own line endings ignored, the lenient match where the exact one fails.
 * Throws, changing nothing, when an edit is missing, not unique, empty or overlaps another.
 */
export function applyEdits(original: string, edits: readonly TextEdit[], path = "the file"): string {
  const file = toEditable(original);
  return fromEditable(file, applyEditsToText(file.text, edits, path).after);
}

/** `edit`: replacements of unique text in one file inside the session's cwd, the diff in the result's details. */
export function createEditTool(): AgentTool {
  return {
    writesFile: (args) => (typeof args.path === "string" ? args.path : undefined),
    promptSnippet: "Change a file by replacing unique pieces of its text (several at once in one call)",
    promptGuidelines: [
      "Use edit for targeted changes: each edits[].oldText must match the file's text and occur in it once.",
      "Put several changes to one file into one edit call, as separate entries of edits[]; every oldText is matched against the file as it was before the call, so entries must not overlap.",
    ],
    definition: {
      name: "edit",
      description:
        "Edit a file in the workspace by replacing pieces of its text. Each edits[].oldText must occur exactly once in the file as it is now " +
        "(small differences in trailing spaces, quotes, dashes and Unicode forms are forgiven) and edits must not overlap; all apply together or none do. " +
        "Keep each oldText short but unique, and merge changes to nearby lines into one edit.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory or absolute." },
          edits: {
            type: "array",
            description: "The replacements, each matched against the original file (not after the others).",
            items: {
              type: "object",
              properties: {
                oldText: { type: "string", description: "Text to replace; it must occur once in the file and not overlap another edit's." },
                newText: { type: "string", description: "The text to put in its place." },
              },
              required: ["oldText", "newText"],
            },
          },
        },
        required: ["path", "edits"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const requested = requireString(args, "path");
      const edits = readEdits(args);
      // One handle for the read and the write, so the file edited is the file read.
      const file = await openInside(context.cwd, requested, "update");
      let change: { before: string; after: string };
      try {
        const editable = toEditable(await file.handle.readFile("utf8"));
        change = applyEditsToText(editable.text, edits, requested);
        if (context.signal.aborted) throw new Error("Cancelled before writing.");
        await replaceContent(file.handle, fromEditable(editable, change.after));
      } finally {
        await file.handle.close();
      }
      const diff = editDiff(change.before, change.after);
      return textOutcome(`Applied ${edits.length} edit${edits.length === 1 ? "" : "s"} to ${requested}.`, false, diff);
    },
  };
}
