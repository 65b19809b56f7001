import { relative, sep } from "node:path";
import { DEFAULT_OUTPUT_LIMITS } from "../output/output-limits";
import { listingOutcome, optionalString } from "./listing-output";
import { readableSearchPath } from "./readable-paths";
import { RIPGREP_MISSING_MESSAGE, ripgrepLocator, runRipgrep, type RipgrepLocator } from "./ripgrep";
import { optionalPositiveInt, requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** Paths returned unless the call asks for another number (Pi's default). */
export const FIND_DEFAULT_LIMIT = 1000;

/**
 * The glob ripgrep gets for the model's pattern. A pattern without a slash matches file names at
 * any depth; one with a slash matches the path below the searched folder, at any depth too (as
 * Pi's `find` does), unless it starts with `/` (anchored there) or already with `**` + `/`.
 */
export function findGlob(pattern: string): string {
  if (!pattern.includes("/") || pattern.startsWith("/") || pattern.startsWith("**/") || pattern === "**") return pattern;
  return `**/${pattern}`;
}

/**
 * `find`: lists the files whose names or paths match a glob, with ripgrep's file walk, so
 * `.gitignore` is honoured (also outside a git repository) and `.git` is skipped. Paths are
 * relative to the searched folder, sorted.
 */
export function createFindTool(options: { ripgrep?: RipgrepLocator } = {}): AgentTool {
  const fallback = ripgrepLocator();
  return {
    readOnly: true,
    capsOwnOutput: true,
    readsPath: (args) => (typeof args.path === "string" && args.path !== "" ? args.path : "."),
    promptSnippet: "Find files by name or path glob (skips what .gitignore ignores)",
    definition: {
      name: "find",
      description:
        `Find files by glob pattern; paths come back relative to the folder searched. Files that .gitignore ignores are skipped; hidden files are listed. ` +
        `At most ${FIND_DEFAULT_LIMIT} paths unless limit says otherwise, cut at ${DEFAULT_OUTPUT_LIMITS.maxBytes / 1024} KB.`,
      parameters: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Glob for the files, e.g. '*.ts', '**/*.json' or 'src/**/*.spec.ts'." },
          path: { type: "string", description: "Folder to search (default: the working directory)." },
          limit: { type: "number", description: `Most paths to return (default ${FIND_DEFAULT_LIMIT}).` },
        },
        required: ["pattern"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const pattern = requireString(args, "pattern");
      if (pattern.trim() === "") throw new Error('The "pattern" argument is empty; give a glob such as "*.ts".');
      const requested = optionalString(args, "path") || ".";
      const limit = optionalPositiveInt(args, "limit") ?? FIND_DEFAULT_LIMIT;
      const target = await readableSearchPath(context.cwd, requested, [context.cwd, ...(context.readableRoots ?? [])]);
      if (!target.stat.isDirectory()) throw new Error(`${requested} is a file, not a folder; find searches folders.`);
      const rg = (options.ripgrep ?? context.ripgrep ?? fallback)();
      if (!rg) return textOutcome(RIPGREP_MISSING_MESSAGE, true);

      const rgArgs = ["--files", "--hidden", "--no-require-git", "--sort=path", "--color=never", "--glob", findGlob(pattern), "--glob", "!.git", "--", target.path];
      const paths: string[] = [];
      const run = await runRipgrep(rg, rgArgs, {
        cwd: target.path,
        signal: context.signal,
        onLine: (line) => {
          if (line !== "") paths.push(relative(target.path, line).split(sep).join("/"));
          return paths.length < limit;
        },
      });
      // ripgrep exits with 1 when no file matched, and with 2 after errors it could walk past
      // (an unreadable folder): what it found still counts.
      if (!run.stoppedEarly && run.code !== 0 && run.code !== 1 && paths.length === 0) {
        return textOutcome(run.stderr || `ripgrep failed (exit code ${run.code ?? "unknown"}).`, true);
      }
      if (paths.length === 0) return textOutcome("No files match the pattern.");
      return listingOutcome({
        rows: paths,
        limits: context.limits,
        countLimit: run.stoppedEarly ? { limit, noun: "paths", detailsKey: "resultLimitReached", refine: true } : undefined,
      });
    },
  };
}
