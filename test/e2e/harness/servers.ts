/**
 * The two ways of serving a real VS Code from code-server: code-server's own command (what users run,
 * used by the end-to-end tests and the demo) and VS Code's server entry (which accepts the smoke-test
 * driver flag that the extension-host test runner needs).
 */
import { spawnSync } from "node:child_process";
import { codeServerEntry, vscodeServerMain } from "./paths";
import { findFreePort, ManagedProcess, startProcess, waitForHttpOk } from "./processes";
import { Sandbox } from "./sandbox";

/** A running server. */
export interface RunningServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

/** Options shared by both servers. */
export interface ServerOptions {
  /** Copy the server's output here as it arrives (it is always kept for error messages). */
  readonly echo?: (line: string) => void;
  /** How long to wait for the server to answer; 60 s by default. */
  readonly startTimeoutMs?: number;
  /** A fixed port instead of a free one. */
  readonly port?: number;
  /** Keep VS Code's workspace trust on (off by default, so a test folder opens trusted without a prompt). */
  readonly workspaceTrust?: boolean;
}

/** Installs a .vsix into the sandbox's extensions folder with code-server's CLI. */
export function installVsix(sandbox: Sandbox, vsix: string): void {
  const result = spawnSync(process.execPath, [
    codeServerEntry, "--install-extension", vsix, "--force",
    "--extensions-dir", sandbox.extensionsDir, "--user-data-dir", sandbox.userDataDir,
  ], { env: sandbox.env, encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`Installing ${vsix} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/** Starts `code-server` with no auth on 127.0.0.1, opening `folder`. Ready when /healthz answers. */
export async function startCodeServer(sandbox: Sandbox, folder: string, options: ServerOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await findFreePort());
  const server = startProcess(process.execPath, [
    codeServerEntry, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none",
    "--disable-telemetry", "--disable-update-check", ...(options.workspaceTrust ? [] : ["--disable-workspace-trust"]), "--disable-getting-started-override",
    "--user-data-dir", sandbox.userDataDir, "--extensions-dir", sandbox.extensionsDir, folder,
  ], { env: sandbox.env, ...(options.echo ? { echo: options.echo } : {}) });
  return ready(server, port, "/healthz", options);
}

/**
 * Starts VS Code's server entry with the smoke-test driver enabled, so that a `payload` in the page URL
 * can name an extension under development and a test runner. Ready when /version answers.
 */
export async function startVscodeServer(sandbox: Sandbox, options: ServerOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await findFreePort());
  const server = startProcess(process.execPath, [
    vscodeServerMain, "--host", "127.0.0.1", "--port", String(port), "--without-connection-token",
    "--accept-server-license-terms", "--enable-smoke-test-driver", "--disable-telemetry",
    ...(options.workspaceTrust ? [] : ["--disable-workspace-trust"]),
    "--user-data-dir", sandbox.userDataDir, "--server-data-dir", sandbox.serverDataDir, "--extensions-dir", sandbox.extensionsDir,
  ], { env: sandbox.env, ...(options.echo ? { echo: options.echo } : {}) });
  return ready(server, port, "/version", options);
}

async function ready(server: ManagedProcess, port: number, probe: string, options: ServerOptions): Promise<RunningServer> {
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForHttpOk(origin + probe, server, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { port, origin, process: server, stop: () => server.stop() };
}
