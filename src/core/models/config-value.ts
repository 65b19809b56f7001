/**
 * Pi's "config values", used for keys and header values in models.json and auth.json:
 * - `!command` runs the command in a shell and uses its trimmed output;
 * - otherwise, the value names an environment variable when one of that name is set;
 * - otherwise, it is the value itself.
 *
 * Commands run asynchronously (the extension host must not block), with a 10 s limit, and only where
 * the host allows them (a trusted workspace: Restricted Mode runs no shell).
 */

import { exec } from "node:child_process";

/** Whether commands may run, and how (a seam for tests). */
export interface ConfigValueOptions {
  allowCommands: boolean;
  env?: NodeJS.ProcessEnv;
  /** Runs `!command` values; defaults to the user's shell through child_process.exec. */
  runCommand?: (command: string) => Promise<string | undefined>;
}

/** A config value that could not be resolved; the message names what it was for. */
export class ConfigValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigValueError";
  }
}

/** Whether a config value is a `!command`. */
export function isCommandValue(value: string): boolean {
  return value.startsWith("!");
}

/** Resolves a config value; rejects with {@link ConfigValueError} when a command fails, yields nothing, or may not run. */
export async function resolveConfigValue(value: string, what: string, options: ConfigValueOptions): Promise<string> {
  if (isCommandValue(value)) {
    if (!options.allowCommands) {
      throw new ConfigValueError(`The ${what} comes from a shell command (${value}); Arbor runs it only in a trusted workspace.`);
    }
    const output = await (options.runCommand ?? runShellCommand)(value.slice(1));
    if (output === undefined) throw new ConfigValueError(`The shell command for the ${what} failed or printed nothing: ${value.slice(1)}`);
    return output;
  }
  const env = options.env ?? process.env;
  return env[value] || value;
}

/** Resolves every header value; see {@link resolveConfigValue}. */
export async function resolveHeaders(headers: Record<string, string> | undefined, what: string, options: ConfigValueOptions): Promise<Record<string, string> | undefined> {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = await resolveConfigValue(value, `${what} header "${name}"`, options);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Runs a command in the user's shell; its trimmed output, or undefined when it fails or prints nothing. */
export function runShellCommand(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = exec(command, { timeout: 10_000, encoding: "utf8", windowsHide: true }, (error, stdout) => {
      if (error) return resolve(undefined);
      const trimmed = stdout.trim();
      resolve(trimmed === "" ? undefined : trimmed);
    });
    // Nothing is typed into it: a command that waits for input ends at once instead of at the time limit.
    child.stdin?.end();
  });
}
