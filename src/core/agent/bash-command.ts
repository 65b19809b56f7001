import type { SessionManager } from "../session/session-manager";
import type { BashExecutionMessage } from "../session/types";
import { AgentError } from "./errors";
import type { AgentSessionEvent } from "./events";
import type { OutputLimits } from "./output/output-limits";
import type { RunSlots } from "./run-slots";
import { runShellCommand } from "./shell/run-shell";

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
  slots: RunSlots;
  emit(event: AgentSessionEvent): void;
}

/**
 * Runs `!cmd` / `!!cmd` in the session's cwd and records the `bashExecution` message (keys in Pi's
 * order). A cancelled command is recorded too, with what it printed; a shell that cannot start
 * records nothing and rejects with AgentError("shell-failed").
 */
export async function runBashCommand(input: BashCommandInput): Promise<BashRunResult> {
  input.emit({ type: "bash_start", command: input.command, excludeFromContext: input.excludeFromContext });
  let result;
  try {
    result = await runShellCommand(input.command, {
      cwd: input.sessionManager.getCwd(),
      signal: input.signal,
      onOutput: (text) => input.emit({ type: "bash_output", text }),
      limits: input.limits,
      outputDirectory: input.outputDirectory,
      shellPath: input.shellPath,
    });
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
