import { openInside, replaceContent } from "./confined-files";
import { requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** `write`: creates or replaces a file inside the session's cwd (parent folders included), never through a link that leads out. */
export function createWriteTool(): AgentTool {
  return {
    writesFile: (args) => (typeof args.path === "string" ? args.path : undefined),
    definition: {
      name: "write",
      description: "Write a file in the workspace: creates it (and its folders) or replaces its whole content.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory or absolute." },
          content: { type: "string", description: "The complete new content of the file." },
        },
        required: ["path", "content"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const requested = requireString(args, "path");
      const content = requireString(args, "content");
      if (context.signal.aborted) throw new Error("Cancelled before writing.");
      const file = await openInside(context.cwd, requested, "write");
      try {
        await replaceContent(file.handle, content);
      } finally {
        await file.handle.close();
      }
      return textOutcome(`Wrote ${Buffer.byteLength(content, "utf8")} bytes to ${requested}.`);
    },
  };
}
