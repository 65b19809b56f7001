import { promises as fs } from "node:fs";
import { join } from "node:path";
import { DEFAULT_OUTPUT_LIMITS } from "../output/output-limits";
import { listingOutcome, optionalString } from "./listing-output";
import { readableSearchPath } from "./readable-paths";
import { optionalPositiveInt, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** Entries returned unless the call asks for another number (Pi's default). */
export const LS_DEFAULT_LIMIT = 500;

/**
 * `ls`: the entries of one folder, sorted without regard to case, folders marked with a trailing
 * `/`, dot files included (as Pi's `ls`, it lists what is there, ignored or not).
 */
export function createLsTool(): AgentTool {
  return {
    readOnly: true,
    capsOwnOutput: true,
    readsPath: (args) => (typeof args.path === "string" && args.path !== "" ? args.path : "."),
    promptSnippet: "List the entries of a folder",
    definition: {
      name: "ls",
      description:
        `List a folder's entries in alphabetical order, folders with a trailing '/', dot files included. ` +
        `At most ${LS_DEFAULT_LIMIT} entries unless limit says otherwise, cut at ${DEFAULT_OUTPUT_LIMITS.maxBytes / 1024} KB.`,
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "Folder to list (default: the working directory)." },
          limit: { type: "number", description: `Most entries to return (default ${LS_DEFAULT_LIMIT}).` },
        },
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const requested = optionalString(args, "path") || ".";
      const limit = optionalPositiveInt(args, "limit") ?? LS_DEFAULT_LIMIT;
      const target = await readableSearchPath(context.cwd, requested, [context.cwd, ...(context.readableRoots ?? [])]);
      if (!target.stat.isDirectory()) throw new Error(`${requested} is a file, not a folder.`);
      let names: string[];
      try {
        names = await fs.readdir(target.path);
      } catch (error) {
        throw new Error(`The folder ${requested} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
      }
      names.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
      const rows: string[] = [];
      let limited = false;
      for (const name of names) {
        if (context.signal.aborted) throw new Error("Cancelled.");
        if (rows.length >= limit) {
          limited = true;
          break;
        }
        // A link is listed as what it points to; one that points nowhere (or cannot be looked at) is left out.
        const stat = await fs.stat(join(target.path, name)).catch(() => undefined);
        if (stat) rows.push(stat.isDirectory() ? `${name}/` : name);
      }
      if (rows.length === 0) return textOutcome("(empty folder)");
      return listingOutcome({
        rows,
        limits: context.limits,
        countLimit: limited ? { limit, noun: "entries", detailsKey: "entryLimitReached", refine: false } : undefined,
      });
    },
  };
}
