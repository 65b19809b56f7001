import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where sessions live, as Pi resolves it, given an environment. */
export interface SessionLocationOptions {
  /** Overrides the agent dir (else `$PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  agentDir?: string;
  /** An explicit flat sessions directory (else `$PI_CODING_AGENT_SESSION_DIR`, else per-cwd folders). */
  sessionDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

function expandHome(p: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/") || p.startsWith("~\\")) return join(homedir(), p.slice(2));
  return p;
}

/** `$PI_CODING_AGENT_DIR` (with `~` expanded) or `~/.pi/agent`. */
export function resolveAgentDir(opts: SessionLocationOptions = {}): string {
  if (opts.agentDir) return resolve(expandHome(opts.agentDir));
  const env = opts.env ?? process.env;
  const fromEnv = env.PI_CODING_AGENT_DIR;
  if (fromEnv && fromEnv.trim()) return resolve(expandHome(fromEnv.trim()));
  return join(homedir(), ".pi", "agent");
}

/** `<agentDir>/sessions`: the root that holds one folder per working directory. */
export function resolveSessionsRoot(opts: SessionLocationOptions = {}): string {
  return join(resolveAgentDir(opts), "sessions");
}

/** The explicit flat sessions directory, if one is configured. */
export function resolveExplicitSessionDir(opts: SessionLocationOptions = {}): string | undefined {
  if (opts.sessionDir) return resolve(expandHome(opts.sessionDir));
  const env = opts.env ?? process.env;
  const fromEnv = env.PI_CODING_AGENT_SESSION_DIR;
  if (fromEnv && fromEnv.trim()) return resolve(expandHome(fromEnv.trim()));
  return undefined;
}

/** `/work/app` -> `--work-app--`: one leading separator dropped, every `/`, `\` and `:` made `-`. */
export function encodeCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** The folder that holds the sessions of one working directory. */
export function sessionDirForCwd(cwd: string, opts: SessionLocationOptions = {}): string {
  return resolveExplicitSessionDir(opts) ?? join(resolveSessionsRoot(opts), encodeCwd(cwd));
}

/** `<timestamp with ':' and '.' made '-'>_<sessionId>.jsonl` */
export function sessionFileName(headerTimestamp: string, sessionId: string): string {
  return `${headerTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
