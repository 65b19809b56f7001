import { withCommandPrefix } from "../bash-command";
import { SHELL_DISABLED_MESSAGE } from "../errors";
import { runShellCommand } from "../shell/run-shell";
import { requireString, textOutcome, type AgentTool, type ToolOutcome } from "./tool";

/** The note the model reads when a command left processes running. */
export const BACKGROUND_PROCESSES_NOTE =
  "[The command left processes running in the background. Their later output is not captured; they are stopped when the session ends.]";

/** `bash`: runs a shell command in the session's cwd, output capped like `!cmd`. */
export function createBashTool(options: { shellPath?: string; commandPrefix?: () => string | undefined } = {}): AgentTool {
  return {
    runsShell: true,
    capsOwnOutput: true,
    definition: {
      name: "bash",
      description:
        "Run a shell command in the working directory and get its combined stdout and stderr. " +
        "Long output is cut to its last lines; the full output is saved to a file whose path is given. " +
        "The user may be asked to approve each command.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command line to run." },
          timeout: { type: "number", description: "Stop the command after this many seconds (optional; a default applies)." },
        },
        required: ["command"],
      },
    },
    async execute(args, context): Promise<ToolOutcome> {
      if (!context.allowShell) return textOutcome(SHELL_DISABLED_MESSAGE, true);
      const command = requireString(args, "command");
      const timeoutMs = typeof args.timeout === "number" && args.timeout > 0 ? args.timeout * 1000 : context.commandTimeoutMs || undefined;
      // Pi's shellCommandPrefix goes before the command the user approved; it is the user's own setting.
      const result = await runShellCommand(withCommandPrefix(options.commandPrefix?.(), command), {
        cwd: context.cwd,
        signal: context.signal,
        limits: context.limits,
        outputDirectory: context.outputDirectory,
        onOutput: context.onUpdate,
        timeoutMs,
        shellPath: options.shellPath,
        processGroups: context.processGroups,
      });
      let text = result.output === "" ? "(no output)" : result.output;
      if (result.truncated) {
        text = `[Output cut to its last lines.${result.fullOutputPath ? ` Full output: ${result.fullOutputPath}` : ""}]\n${text}`;
      }
      if (result.timedOut) text += `\n\n[Stopped after the ${formatSeconds(timeoutMs!)} timeout.]`;
      else if (result.cancelled) text += "\n\n[The command was cancelled.]";
      else if (result.exitCode !== 0) text += `\n\n[Exit code ${result.exitCode ?? "unknown (killed by a signal)"}]`;
      if (result.backgroundProcesses) text += `\n\n${BACKGROUND_PROCESSES_NOTE}`;
      const details = { exitCode: result.exitCode, cancelled: result.cancelled, truncated: result.truncated, fullOutputPath: result.fullOutputPath };
      return textOutcome(text, result.cancelled || result.exitCode !== 0, details);
    },
  };
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
