import { openInside, replaceContent } from "./confined-files";
import { requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** One exact replacement. */
export interface TextEdit {
  oldText: string;
  newText: string;
}

function readEdits(args: Record<string, unknown>): TextEdit[] {
  // The single-edit form (oldText/newText at the top level) is what older sessions used.
  if (args.edits === undefined && typeof args.oldText === "string") {
    return [{ oldText: args.oldText, newText: requireString(args, "newText") }];
  }
  if (!Array.isArray(args.edits) || args.edits.length === 0) throw new Error('The "edits" argument must be a non-empty list.');
  return args.edits.map((edit: unknown, i: number) => {
    const e = edit as { oldText?: unknown; newText?: unknown } | null;
    if (typeof e?.oldText !== "string" || typeof e.newText !== "string") {
      throw new Error(`Edit ${i + 1} needs "oldText" and "newText" strings.`);
    }
    if (e.oldText === "") throw new Error(`Edit ${i + 1} has an empty "oldText".`);
    return { oldText: e.oldText, newText: e.newText };
  });
}

/**
 * Applies exact replacements to a text. Each `oldText` must occur exactly once in the original, and
 * no two may overlap; otherwise nothing is changed and the error says which edit failed and why.
 */
export function applyEdits(original: string, edits: readonly TextEdit[]): string {
  const spans = edits.map((edit, i) => {
    const at = original.indexOf(edit.oldText);
    if (at < 0) throw new Error(`Edit ${i + 1}: the text to replace was not found (it must match exactly, whitespace included).`);
    if (original.indexOf(edit.oldText, at + 1) >= 0) {
      throw new Error(`Edit ${i + 1}: the text to replace occurs more than once; include more surrounding lines to make it unique.`);
    }
    return { start: at, end: at + edit.oldText.length, edit, index: i };
  });
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) throw new Error(`Edits ${spans[i - 1]!.index + 1} and ${spans[i]!.index + 1} overlap.`);
  }
  let result = "";
  let cursor = 0;
  for (const span of spans) {
    result += original.slice(cursor, span.start) + span.edit.newText;
    cursor = span.end;
  }
  return result + original.slice(cursor);
}

/** `edit`: exact text replacements in one file inside the session's cwd. */
export function createEditTool(): AgentTool {
  return {
    writesFile: (args) => (typeof args.path === "string" ? args.path : undefined),
    definition: {
      name: "edit",
      description:
        "Edit a file in the workspace by exact text replacement. Each oldText must appear exactly once in the file " +
        "and edits must not overlap; all edits apply together or none do.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory or absolute." },
          edits: {
            type: "array",
            description: "The replacements to make.",
            items: {
              type: "object",
              properties: {
                oldText: { type: "string", description: "Exact text to replace, unique in the file." },
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
      try {
        const original = await file.handle.readFile("utf8");
        const updated = applyEdits(original, edits);
        if (context.signal.aborted) throw new Error("Cancelled before writing.");
        await replaceContent(file.handle, updated);
      } finally {
        await file.handle.close();
      }
      return textOutcome(`Applied ${edits.length} edit${edits.length === 1 ? "" : "s"} to ${requested}.`);
    },
  };
}
