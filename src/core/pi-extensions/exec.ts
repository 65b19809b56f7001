/**
 * `pi.exec(command, args, options)`: runs a program (no shell) in the session's working folder,
 * collecting its output, with Pi's result shape. In the extension host `process.cwd()` is VS Code's
 * own folder, never the workspace, which is why the folder is always given.
 */
import { spawn } from "node:child_process";

export interface ExecOptions {
  signal?: AbortSignal;
  /** Milliseconds before the process is killed. */
  timeout?: number;
  cwd?: string;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  killed: boolean;
}

export function execCommand(command: string, args: readonly string[], cwd: string, options: ExecOptions = {}): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { cwd: options.cwd ?? cwd, shell: false, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    let stdout = "";
    let stderr = "";
    let killed = false;
    const kill = (): void => {
      if (killed || child.exitCode !== null) return;
      killed = true;
      child.kill("SIGTERM");
      setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 3000).unref();
    };
    const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
    if (options.signal?.aborted) kill();
    options.signal?.addEventListener("abort", kill, { once: true });
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const done = (code: number): void => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener("abort", kill);
      resolve({ stdout, stderr, code, killed });
    };
    child.once("error", (error) => {
      stderr += error.message;
      done(1);
    });
    child.once("close", (code) => done(code ?? 1));
  });
}
