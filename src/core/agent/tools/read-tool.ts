import { truncateHead } from "../output/output-limits";
import { DEFAULT_IMAGE_LIMITS, fitImage, scaleNote, sniffImageType, type ImageCodec } from "./image-resize";
import { openReadable } from "./readable-paths";
import { optionalPositiveInt, requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** Image files larger than this are not decoded (resizing them would take too much memory). */
const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The content blocks for an image file, made to fit as Pi makes images fit (see image-resize); one
 * that cannot be made to fit is described, not sent. Without the codec an image goes as it is when
 * it already fits.
 */
async function imageOutcome(requested: string, body: Buffer, mimeType: string, load?: () => Promise<ImageCodec | undefined>): Promise<ToolOutcome> {
  const fitted = (await fitImage(body, mimeType, DEFAULT_IMAGE_LIMITS, load)) ??
    (Math.ceil(body.length / 3) * 4 < DEFAULT_IMAGE_LIMITS.maxBytes ? { data: body.toString("base64"), mimeType, resized: false, width: 0, height: 0, originalWidth: 0, originalHeight: 0 } : undefined);
  if (!fitted) {
    return textOutcome(`Image ${requested} (${mimeType}) was not sent: it could not be made small enough (${DEFAULT_IMAGE_LIMITS.maxWidth}x${DEFAULT_IMAGE_LIMITS.maxHeight} pixels, ${DEFAULT_IMAGE_LIMITS.maxBytes / 1024 / 1024} MB).`);
  }
  const note = scaleNote(fitted);
  const details = fitted.resized ? { image: { originalWidth: fitted.originalWidth, originalHeight: fitted.originalHeight, width: fitted.width, height: fitted.height, mimeType: fitted.mimeType } } : undefined;
  const outcome: ToolOutcome = {
    content: [
      { type: "text", text: `Image ${requested} (${fitted.mimeType}):${note ? `\n${note}` : ""}` },
      { type: "image", data: fitted.data, mimeType: fitted.mimeType },
    ],
  };
  if (details) outcome.details = details;
  return outcome;
}

/**
 * `read`: a text file (a window of lines, capped) or an image (made to fit), inside the session's
 * cwd or the folders the call may read. `imageCodec` replaces Photon (a test seam).
 */
export function createReadTool(options: { imageCodec?: () => Promise<ImageCodec | undefined> } = {}): AgentTool {
  return {
    capsOwnOutput: true,
    readOnly: true,
    readsPath: (args) => (typeof args.path === "string" ? args.path : undefined),
    definition: {
      name: "read",
      description:
        "Read a file in the workspace. Text comes back as lines (long files are cut; continue with offset). " +
        `PNG, JPEG, GIF and WebP images come back as images, scaled down to fit ${DEFAULT_IMAGE_LIMITS.maxWidth}x${DEFAULT_IMAGE_LIMITS.maxHeight} pixels when larger.`,
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
      try {
        if (file.stat.isDirectory()) throw new Error(`${requested} is a folder, not a file.`);
        body = await file.handle.readFile();
      } finally {
        await file.handle.close();
      }
      // The type is what the bytes say, as Pi decides it, not what the name says.
      const mimeType = sniffImageType(body.subarray(0, 12));
      if (mimeType) {
        if (body.length > MAX_IMAGE_FILE_BYTES) throw new Error(`${requested} is too large to read as an image (${body.length} bytes).`);
        return imageOutcome(requested, body, mimeType, options.imageCodec);
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
