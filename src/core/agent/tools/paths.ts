import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** Thrown when a tool is asked for a path outside the session's working directory. */
export class PathOutsideCwdError extends Error {
  constructor(requested: string, cwd: string) {
    super(`The path "${requested}" is outside the session's working directory (${cwd}); file tools only work inside it.`);
    this.name = "PathOutsideCwdError";
  }
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended. */
export function realOrNearest(path: string): string {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(current), ...rest);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.unshift(relative(parent, current));
      current = parent;
    }
  }
}

/** Whether `target` is `root` or below it (both absolute; compared as written). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Resolves a path a model gave (relative to `cwd`, or absolute) and checks that it stays inside
 * `cwd`, symbolic links included, so a link cannot lead a tool out of the workspace.
 */
export function resolveInCwd(cwd: string, requested: string): string {
  if (requested.trim() === "") throw new Error("The path is empty.");
  const absolute = resolve(cwd, requested);
  if (!isInside(resolve(cwd), absolute) || !isInside(realOrNearest(resolve(cwd)), realOrNearest(absolute))) {
    throw new PathOutsideCwdError(requested, cwd);
  }
  return absolute;
}
