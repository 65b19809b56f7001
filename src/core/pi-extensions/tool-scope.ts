/**
 * What a tool run needs besides its arguments (the session's folder, whether the shell is allowed,
 * the output caps), available to code an extension calls from inside a run. Pi's `createReadTool(cwd)`
 * and friends are usually made with `process.cwd()`, which in VS Code's extension host is not the
 * workspace: a tool made that way works in the folder of the session it runs for.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { OutputLimits } from "../agent/output/output-limits";
import type { ProcessGroups } from "../agent/shell/process-groups";
import type { RipgrepLocator } from "../agent/tools/ripgrep";

export interface ToolScope {
  cwd: string;
  allowShell: boolean;
  limits: OutputLimits;
  outputDirectory?: string;
  /** The session's process groups: a command run through Pi's `createBashTool` is tracked and stopped with the session. */
  processGroups?: ProcessGroups;
  /** The host's default command timeout (the bash tool's own `timeout` argument wins). */
  commandTimeoutMs?: number;
  /** Where the run's reading tools may reach besides its folder (see ToolContext.readableRoots). */
  readableRoots?: readonly string[];
  /** The host's ripgrep (see ToolContext.ripgrep). */
  ripgrep?: RipgrepLocator;
}

const scopes = new AsyncLocalStorage<ToolScope>();

/** Runs `work` with `scope` as the ambient tool scope. */
export function runInToolScope<T>(scope: ToolScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The ambient tool scope, if code runs inside a tool run, a command or an event handler of a session. */
export function currentToolScope(): ToolScope | undefined {
  return scopes.getStore();
}
