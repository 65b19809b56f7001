import type { SessionManager } from "../session/session-manager";
import type { BashExecutionMessage } from "../session/types";
import { AgentError } from "./errors";
import type { AgentSessionEvent } from "./events";
import type { BashOperations, UserBashResult } from "./hook-events";
import { OutputCapture } from "./output/output-capture";
import type { OutputLimits } from "./output/output-limits";
import type { RunSlots } from "./run-slots";
import type { ProcessGroups } from "./shell/process-groups";
import { runShellCommand, type ShellResult } from "./shell/run-shell";

/** What `!cmd` produced. */
export interface BashRunResult {
  message: BashExecutionMessage;
  /** Undefined while the append waits for a running prompt to finish. */
  entryId?: string;
}

export interface BashCommandInput {
  sessionManager: SessionManager;
  command: string;
  excludeFromContext: boolean;
  signal: AbortSignal;
  limits: OutputLimits;
  outputDirectory?: string;
  shellPath?: string;
  /** Pi's `shellCommandPrefix`: a line run before the command (the command is recorded without it). */
  commandPrefix?: string;
  processGroups?: ProcessGroups;
  slots: RunSlots;
  emit(event: AgentSessionEvent): void;
  /** An extension's answer to `user_bash`: its own result, or operations that run the command elsewhere. */
  override?: UserBashResult;
}

/**
 * Runs `!cmd` / `!!cmd` in the session's cwd and records the `bashExecution` message (keys in Pi's
 * order). A cancelled command is recorded too, with what it printed; a shell that cannot start
 * records nothing and rejects with AgentError("shell-failed").
 */
export async function runBashCommand(input: BashCommandInput): Promise<BashRunResult> {
  input.emit({ type: "bash_start", command: input.command, excludeFromContext: input.excludeFromContext });
  let result: Pick<ShellResult, "output" | "exitCode" | "cancelled" | "truncated" | "fullOutputPath">;
  try {
    const options = {
      cwd: input.sessionManager.getCwd(),
      signal: input.signal,
      onOutput: (text: string) => input.emit({ type: "bash_output", text }),
      limits: input.limits,
      outputDirectory: input.outputDirectory,
      shellPath: input.shellPath,
      processGroups: input.processGroups,
    };
    const command = withCommandPrefix(input.commandPrefix, input.command);
    if (input.override?.result) result = input.override.result;
    else if (input.override?.operations) result = await runWithOperations(input.override.operations, command, options);
    else result = await runShellCommand(command, options);
  } catch (error) {
    throw new AgentError("shell-failed", `Could not run the command: ${error instanceof Error ? error.message : String(error)}`);
  }
  const message: BashExecutionMessage = {
    role: "bashExecution",
    command: input.command,
    output: result.output,
    exitCode: result.exitCode,
    cancelled: result.cancelled,
    truncated: result.truncated,
    fullOutputPath: result.fullOutputPath,
    timestamp: Date.now(),
  };
  if (input.excludeFromContext) message.excludeFromContext = true;
  let entryId: string | undefined;
  if (input.slots.isBusy("run")) {
    input.slots.appendWhenIdle(() => input.sessionManager.appendMessage(message)).then(
      (id) => input.emit({ type: "message_end", message, entryId: id }),
      (error: Error) => input.emit({ type: "error", error }),
    );
  } else {
    entryId = input.sessionManager.appendMessage(message);
    input.emit({ type: "message_end", message, entryId });
  }
  input.emit({ type: "bash_end", message, entryId });
  return { message, entryId };
}

/** Runs a command through an extension's operations, with Arbor's output caps. */
async function runWithOperations(
  operations: BashOperations,
  command: string,
  options: { cwd: string; signal: AbortSignal; onOutput(text: string): void; limits: OutputLimits; outputDirectory?: string },
): Promise<Pick<ShellResult, "output" | "exitCode" | "cancelled" | "truncated" | "fullOutputPath">> {
  const capture = new OutputCapture({ limits: options.limits, directory: options.outputDirectory, prefix: "arbor-bash" });
  let exitCode: number | null = null;
  try {
    ({ exitCode } = await operations.exec(command, options.cwd, {
      signal: options.signal,
      onData: (data) => {
        const text = capture.append(data);
        if (text) options.onOutput(text);
      },
    }));
  } catch (error) {
    if (!options.signal.aborted) {
      await capture.finish();
      throw error;
    }
  }
  const out = await capture.finish();
  const cancelled = options.signal.aborted;
  return { ...out, exitCode: cancelled || exitCode === null ? undefined : exitCode, cancelled };
}

/** The command as the shell gets it: Pi's `shellCommandPrefix` on a line of its own before it. */
export function withCommandPrefix(prefix: string | undefined, command: string): string {
  return prefix ? `${prefix}\n${command}` : command;
}
