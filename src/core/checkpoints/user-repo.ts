import { promises as fs } from "node:fs";
import * as path from "node:path";
import { runGitProcess, type GitResult } from "./git";

/**
 * Git runs in the user's own repository, for the one change Arbor makes there: a new worktree on a
 * new branch (git's documented mechanism for a second checkout). Every run names an empty hooks
 * folder and turns fsmonitor off, so no hook or configured program runs for Arbor; every GIT_*
 * variable of the environment is dropped, so git finds the repository from `cwd` and nothing else.
 */
export class UserRepoGit {
  constructor(
    readonly gitPath: string,
    /** An empty folder for `core.hooksPath` (the checkpoint store's own). */
    private readonly hooksDir: string,
  ) {}

  run(cwd: string, args: readonly string[], options: { input?: string; allowFailure?: boolean } = {}): Promise<GitResult> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.toUpperCase().startsWith("GIT_")) env[key] = value;
    env.GIT_TERMINAL_PROMPT = "0";
    env.GIT_OPTIONAL_LOCKS = "0";
    env.LC_ALL = "C";
    env.LANGUAGE = "C";
    const config = ["-c", `core.hooksPath=${this.hooksDir}`, "-c", "core.fsmonitor=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false"];
    return runGitProcess(this.gitPath, [...config, ...args], { cwd, env, input: options.input }).then((result) => {
      if (result.code !== 0 && !options.allowFailure) throw new Error(`git ${args[0] ?? ""} failed: ${result.stderr.trim().split("\n").slice(-2).join(" ")}`);
      return result;
    });
  }

  async text(cwd: string, args: readonly string[]): Promise<string> {
    return (await this.run(cwd, args)).stdout.toString("utf8").trim();
  }
}

/** The git repository a workspace folder belongs to. */
export interface UserRepo {
  /** The repository's top folder (real path). */
  toplevel: string;
  /** The workspace folder relative to it, "/"-separated ("" when it is the top folder). */
  prefix: string;
  /** The commit HEAD points at. */
  head: string;
}

/**
 * The repository of `folder`, when it is inside a git work tree whose HEAD has a commit (a new
 * branch needs one to start from). Undefined for a folder outside any repository.
 */
export async function findUserRepo(git: UserRepoGit, folder: string): Promise<UserRepo | undefined> {
  const inside = await git.run(folder, ["rev-parse", "--is-inside-work-tree"], { allowFailure: true });
  if (inside.code !== 0 || inside.stdout.toString("utf8").trim() !== "true") return undefined;
  const toplevel = await fs.realpath(await git.text(folder, ["rev-parse", "--show-toplevel"]));
  const head = await git.run(folder, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { allowFailure: true });
  if (head.code !== 0) return undefined;
  const rel = path.relative(toplevel, await fs.realpath(folder));
  return { toplevel, prefix: rel.split(path.sep).join("/"), head: head.stdout.toString("utf8").trim() };
}

/** Why a branch name cannot be used (not a valid name, or the branch exists), or undefined when it can. */
export async function branchNameProblem(git: UserRepoGit, repo: UserRepo, name: string): Promise<string | undefined> {
  if (name.trim() === "" || name !== name.trim()) return "A branch name cannot be empty or start or end with a space.";
  // A name like "-x" would be read as an option by the commands below.
  if (name.startsWith("-")) return "A branch name cannot start with '-'.";
  const valid = await git.run(repo.toplevel, ["check-ref-format", "--branch", name], { allowFailure: true });
  if (valid.code !== 0) return `"${name}" is not a valid branch name.`;
  const exists = await git.run(repo.toplevel, ["show-ref", "--verify", "--quiet", `refs/heads/${name}`], { allowFailure: true });
  if (exists.code === 0) return `A branch "${name}" already exists.`;
  return undefined;
}

/** Lowercase words joined by '-', at most `max` characters; "" when nothing is left. */
export function slug(text: string, max = 40): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/, "");
}

/** A branch name for a fork that does not exist yet: `arbor/<name>-<entry>`, with -2, -3… on a collision. */
export async function defaultBranchName(git: UserRepoGit, repo: UserRepo, sessionName: string | undefined, entryId: string): Promise<string> {
  const base = `arbor/${[slug(sessionName ?? "") || "fork", slug(entryId, 8)].filter(Boolean).join("-")}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if ((await branchNameProblem(git, repo, name)) === undefined || n > 99) return name;
  }
}

/** A folder beside the repository, named after it and the branch, that does not exist yet. */
export async function worktreeFolderFor(repo: UserRepo, branch: string): Promise<string> {
  const base = path.join(path.dirname(repo.toplevel), `${path.basename(repo.toplevel)}-${slug(branch.replace(/^arbor\//, ""), 60) || "fork"}`);
  for (let n = 1; ; n++) {
    const folder = n === 1 ? base : `${base}-${n}`;
    const taken = await fs.lstat(folder).then(
      () => true,
      () => false,
    );
    if (!taken) return folder;
  }
}
