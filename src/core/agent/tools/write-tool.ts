import { promises as fs } from "node:fs";
import { dirname } from "node:path";
import { resolveInCwd } from "./paths";
import { requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** `write`: creates or replaces a file inside the session's cwd (parent folders included). */
export function createWriteTool(): AgentTool {
  return {
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
      const path = resolveInCwd(context.cwd, requested);
      if (context.signal.aborted) throw new Error("Cancelled before writing.");
      await fs.mkdir(dirname(path), { recursive: true });
      await fs.writeFile(path, content, "utf8");
      return textOutcome(`Wrote ${Buffer.byteLength(content, "utf8")} bytes to ${requested}.`);
    },
  };
}
