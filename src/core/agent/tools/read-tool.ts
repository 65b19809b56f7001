import { extname } from "node:path";
import { truncateHead } from "../output/output-limits";
import { openReadable } from "./readable-paths";
import { optionalPositiveInt, requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Images larger than this are refused rather than sent (they would dominate the context). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** `read`: a text file (a window of lines, capped) or an image, inside the session's cwd. */
export function createReadTool(): AgentTool {
  return {
    capsOwnOutput: true,
    readOnly: true,
    readsPath: (args) => (typeof args.path === "string" ? args.path : undefined),
    definition: {
      name: "read",
      description:
        "Read a file in the workspace. Text comes back as lines (long files are cut; continue with offset). " +
        "PNG, JPEG, GIF and WebP images come back as images.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory or absolute." },
          offset: { type: "number", description: "First line to read, counting from 1." },
          limit: { type: "number", description: "Most lines to read." },
        },
        required: ["path"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const requested = requireString(args, "path");
      const offset = optionalPositiveInt(args, "offset") ?? 1;
      const limit = optionalPositiveInt(args, "limit");
      const file = await openReadable(context.cwd, requested, [context.cwd, ...(context.readableRoots ?? [])]);
      let body: Buffer;
      let mimeType: string | undefined;
      try {
        if (file.stat.isDirectory()) throw new Error(`${requested} is a folder, not a file.`);
        mimeType = IMAGE_TYPES[extname(file.path).toLowerCase()];
        if (mimeType && file.stat.size > MAX_IMAGE_BYTES) throw new Error(`${requested} is too large to send as an image (${file.stat.size} bytes).`);
        body = await file.handle.readFile();
      } finally {
        await file.handle.close();
      }
      if (mimeType) {
        return { content: [{ type: "text", text: `Image ${requested} (${mimeType}):` }, { type: "image", data: body.toString("base64"), mimeType }] };
      }

      const lines = body.toString("utf8").split("\n");
      if (offset > lines.length) throw new Error(`Offset ${offset} is past the end of ${requested} (${lines.length} lines).`);
      const window = lines.slice(offset - 1, limit === undefined ? undefined : offset - 1 + limit);
      const cut = truncateHead(window.join("\n"), context.limits);
      const lastShown = offset - 1 + cut.keptLines;
      if (cut.truncated && cut.keptLines === 0) {
        return textOutcome(`Line ${offset} of ${requested} alone is longer than the output limit; it cannot be shown with read.`, true);
      }
      let text = cut.content;
      if (cut.truncated) {
        text += `\n\n[Lines ${offset}-${lastShown} of ${lines.length} shown (output limit). Continue with offset=${lastShown + 1}.]`;
      } else if (limit !== undefined && lastShown < lines.length) {
        text += `\n\n[${lines.length - lastShown} more lines. Continue with offset=${lastShown + 1}.]`;
      }
      return textOutcome(text, false, cut.truncated ? { truncated: true, shownLines: [offset, lastShown], totalLines: lines.length } : undefined);
    },
  };
}
