import { SessionError } from "../core/session/errors";
import { runCommand } from "./commands";
import { UsageError } from "./args";
import { oneLine } from "./terminal-text";

const USAGE = `arbor: work with Pi coding-agent session files (JSONL trees) without VS Code

Usage:
  arbor ls [--all] [--cwd DIR] [--dir SESSIONS_DIR] [--json]
  arbor tree FILE [--depth N] [--leaf-path] [--limit N]
  arbor tree FILE --json|--ndjson [--preview] [--depth N] [--leaf-path] [--limit N]
  arbor context FILE [--leaf ID] [--llm]
  arbor label FILE ID TEXT | arbor label FILE ID --clear
  arbor fork FILE ID
  arbor checkout FILE ID [--json]
      moves the leaf to the entry as a click in the tree does (a user message: to its parent,
      printing the message's text); refused while another process holds the session
  arbor check FILE [--json]
  arbor export FILE [--leaf ID] [--format html|md] [--out PATH]
      HTML (default) is written to ./<session file name>.html, Markdown to standard output;
      --out picks the file (its extension the format), --out - standard output.

tree --json writes one JSON document, --ndjson one line per entry (after a first "session" line):
flat objects {id, parentId, children, type, role, timestamp, line, label, active, leaf} in drawing
order, streamed; --preview adds each entry's summary (which reads every entry's body).
Every command accepts --timings (phase times in milliseconds, as JSON on stderr).
Sessions are found where Pi keeps them: $PI_CODING_AGENT_DIR (default ~/.pi/agent)/sessions/<cwd>,
or $PI_CODING_AGENT_SESSION_DIR.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  // A reader that stops early (`arbor tree FILE | head`) closes the pipe: the rest of the output
  // is dropped quietly and the command ends as it would have, its files in order (no crash on EPIPE).
  let closed = false;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    closed = true;
    process.stdout.emit("drain");
  });
  return runCommand(command, rest, {
    stdout: (s) => {
      if (!closed) process.stdout.write(s);
    },
    stderr: (s) => process.stderr.write(s),
    stdoutIsTerminal: process.stdout.isTTY === true,
    drain: () => (!closed && process.stdout.writableNeedDrain ? new Promise<void>((resolve) => process.stdout.once("drain", () => resolve())) : Promise.resolve()),
    closed: () => closed,
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = err instanceof UsageError ? `${err.message} (see arbor --help)` : err instanceof SessionError ? err.message : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    // Messages name paths and ids from the user's files: escaped like every other line (terminal-text.ts).
    process.stderr.write(`arbor: ${oneLine(message)}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
