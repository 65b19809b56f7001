import { promises as fs } from "node:fs";
import { basename, dirname, relative, sep } from "node:path";
import { DEFAULT_OUTPUT_LIMITS } from "../output/output-limits";
import { capRow, listingOutcome, optionalBoolean, optionalCount, optionalString } from "./listing-output";
import { readableSearchPath } from "./readable-paths";
import { RIPGREP_MISSING_MESSAGE, ripgrepLocator, runRipgrep, type RipgrepLocator } from "./ripgrep";
import { optionalPositiveInt, requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** Matches returned unless the call asks for another number (Pi's default). */
export const GREP_DEFAULT_LIMIT = 100;

interface Match {
  file: string;
  line: number;
  text: string;
}

/** One `match` event of `rg --json`, or undefined for the other events. */
function parseMatch(line: string): Match | undefined {
  if (!line.startsWith('{"type":"match"')) return undefined;
  try {
    const event = JSON.parse(line) as { data?: { path?: { text?: string }; line_number?: number; lines?: { text?: string } } };
    const file = event.data?.path?.text;
    const number = event.data?.line_number;
    if (typeof file !== "string" || typeof number !== "number") return undefined;
    return { file, line: number, text: event.data?.lines?.text ?? "" };
  } catch {
    return undefined;
  }
}

/** One line of a file as shown: no line ending, no carriage return. */
function clean(text: string): string {
  return text.replace(/\r?\n$/, "").replace(/\r/g, "");
}

/**
 * `grep`: searches file contents with ripgrep, honouring `.gitignore` (also outside a git
 * repository) and skipping `.git`. Rows are `path:line: text`, context rows `path-line- text`.
 */
export function createGrepTool(options: { ripgrep?: RipgrepLocator } = {}): AgentTool {
  const fallback = ripgrepLocator();
  return {
    readOnly: true,
    capsOwnOutput: true,
    readsPath: (args) => (typeof args.path === "string" && args.path !== "" ? args.path : "."),
    promptSnippet: "Search file contents for a pattern (skips what .gitignore ignores)",
    definition: {
      name: "grep",
      description:
        `Search the contents of files for a regular expression (or a literal string) with ripgrep. Each matching line comes back as path:line: text. ` +
        `Files that .gitignore ignores are skipped; hidden files are searched. At most ${GREP_DEFAULT_LIMIT} matches unless limit says otherwise, ` +
        `cut at ${DEFAULT_OUTPUT_LIMITS.maxBytes / 1024} KB; lines longer than 500 characters are shortened.`,
      parameters: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "The regular expression to search for (ripgrep syntax), or the text itself with literal=true." },
          path: { type: "string", description: "Folder or file to search (default: the working directory)." },
          glob: { type: "string", description: "Only search files whose path matches this glob, e.g. '*.ts' or 'src/**/*.test.ts'." },
          ignoreCase: { type: "boolean", description: "Match regardless of case (default false)." },
          literal: { type: "boolean", description: "Take the pattern as plain text, not a regular expression (default false)." },
          context: { type: "number", description: "Lines to show before and after each match (default 0)." },
          limit: { type: "number", description: `Most matches to return (default ${GREP_DEFAULT_LIMIT}).` },
        },
        required: ["pattern"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      const pattern = requireString(args, "pattern");
      const requested = optionalString(args, "path") || ".";
      const glob = optionalString(args, "glob");
      const contextLines = optionalCount(args, "context") ?? 0;
      const limit = optionalPositiveInt(args, "limit") ?? GREP_DEFAULT_LIMIT;
      const target = await readableSearchPath(context.cwd, requested, [context.cwd, ...(context.readableRoots ?? [])]);
      const rg = (options.ripgrep ?? context.ripgrep ?? fallback)();
      if (!rg) return textOutcome(RIPGREP_MISSING_MESSAGE, true);

      const rgArgs = ["--json", "--line-number", "--color=never", "--hidden", "--no-require-git", "--sort=path"];
      if (optionalBoolean(args, "ignoreCase")) rgArgs.push("--ignore-case");
      if (optionalBoolean(args, "literal")) rgArgs.push("--fixed-strings");
      if (glob) rgArgs.push("--glob", glob);
      rgArgs.push("--glob", "!.git", "--", pattern, target.path);

      const matches: Match[] = [];
      const isFolder = target.stat.isDirectory();
      const run = await runRipgrep(rg, rgArgs, {
        // ripgrep matches globs that contain a slash from the folder it runs in: the one searched.
        cwd: isFolder ? target.path : dirname(target.path),
        signal: context.signal,
        onLine: (line) => {
          const match = parseMatch(line);
          if (match) matches.push(match);
          return matches.length < limit;
        },
      });
      if (!run.stoppedEarly && run.code !== 0 && run.code !== 1) {
        return textOutcome(run.stderr || `ripgrep failed (exit code ${run.code ?? "unknown"}).`, true);
      }
      if (matches.length === 0) return textOutcome("No matches.");

      const shownPath = (file: string): string => {
        if (!isFolder) return basename(file);
        const rel = relative(target.path, file);
        return rel === "" || rel.startsWith("..") ? basename(file) : rel.split(sep).join("/");
      };
      let rowsCut = false;
      const row = (text: string): string => {
        const capped = capRow(text);
        rowsCut ||= capped.cut;
        return capped.text;
      };
      const rows: string[] = [];
      if (contextLines === 0) {
        for (const m of matches) rows.push(`${shownPath(m.file)}:${m.line}: ${row(clean(m.text))}`);
      } else {
        const files = new Map<string, string[]>();
        const matched = new Set(matches.map((m) => `${m.line}:${m.file}`));
        // Context blocks of nearby matches in one file overlap: each line is shown once.
        const lastShown = new Map<string, number>();
        for (const m of matches) {
          let lines = files.get(m.file);
          if (!lines) {
            const text = await fs.readFile(m.file, "utf8").catch(() => undefined);
            lines = text === undefined ? [] : text.replace(/\r\n?/g, "\n").split("\n");
            files.set(m.file, lines);
          }
          const name = shownPath(m.file);
          if (lines.length === 0) {
            rows.push(`${name}:${m.line}: ${row(clean(m.text))}`);
            continue;
          }
          const from = Math.max(1, m.line - contextLines, (lastShown.get(m.file) ?? 0) + 1);
          const to = Math.min(lines.length, m.line + contextLines);
          for (let n = from; n <= to; n++) {
            rows.push(matched.has(`${n}:${m.file}`) ? `${name}:${n}: ${row(lines[n - 1]!)}` : `${name}-${n}- ${row(lines[n - 1]!)}`);
          }
          lastShown.set(m.file, Math.max(to, lastShown.get(m.file) ?? 0));
        }
      }
      return listingOutcome({
        rows,
        limits: context.limits,
        rowsCut,
        countLimit: run.stoppedEarly ? { limit, noun: "matches", detailsKey: "matchLimitReached", refine: true } : undefined,
      });
    },
  };
}
