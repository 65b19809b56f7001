import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import { OutputCapture, type CapturedOutput } from "../output/output-capture";
import type { OutputLimits } from "../output/output-limits";
import { defaultProcessGroups, isProcessGroupAlive, KILL_GRACE_MS, signalProcessGroup, type ProcessGroups } from "./process-groups";

/** How a shell command ended, in the shape a `bashExecution` message records. */
export interface ShellResult extends CapturedOutput {
  /** undefined when the command was cancelled or killed by a signal. */
  exitCode: number | undefined;
  cancelled: boolean;
  /** The timeout stopped it (it then also counts as cancelled). */
  timedOut: boolean;
  /**
   * The command left processes running (`cmd &`): the shell has exited but its process group has
   * not. They keep running, their later output is not captured, and they are stopped with the
   * process-group tracker's owner (the session).
   */
  backgroundProcesses: boolean;
}

export interface ShellOptions {
  cwd: string;
  signal?: AbortSignal;
  /** Sanitized output as it arrives. */
  onOutput?: (text: string) => void;
  limits?: OutputLimits;
  /** Folder for full-output files (default: the system temp folder); created when needed. */
  outputDirectory?: string;
  /** Stop the command after this long. */
  timeoutMs?: number;
  /** The shell to run commands with (default: bash when present, else sh; cmd.exe on Windows). */
  shellPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Tracks the command's process group until all of it has ended (default: a shared tracker). */
  processGroups?: ProcessGroups;
  /**
   * How long to wait, once the shell has exited, for its output pipes to close. Processes left in
   * the background hold them open; the command is over when the shell is, not when they are.
   */
  pipeGraceMs?: number;
}

/** Output that background processes write just as the shell exits still has this long to arrive. */
export const DEFAULT_PIPE_GRACE_MS = 250;

function defaultShell(): { path: string; args: (command: string) => string[] } {
  if (process.platform === "win32") return { path: process.env.ComSpec ?? "cmd.exe", args: (c) => ["/d", "/s", "/c", c] };
  const path = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
  return { path, args: (c) => ["-c", c] };
}

/**
 * Runs one shell command in `cwd`, stdout and stderr interleaved as they arrive, with the output
 * capped (tail kept, whole output to a file). The command is over when the shell exits: processes
 * it left in the background do not hold the result back (they stay tracked, see ShellResult).
 * Cancelling through `signal` (or the timeout) stops the whole process group, children included,
 * also when the shell itself has already exited.
 * Rejects only when the shell cannot be started (e.g. the folder does not exist).
 */
export function runShellCommand(command: string, options: ShellOptions): Promise<ShellResult> {
  const shell = options.shellPath ? { path: options.shellPath, args: (c: string) => ["-c", c] } : defaultShell();
  const capture = new OutputCapture({ limits: options.limits, directory: options.outputDirectory, prefix: "arbor-bash" });
  const groups = options.processGroups ?? defaultProcessGroups;
  return new Promise<ShellResult>((resolve, reject) => {
    // Node reports a missing cwd as the shell binary missing; say what is really wrong.
    if (!existsSync(options.cwd)) {
      reject(new Error(`The working directory does not exist: ${options.cwd}`));
      return;
    }
    if (options.signal?.aborted) {
      void capture.finish().then((out) => resolve({ ...out, exitCode: undefined, cancelled: true, timedOut: false, backgroundProcesses: false }));
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
    const pgid = child.pid;
    if (pgid !== undefined) groups.add(pgid);
    let cancelled = false;
    let timedOut = false;
    let finished = false;
    let exitCode: number | null = null;
    let graceTimer: NodeJS.Timeout | undefined;

    // Deliberately not skipped once the shell has exited: its background children may still run.
    const stop = (): void => {
      if (finished || cancelled || pgid === undefined) return;
      cancelled = true;
      signalProcessGroup(pgid, "SIGTERM");
      setTimeout(() => signalProcessGroup(pgid, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timeout = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs)
      : undefined;
    options.signal?.addEventListener("abort", stop, { once: true });
    const onData = (data: Buffer): void => {
      if (finished) return;
      const text = capture.append(data);
      if (text) options.onOutput?.(text);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);

    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timeout) clearTimeout(timeout);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", stop);
      // Keep draining what background processes still write (a closed pipe would kill them with
      // SIGPIPE), without holding the event loop open for them.
      for (const stream of [child.stdout, child.stderr]) (stream as unknown as Partial<Socket>).unref?.();
      child.unref();
      const background = !cancelled && pgid !== undefined && isProcessGroupAlive(pgid);
      if (pgid !== undefined && !background && !cancelled) groups.forget(pgid);
      capture.finish().then(
        (out) =>
          resolve({
            ...out,
            exitCode: cancelled || exitCode === null ? undefined : exitCode,
            cancelled,
            timedOut,
            backgroundProcesses: background,
          }),
        reject,
      );
    };

    child.once("error", (error) => {
      finished = true;
      if (timeout) clearTimeout(timeout);
      options.signal?.removeEventListener("abort", stop);
      if (pgid !== undefined) groups.forget(pgid);
      void capture.finish().finally(() => reject(error));
    });
    child.once("exit", (code) => {
      exitCode = code;
      graceTimer = setTimeout(finish, options.pipeGraceMs ?? DEFAULT_PIPE_GRACE_MS);
    });
    child.once("close", finish);
  });
}
