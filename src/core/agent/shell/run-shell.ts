import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { OutputCapture, type CapturedOutput } from "../output/output-capture";
import type { OutputLimits } from "../output/output-limits";

/** How a shell command ended, in the shape a `bashExecution` message records. */
export interface ShellResult extends CapturedOutput {
  /** undefined when the command was cancelled or killed by a signal. */
  exitCode: number | undefined;
  cancelled: boolean;
  /** The timeout stopped it (it then also counts as cancelled). */
  timedOut: boolean;
}

export interface ShellOptions {
  cwd: string;
  signal?: AbortSignal;
  /** Sanitized output as it arrives. */
  onOutput?: (text: string) => void;
  limits?: OutputLimits;
  /** Folder for full-output files (default: the system temp folder). */
  outputDirectory?: string;
  /** Stop the command after this long. */
  timeoutMs?: number;
  /** The shell to run commands with (default: bash when present, else sh; cmd.exe on Windows). */
  shellPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** Time a cancelled command gets to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2000;

function defaultShell(): { path: string; args: (command: string) => string[] } {
  if (process.platform === "win32") return { path: process.env.ComSpec ?? "cmd.exe", args: (c) => ["/d", "/s", "/c", c] };
  const path = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
  return { path, args: (c) => ["-c", c] };
}

/**
 * Runs one shell command in `cwd`, stdout and stderr interleaved as they arrive, with the output
 * capped (tail kept, whole output to a file). Cancelling through `signal` (or the timeout) stops
 * the whole process group, so children the command started stop too.
 * Rejects only when the shell cannot be started (e.g. the folder does not exist).
 */
export function runShellCommand(command: string, options: ShellOptions): Promise<ShellResult> {
  const shell = options.shellPath ? { path: options.shellPath, args: (c: string) => ["-c", c] } : defaultShell();
  const capture = new OutputCapture({ limits: options.limits, directory: options.outputDirectory, prefix: "arbor-bash" });
  return new Promise<ShellResult>((resolve, reject) => {
    // Node reports a missing cwd as the shell binary missing; say what is really wrong.
    if (!existsSync(options.cwd)) {
      reject(new Error(`The working directory does not exist: ${options.cwd}`));
      return;
    }
    if (options.signal?.aborted) {
      void capture.finish().then((out) => resolve({ ...out, exitCode: undefined, cancelled: true, timedOut: false }));
      return;
    }
    const child = spawn(shell.path, shell.args(command), {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so a cancel reaches everything the command started.
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    let cancelled = false;
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      if (cancelled || child.exitCode !== null) return;
      cancelled = true;
      signalGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timeout = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs)
      : undefined;
    options.signal?.addEventListener("abort", stop, { once: true });
    const onData = (data: Buffer): void => {
      const text = capture.append(data);
      if (text) options.onOutput?.(text);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const cleanUp = (): void => {
      if (timeout) clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", stop);
    };
    child.once("error", (error) => {
      cleanUp();
      void capture.finish().finally(() => reject(error));
    });
    child.once("close", (code) => {
      cleanUp();
      capture.finish().then(
        (out) => resolve({ ...out, exitCode: cancelled || code === null ? undefined : code, cancelled, timedOut }),
        reject,
      );
    });
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // A negative pid addresses the process group (POSIX); Windows has no groups, so the child alone.
    process.kill(process.platform === "win32" ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}
