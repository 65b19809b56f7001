import { spawn } from "node:child_process";
import { devNull } from "node:os";

/** What one git run gave back. */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Options of one git run. */
export interface GitRunOptions {
  /** Written to git's stdin, then closed. */
  input?: string | Buffer;
  /** The work tree (GIT_WORK_TREE); none for commands that only read objects. */
  workTree?: string;
  /** The index file (GIT_INDEX_FILE); the store's own, never a repository's. */
  indexFile?: string;
  /** A non-zero exit resolves instead of rejecting (the caller reads `code` and `stderr`). */
  allowFailure?: boolean;
}

/** How the seam reaches git: the executable and the shadow repository it works in. */
export interface GitOptions {
  /** The user's git (VS Code: the `git.path` setting, else `git` on PATH). */
  gitPath: string;
  /** The shadow repository (GIT_DIR), in Arbor's storage: never a workspace's `.git`. */
  gitDir: string;
  /** An empty folder that `core.hooksPath` names, so that no hook can run. */
  hooksDir: string;
  /** The excludes file with the user's extra patterns and the skipped large files. */
  excludesFile: string;
  /** The environment to start from (default process.env); every GIT_* variable in it is dropped. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** A git run failed; `stderr` says why in git's words. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ""} failed (${code}): ${stderr.trim().split("\n").slice(-3).join(" ")}`);
    this.name = "GitError";
  }
}

/**
 * Settings given on every run. They win over the shadow repository's config, and no system or
 * global config is read (see `environment`), so nothing the user configured can run code here
 * (fsmonitor hooks, filters, hooks) or change what bytes are stored (autocrlf).
 */
function overrides(options: GitOptions): string[] {
  const pairs: [string, string][] = [
    ["core.bare", "false"],
    ["core.hooksPath", options.hooksDir],
    ["core.fsmonitor", "false"],
    ["core.untrackedCache", "false"],
    ["core.splitIndex", "false"],
    ["core.autocrlf", "false"],
    ["core.safecrlf", "false"],
    ["core.symlinks", "true"],
    ["core.filemode", process.platform === "win32" ? "false" : "true"],
    ["core.quotePath", "false"],
    ["core.excludesFile", options.excludesFile],
    ["core.sparseCheckout", "false"],
    ["gc.auto", "0"],
    ["maintenance.auto", "false"],
    ["advice.addEmbeddedRepo", "false"],
    ["commit.gpgSign", "false"],
    ["diff.renames", "false"],
    ["submodule.recurse", "false"],
    ["protocol.allow", "never"],
  ];
  return pairs.flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/** The environment of a run: the user's, without any GIT_* variable, plus ours. */
function environment(options: GitOptions, run: GitRunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(options.baseEnv ?? process.env)) {
    if (!key.toUpperCase().startsWith("GIT_")) env[key] = value;
  }
  env.GIT_DIR = options.gitDir;
  if (run.workTree !== undefined) env.GIT_WORK_TREE = run.workTree;
  if (run.indexFile !== undefined) env.GIT_INDEX_FILE = run.indexFile;
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = devNull;
  env.GIT_ATTR_NOSYSTEM = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_OPTIONAL_LOCKS = "0";
  env.GIT_NO_REPLACE_OBJECTS = "1";
  env.GIT_ADVICE = "0";
  // Messages parsed below (a nested repository without a commit) are git's English ones.
  env.LC_ALL = "C";
  env.LANGUAGE = "C";
  return env;
}

/** Runs git once, collecting its output; resolves whatever the exit code (callers decide). */
export function runGitProcess(gitPath: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string; input?: string | Buffer }): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(gitPath, args, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") }));
    // A git that exits before reading its input must not fail the run with EPIPE.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);
  });
}

/**
 * The one way the checkpoint code runs git: the user's git with an explicit GIT_DIR (the shadow
 * repository), GIT_WORK_TREE and GIT_INDEX_FILE, so the workspace's own repository is never the one
 * git opens.
 */
export class Git {
  constructor(readonly options: GitOptions) {}

  /** Runs `git <args>`; rejects with GitError on a non-zero exit unless `allowFailure`. */
  async run(args: readonly string[], run: GitRunOptions = {}): Promise<GitResult> {
    const result = await runGitProcess(this.options.gitPath, [...overrides(this.options), ...args], { env: environment(this.options, run), cwd: run.workTree ?? this.options.gitDir, input: run.input });
    if (result.code !== 0 && !run.allowFailure) throw new GitError(args, result.code, result.stderr);
    return result;
  }

  /** Runs and returns stdout as text. */
  async text(args: readonly string[], run: GitRunOptions = {}): Promise<string> {
    return (await this.run(args, run)).stdout.toString("utf8");
  }
}

/** Git's version ("2.39.5"), or undefined when `gitPath` does not run as git. */
export function probeGit(gitPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(gitPath, ["--version"], { stdio: ["ignore", "pipe", "ignore"], windowsHide: true, env: { ...process.env, LC_ALL: "C" } });
    } catch {
      resolve(undefined);
      return;
    }
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code === 0 ? /git version (\S+)/.exec(out)?.[1] : undefined));
  });
}

/** Splits NUL-separated output, without the empty tail. */
export function splitNul(buffer: Buffer | string): string[] {
  const parts = buffer.toString("utf8").split("\0");
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
