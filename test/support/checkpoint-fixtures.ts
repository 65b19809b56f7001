/** Real workspaces and real git for the checkpoint tests. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** Runs the user's git as the user would (their own repository, no shadow). */
export function userGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

/** Writes files (relative path → text or bytes), creating folders. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/**
 * Everything about a folder's files that a restore must get right: per path its type, executable
 * bit and bytes (a symlink's target). Folders named in `skip` (like `.git`) are left out.
 */
export function describeTree(root: string, skip: readonly string[] = [".git"]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (skip.includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) out[r] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full, r);
      else {
        const stat = fs.statSync(full);
        out[r] = `${stat.mode & 0o100 ? "x" : "-"}:${createHash("sha1").update(fs.readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(root, "");
  return out;
}

/** Every file of a folder (a `.git`) with its bytes, as a hash per path: byte-for-byte comparison. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out[`${r}/`] = "dir";
        walk(full, r);
      } else if (entry.isSymbolicLink()) out[r] = `link:${fs.readlinkSync(full)}`;
      else {
        const stat = fs.statSync(full);
        out[r] = `${stat.mode.toString(8)}:${stat.mtimeMs}:${createHash("sha1").update(fs.readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(dir, "");
  return out;
}

/** A user repository with a commit, a stash, a branch, a tag and a hook that leaves a marker if it ever runs. */
export function makeUserRepo(ws: string, marker: string): void {
  fs.mkdirSync(ws, { recursive: true });
  userGit(ws, "init", "-q", "-b", "main");
  writeFiles(ws, { "README.md": "hello\n", "src/app.js": "console.log(1);\n", ".gitignore": "*.log\nbuild/\n" });
  userGit(ws, "add", "-A");
  userGit(ws, "commit", "-q", "-m", "first");
  writeFiles(ws, { "src/app.js": "console.log(2);\n" });
  userGit(ws, "stash", "-q");
  userGit(ws, "branch", "feature");
  userGit(ws, "tag", "v1");
  writeFiles(ws, { "src/app.js": "console.log(3);\n" });
  userGit(ws, "add", "src/app.js");
  for (const hook of ["pre-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"]) {
    const file = path.join(ws, ".git", "hooks", hook);
    fs.writeFileSync(file, `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
  }
  // A repository config that would run code if git ever read it for our work.
  userGit(ws, "config", "core.fsmonitor", `${path.join(ws, ".git", "hooks", "pre-commit")}`);
}
