/**
 * Child processes that are always cleaned up: each runs in its own process group, so stopping it also
 * stops what it spawned (VS Code's server forks extension hosts, file watchers and pty hosts).
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A started process whose whole group can be stopped. */
export interface ManagedProcess {
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr interleaved), for error messages. */
  output(): string;
  /** Resolves when the process has exited; its exit code, or null when a signal ended it. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the group, then SIGKILL if it has not exited after the grace period. */
  stop(graceMs?: number): Promise<void>;
}

/** Options for {@link startProcess}. */
export interface StartProcessOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Also copy the output, line by line, to this sink (for example the runner's stdout). */
  readonly echo?: (line: string) => void;
}

const live = new Set<number>();
let exitHookInstalled = false;

/**
 * A last resort: if the runner ends without stopping its children, their groups die with it. Put first
 * among the exit handlers, so that nothing is still writing when others delete the sandboxes.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.prependListener("exit", () => {
    for (const pid of live) killGroup(pid, "SIGKILL");
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Starts `command args` in a new process group with captured output. */
export function startProcess(command: string, args: readonly string[], options: StartProcessOptions): ManagedProcess {
  installExitHook();
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`Could not start ${command}.`);
  const pid = child.pid;
  live.add(pid);
  let output = "";
  let partial = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    if (output.length > 1_000_000) output = output.slice(-500_000);
    if (!options.echo) return;
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) options.echo(line);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      live.delete(pid);
      resolve(code);
    });
    child.once("error", () => {
      live.delete(pid);
      resolve(null);
    });
  });
  let exitedYet = false;
  void exited.then(() => (exitedYet = true));

  return {
    pid,
    exited,
    output: () => output,
    stop: async (graceMs = 5000) => {
      // Children of the group may outlive the leader, so the group is signalled even after it exited.
      killGroup(pid, "SIGTERM");
      if (!exitedYet) {
        const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
        await Promise.race([exited, timer]);
      }
      killGroup(pid, "SIGKILL");
      live.delete(pid);
    },
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `url` until it answers 200. Fails early, with the server output, if `server` exits first.
 */
export async function waitForHttpOk(url: string, server: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void server.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`The server exited (code ${exitCode}) before ${url} answered:\n${server.output()}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${server.output()}`);
}
