import { resolve } from "node:path";
import { convertToLlm } from "../core/context/convert-to-llm";
import { SessionError } from "../core/session/errors";
import { assertRegularFile } from "../core/session/session-file-check";
import { SessionManager } from "../core/session/session-manager";
import { sessionTitle } from "../core/session/title";
import { formatAge } from "../core/util/format-age";
import { checkSessionFile } from "./check";
import { runExport } from "./export";
import { parseArgs, UsageError } from "./args";
import { writeTree } from "./tree-command";
import { escapeTerminal, jsonForTerminal, oneLine } from "./terminal-text";
import { Timings } from "./timings";

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Standard output is a terminal (absent: assume it is). A document written to a pipe or a file
   * (`arbor export ... > out.md`) must stay byte-exact; on a terminal it is escaped like the rest.
   */
  stdoutIsTerminal?: boolean;
  /** Resolves once stdout has taken what was written (commands that stream a lot wait on it). */
  drain?(): Promise<void>;
  /** Standard output's reader went away (a closed pipe): long output stops early. */
  closed?(): boolean;
  /**
   * Text made only of fields already escaped one by one (oneLine) and of Arbor's own words: it
   * skips the last-line-of-defence pass, which costs a scan of every character (the tree's text
   * at 100,000 entries is 20 MB).
   */
  stdoutEscaped?(text: string): void;
}

interface Spec {
  valued: string[];
  switches: string[];
  min: number;
  max: number;
  usage: string;
}

const SPECS: Record<string, Spec> = {
  ls: { valued: ["cwd", "dir"], switches: ["all", "json"], min: 0, max: 0, usage: "ls [--all] [--cwd DIR] [--dir SESSIONS_DIR] [--json]" },
  tree: { valued: ["depth", "limit"], switches: ["json", "ndjson", "leaf-path", "preview"], min: 1, max: 1, usage: "tree FILE [--json|--ndjson [--preview]] [--depth N] [--leaf-path] [--limit N]" },
  context: { valued: ["leaf"], switches: ["llm"], min: 1, max: 1, usage: "context FILE [--leaf ID] [--llm]" },
  label: { valued: [], switches: ["clear"], min: 2, max: 3, usage: "label FILE ID TEXT|--clear" },
  fork: { valued: [], switches: [], min: 2, max: 2, usage: "fork FILE ID" },
  checkout: { valued: [], switches: ["json"], min: 2, max: 2, usage: "checkout FILE ID [--json]" },
  check: { valued: [], switches: ["json"], min: 1, max: 1, usage: "check FILE [--json]" },
  export: { valued: ["leaf", "format", "out"], switches: [], min: 1, max: 1, usage: "export FILE [--leaf ID] [--format html|md] [--out PATH]" },
};

/** Runs one `arbor` command; returns the exit code. Errors are thrown (one line each, by the caller). */
export async function runCommand(command: string, argv: string[], out: Output): Promise<number> {
  const spec = SPECS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  const args = parseArgs(argv, new Set(spec.valued), new Set([...spec.valued, ...spec.switches, "timings"]));
  if (args.positional.length < spec.min || args.positional.length > spec.max) throw new UsageError(`usage: arbor ${spec.usage}`);
  const timings = new Timings();
  const flag = (name: string) => args.flags.get(name);
  // Session text reaches a terminal: everything but JSON output is escaped as a last line of
  // defence (fields are also escaped one by one, so that none can forge a line of its own).
  const json = flag("json") === true || flag("ndjson") === true || command === "context" || (command === "export" && out.stdoutIsTerminal === false);
  // JSON on a terminal has the controls JSON.stringify leaves raw (C1, bidi) escaped; piped, it is exact.
  const jsonOut = out.stdoutIsTerminal === false ? (s: string) => s : jsonForTerminal;
  const safe: Output = { stdout: (s) => out.stdout(json ? jsonOut(s) : escapeTerminal(s)), stdoutEscaped: (s) => out.stdout(s), stderr: (s) => out.stderr(escapeTerminal(s)), drain: out.drain, closed: out.closed };
  // Every command but ls takes a session FILE first: a FIFO, a device or a folder is refused here,
  // before anything opens it (a read would hang) or takes a lock beside it.
  if (command !== "ls") await assertRegularFile(resolve(args.positional[0]!));
  let code = 0;
  try {
    code = await COMMANDS[command]!(args.positional, flag, safe, timings);
  } finally {
    if (flag("timings")) out.stderr(`${JSON.stringify(timings)}\n`);
  }
  return code;
}

type Flag = (name: string) => string | true | undefined;
type Command = (positional: string[], flag: Flag, out: Output, timings: Timings) => Promise<number>;

/** A whole number option of at least `min`, or undefined when absent. */
function count(value: string | true | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} needs a whole number of at least ${min}`);
  return n;
}

function requireEntry(sm: SessionManager, id: string): void {
  if (!sm.hasEntry(id)) throw new SessionError("unknown-entry", `no entry with id ${id} in ${sm.getSessionFile()}`);
}

const COMMANDS: Record<string, Command> = {
  async ls(_p, flag, out, timings) {
    const cwd = resolve(typeof flag("cwd") === "string" ? (flag("cwd") as string) : process.cwd());
    const dir = flag("dir");
    const sessionDir = typeof dir === "string" ? resolve(dir) : undefined;
    const sessions = flag("all") ? await SessionManager.listAll({ sessionDir }) : await SessionManager.list(cwd, { sessionDir });
    timings.mark("list");
    if (flag("json")) out.stdout(`${JSON.stringify(sessions, null, 2)}\n`);
    else if (sessions.length === 0) out.stdout(`no sessions${flag("all") ? "" : ` for ${cwd}`}\n`);
    else {
      for (const s of sessions) {
        const title = oneLine(sessionTitle(s));
        const fork = s.parentSessionPath ? " (fork)" : "";
        out.stdout(`${formatAge(s.modified).padStart(10)}  ${String(s.messageCount).padStart(5)} msgs  ${title}${fork}\n      ${oneLine(s.path)}\n`);
      }
    }
    timings.mark("print");
    return 0;
  },

  async tree([file], flag, out, timings) {
    if (flag("json") && flag("ndjson")) throw new UsageError("--json and --ndjson are two forms of the same output: pick one");
    const format = flag("json") ? "json" : flag("ndjson") ? "ndjson" : "text";
    if (flag("preview") && format === "text") throw new UsageError("--preview adds summaries to --json or --ndjson (the text tree always shows them)");
    const depth = count(flag("depth"), "depth", 0);
    const limit = count(flag("limit"), "limit", 1);
    const sm = await SessionManager.open(file!, { readOnly: true });
    timings.mark("open");
    await writeTree(sm, sm.getSessionFile()!, { format, depth, limit, leafPath: flag("leaf-path") === true, preview: flag("preview") === true }, out);
    timings.mark("render");
    await sm.close();
    return 0;
  },

  async context([file], flag, out, timings) {
    const sm = await SessionManager.open(file!, { readOnly: true });
    timings.mark("open");
    const leaf = flag("leaf");
    if (typeof leaf === "string") requireEntry(sm, leaf);
    const context = sm.buildSessionContext(typeof leaf === "string" ? leaf : undefined);
    timings.mark("resolve");
    const result: Record<string, unknown> = { messages: context.messages, model: context.model, thinkingLevel: context.thinkingLevel };
    if (flag("llm")) {
      result.llm = convertToLlm(context.messages);
      timings.mark("convert");
    }
    out.stdout(`${JSON.stringify(result, null, 2)}\n`);
    timings.mark("print");
    return 0;
  },

  async label([file, id, text], flag, out, timings) {
    const clear = flag("clear") === true;
    if (clear === (text !== undefined)) throw new UsageError("usage: arbor label FILE ID TEXT|--clear");
    const sm = await SessionManager.open(file!);
    timings.mark("open");
    try {
      requireEntry(sm, id!);
      sm.appendLabelChange(id!, clear ? undefined : text);
      await sm.flush();
      timings.mark("write");
      out.stdout(clear ? `cleared the label of ${oneLine(id!)}\n` : `labelled ${oneLine(id!)} "${oneLine(text!)}"\n`);
    } finally {
      await sm.close();
    }
    return 0;
  },

  async fork([file, id], _flag, out, timings) {
    const sm = await SessionManager.open(file!, { readOnly: true });
    timings.mark("open");
    requireEntry(sm, id!);
    const writer = await SessionManager.open(file!, { whenLocked: "read-only" });
    try {
      const forked = await writer.createBranchedSession(id!);
      timings.mark("fork");
      out.stdout(`${oneLine(forked ?? "")}\n`);
    } finally {
      await writer.close();
    }
    return 0;
  },

  /**
   * The tree's checkout (SessionManager.checkout): the leaf moves to the entry, or for a user
   * message to its parent with the message's text printed to edit and send again; the checkout
   * marker it appends makes Pi and Arbor resume there. Refused while another process holds it.
   */
  async checkout([file, id], flag, out, timings) {
    const sm = await SessionManager.open(file!);
    timings.mark("open");
    try {
      requireEntry(sm, id!);
      const result = sm.checkout(id!);
      await sm.flush();
      timings.mark("write");
      if (flag("json")) out.stdout(`${JSON.stringify({ leafId: result.leafId, editText: result.editText ?? null })}\n`);
      else {
        out.stdout(`leaf ${result.leafId === null ? "(before the first entry)" : oneLine(result.leafId)}\n`);
        if (result.editText !== undefined) out.stdout(`text of ${oneLine(id!)}, to edit and send again:\n${result.editText}\n`);
      }
    } finally {
      await sm.close();
    }
    return 0;
  },

  async check([file], flag, out, timings) {
    const report = await checkSessionFile(file!);
    timings.mark("check");
    if (flag("json")) out.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else {
      for (const p of report.problems) out.stdout(`line ${p.line}: ${oneLine(p.kind)}: ${oneLine(p.message)}\n`);
      out.stdout(`${report.entries} entries, ${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}\n`);
    }
    return report.problems.length ? 1 : 0;
  },

  export([file], flag, out, timings) {
    const value = (name: string) => (typeof flag(name) === "string" ? (flag(name) as string) : undefined);
    return runExport(file!, { leaf: value("leaf"), format: value("format"), out: value("out") }, out, timings);
  },
};
