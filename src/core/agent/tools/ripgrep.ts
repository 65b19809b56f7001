/**
 * Finding and running ripgrep for the search tools (`grep`, `find`). Arbor never downloads a binary:
 * the host names the copies it knows (VS Code ships one), then `rg` on the PATH is tried, and a
 * tool with no ripgrep says what to install.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";

/** The absolute path of the ripgrep to run, or undefined when there is none. Called on every search. */
export type RipgrepLocator = () => string | undefined;

/** What a search tool says when no ripgrep can be found. */
export const RIPGREP_MISSING_MESSAGE =
  "ripgrep (rg) was not found, so this search cannot run. Arbor uses the copy VS Code ships, else `rg` on the PATH; " +
  "install ripgrep (https://github.com/BurntSushi/ripgrep#installation) and try again, or search with the bash tool.";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable named `name` in the folders of `pathVariable` (Windows: with the PATHEXT endings). */
export function findOnPath(name: string, pathVariable = process.env.PATH ?? "", platform = process.platform): string | undefined {
  const endings = platform === "win32" ? ["", ...(process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((e) => e.toLowerCase())] : [""];
  for (const folder of pathVariable.split(delimiter)) {
    if (folder === "") continue;
    for (const ending of endings) {
      const candidate = join(folder, name + ending);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * A locator that tries `candidates` (absolute paths the host knows, e.g. VS Code's own copy) in
 * order, then `rg` on the PATH. The answer is looked up again on each call, so installing ripgrep
 * while the editor runs needs no restart.
 */
export function ripgrepLocator(candidates: () => readonly string[] = () => []): RipgrepLocator {
  return () => candidates().find(isExecutableFile) ?? findOnPath("rg");
}

/** How one ripgrep run ended. */
export interface RipgrepRun {
  /** The exit code (0: matches, 1: none, 2: an error; null when it was stopped). */
  code: number | null;
  stderr: string;
  /** `onLine` asked to stop before ripgrep finished. */
  stoppedEarly: boolean;
}

/**
 * Runs ripgrep with `args` and hands each line of its output to `onLine`, which returns false to
 * stop the run (a result limit was reached). Rejects when ripgrep cannot start; an abort of
 * `signal` stops it and rejects with "Cancelled.".
 */
export function runRipgrep(rgPath: string, args: readonly string[], options: { cwd: string; signal: AbortSignal; onLine: (line: string) => boolean }): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new Error("Cancelled."));
      return;
    }
    const child = spawn(rgPath, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let stoppedEarly = false;
    const stop = (): void => {
      if (child.exitCode === null && !child.killed) child.kill();
    };
    const onAbort = (): void => stop();
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      // The first few KiB say what went wrong; more is noise.
      if (stderr.length < 8192) stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (stoppedEarly) return;
      if (!options.onLine(line)) {
        stoppedEarly = true;
        lines.close();
        stop();
      }
    });
    child.on("error", (error) => {
      options.signal.removeEventListener("abort", onAbort);
      reject(new Error(`ripgrep could not be started (${rgPath}): ${error.message}`));
    });
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", onAbort);
      if (options.signal.aborted) reject(new Error("Cancelled."));
      else resolve({ code, stderr: stderr.trim(), stoppedEarly });
    });
  });
}
