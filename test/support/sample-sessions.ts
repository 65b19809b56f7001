/**
 * Sample sessions written by the reference implementation's own SessionManager, so they are genuine Pi
 * files: branches, labels, a compaction, a branch summary, a session name, a second root, custom entries
 * and a fork with `parentSession`. The demo uses them, and so can any test that needs realistic files.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

// A real import() even from CommonJS output (module node16), since the reference package is ESM only.
const loadReference = () => import("@mariozechner/pi-coding-agent");
type Reference = Awaited<ReturnType<typeof loadReference>>;
type SessionManager = ReturnType<Reference["SessionManager"]["create"]>;
type Appendable = Parameters<SessionManager["appendMessage"]>[0];

/** Where the sample sessions go. */
export interface SampleSessionsOptions {
  /** The Pi agent folder (what `PI_CODING_AGENT_DIR` points at); sessions go in its `sessions/`. */
  readonly agentDir: string;
  /** The workspace folder the sessions belong to (stored in each header). */
  readonly cwd: string;
  /** Another project's folder: when set, one more session is written for it (for "all workspaces"). */
  readonly otherCwd?: string;
}

/** The ids a test may want to point at in the main session. */
export interface MainSessionIds {
  readonly firstUserId: string;
  /** The assistant reply both branches grow from. */
  readonly branchPointId: string;
  /** The last entry of the abandoned branch. */
  readonly abandonedLeafId: string;
  readonly branchSummaryId: string;
  readonly compactionId: string;
  /** The first entry kept by the compaction. */
  readonly firstKeptEntryId: string;
  /** The entry labelled "diagnosis". */
  readonly diagnosisLabelTargetId: string;
  /** The entry labelled "fixed". */
  readonly fixedLabelTargetId: string;
  readonly leafId: string;
}

/** Paths and notable ids of what {@link createSampleSessions} wrote. */
export interface SampleSessions {
  /** `<agentDir>/sessions/--<encoded cwd>--`. */
  readonly sessionDir: string;
  /** Named, branched, compacted and labelled. */
  readonly mainFile: string;
  readonly mainName: string;
  readonly main: MainSessionIds;
  /** Unnamed (shows its first message); has two roots because its first message was re-edited. */
  readonly linearFile: string;
  /** A fork of the main session's live path; its header's `parentSession` is {@link mainFile}. */
  readonly forkFile: string;
  readonly forkName: string;
  /** The session written for `otherCwd`, when one was given. */
  readonly otherFile?: string;
}

/** The folder name Pi uses for a cwd's sessions: slashes and colons become dashes, wrapped in `--`. */
export function encodeSessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<agentDir>/sessions/<encoded cwd>`. */
export function sessionDirFor(agentDir: string, cwd: string): string {
  return join(agentDir, "sessions", encodeSessionFolderName(cwd));
}

/** Writes the sample sessions and returns where they are. Creates new files on every call. */
export async function createSampleSessions(options: SampleSessionsOptions): Promise<SampleSessions> {
  const reference = await loadReference();
  const sessionDir = sessionDirFor(options.agentDir, options.cwd);
  mkdirSync(sessionDir, { recursive: true });
  const clock = new MessageClock();

  const linearFile = writeLinearSession(reference, options.cwd, sessionDir, clock);
  const { file: mainFile, ids: main, name: mainName } = writeMainSession(reference, options.cwd, sessionDir, clock);
  const { file: forkFile, name: forkName } = writeFork(reference, mainFile, main.leafId, clock);
  const otherFile = options.otherCwd === undefined
    ? undefined
    : writeOtherProjectSession(reference, options.otherCwd, sessionDirFor(options.agentDir, options.otherCwd), clock);
  return { sessionDir, mainFile, mainName, main, linearFile, forkFile, forkName, ...(otherFile ? { otherFile } : {}) };
}

/** Message timestamps a minute apart, ending now, so the transcript reads like a real conversation. */
class MessageClock {
  private next = Date.now() - 60 * 60_000;

  tick(): number {
    this.next += 60_000;
    return this.next;
  }
}

function user(clock: MessageClock, text: string): Appendable {
  return { role: "user", content: text, timestamp: clock.tick() };
}

function assistant(clock: MessageClock, text: string, extra: { thinking?: string; toolCall?: { id: string; name: string; arguments: Record<string, unknown> } } = {}): Appendable {
  const content: Extract<Appendable, { role: "assistant" }>["content"] = [];
  if (extra.thinking) content.push({ type: "thinking", thinking: extra.thinking });
  content.push({ type: "text", text });
  if (extra.toolCall) content.push({ type: "toolCall", ...extra.toolCall });
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 1200, output: 340, cacheRead: 0, cacheWrite: 0, totalTokens: 1540, cost: { input: 0.0036, output: 0.0051, cacheRead: 0, cacheWrite: 0, total: 0.0087 } },
    stopReason: extra.toolCall ? "toolUse" : "stop",
    timestamp: clock.tick(),
  };
}

function toolResult(clock: MessageClock, toolCallId: string, toolName: string, text: string): Appendable {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError: false, timestamp: clock.tick() };
}

function requireFile(manager: SessionManager): string {
  const file = manager.getSessionFile();
  if (!file) throw new Error("The reference SessionManager did not create a session file.");
  return file;
}

function writeMainSession(reference: Reference, cwd: string, sessionDir: string, clock: MessageClock): { file: string; ids: MainSessionIds; name: string } {
  const session = reference.SessionManager.create(cwd, sessionDir);
  const firstUserId = session.appendMessage(user(clock, "The JSONL session parser throws on a torn last line. Can you make it tolerant?"));
  session.appendMessage(assistant(clock, "Let me read the parser first.", {
    thinking: "A crash mid-write leaves a partial last line; the loader should keep everything before it.",
    toolCall: { id: "call_read_1", name: "read", arguments: { path: "src/parser.ts" } },
  }));
  session.appendMessage(toolResult(clock, "call_read_1", "read", "export function parse(text: string) {\n  return text.split('\\n').map((line) => JSON.parse(line));\n}\n"));
  const branchPointId = session.appendMessage(assistant(clock, "The parser splits on newlines and parses every line, so a partial last line throws and loses the whole file."));
  session.appendLabelChange(branchPointId, "diagnosis");
  session.appendModelChange("anthropic", "claude-opus-4-1");
  session.appendThinkingLevelChange("high");

  // The branch that gets abandoned.
  session.appendMessage(user(clock, "Rewrite it as a streaming reader."));
  session.appendMessage(assistant(clock, "Done: the reader now streams chunks and parses each complete line as it arrives."));
  session.appendMessage(user(clock, "That breaks on Windows line endings."));
  const abandonedLeafId = session.appendMessage(assistant(clock, "Right: a chunk boundary can fall between \\r and \\n, so lines keep a stray \\r."));

  // Back to the branch point, carrying what the dead end taught.
  const branchSummaryId = session.branchWithSummary(branchPointId,
    "Tried a streaming reader: it complicated the code and mishandled CRLF split across chunks. Keep the line splitter.");
  const firstKeptEntryId = session.appendMessage(user(clock, "Keep the line splitter, but skip an incomplete last line and report it."));
  session.appendMessage(assistant(clock, "Editing the parser.", {
    toolCall: { id: "call_edit_1", name: "edit", arguments: { path: "src/parser.ts", oldText: "map((line) => JSON.parse(line))", newText: "flatMap(parseLine)" } },
  }));
  session.appendMessage(toolResult(clock, "call_edit_1", "edit", "Applied 1 edit to src/parser.ts"));
  session.appendMessage(assistant(clock, "The parser now keeps every complete line and reports a torn last line with its line number."));
  session.appendMessage({
    role: "bashExecution", command: "npm test", output: "  parser\n    ✓ keeps complete lines\n    ✓ reports a torn last line\n\n  2 passing (12ms)\n",
    exitCode: 0, cancelled: false, truncated: false, timestamp: clock.tick(),
  });
  const compactionId = session.appendCompaction(
    "The user asked for a parser tolerant of a torn last line. A streaming rewrite was abandoned (CRLF issues). " +
      "The line splitter now skips an incomplete last line and reports it; tests pass.",
    firstKeptEntryId, 48_213);
  session.appendMessage(user(clock, "Now add a test for a malformed line in the middle of the file."));
  const fixedLabelTargetId = session.appendMessage(assistant(clock, "Added: a malformed middle line is reported with its line number and kept in the file; the lines around it still load."));
  session.appendLabelChange(fixedLabelTargetId, "fixed");
  session.appendCustomEntry("arbor-sample", { note: "extension state, hidden by the default filter" });
  session.appendCustomMessageEntry("reminder", "Run the benchmarks before merging.", true);
  const name = "Parser: tolerate torn lines";
  const leafId = session.appendSessionInfo(name);
  const ids = { firstUserId, branchPointId, abandonedLeafId, branchSummaryId, compactionId, firstKeptEntryId, diagnosisLabelTargetId: branchPointId, fixedLabelTargetId, leafId };
  return { file: requireFile(session), ids, name };
}

function writeLinearSession(reference: Reference, cwd: string, sessionDir: string, clock: MessageClock): string {
  const session = reference.SessionManager.create(cwd, sessionDir);
  session.appendMessage(user(clock, "Add a --json flag to the ls command."));
  session.appendMessage(assistant(clock, "Added --json: ls prints one JSON object per session."));
  // Re-editing the first message starts a second root, as Pi does.
  session.resetLeaf();
  session.appendMessage(user(clock, "Add a --json flag to the ls command, printing a single JSON array."));
  session.appendMessage(assistant(clock, "Added --json: ls prints one JSON array of sessions, newest first."));
  return requireFile(session);
}

function writeFork(reference: Reference, sourceFile: string, leafId: string, clock: MessageClock): { file: string; name: string } {
  const session = reference.SessionManager.open(sourceFile);
  const file = session.createBranchedSession(leafId);
  if (!file) throw new Error("The reference SessionManager did not create the fork's file.");
  session.appendMessage(user(clock, "Try a friendlier error message for the torn line."));
  session.appendMessage(assistant(clock, "Now it says: \"The last line was cut short (crash mid-write?); everything before it loaded.\""));
  const name = "Fork: friendlier parse errors";
  session.appendSessionInfo(name);
  return { file, name };
}

function writeOtherProjectSession(reference: Reference, cwd: string, sessionDir: string, clock: MessageClock): string {
  mkdirSync(sessionDir, { recursive: true });
  const session = reference.SessionManager.create(cwd, sessionDir);
  session.appendMessage(user(clock, "Why is the build slow?"));
  session.appendMessage(assistant(clock, "Type checking runs twice; the bundler can skip it."));
  return requireFile(session);
}

/** What {@link writeLadderSession} wrote. */
export interface LadderSession {
  readonly file: string;
  readonly name: string;
  /** The deepest retry: the leaf, `rungs` branch points below the root. */
  readonly leafId: string;
  /** Long texts every row carries. */
  readonly text: string;
}

/**
 * A deeply branched session written by the reference's SessionManager: a retry inside a retry,
 * `rungs` times, each attempt a short exchange left behind. Every branch point is one level
 * deeper than the last: the worst case for the tree's indentation.
 */
export async function writeLadderSession(options: { readonly agentDir: string; readonly cwd: string; readonly rungs: number }): Promise<LadderSession> {
  const reference = await loadReference();
  const sessionDir = sessionDirFor(options.agentDir, options.cwd);
  mkdirSync(sessionDir, { recursive: true });
  const clock = new MessageClock();
  const text = "Refactor the session parser so that torn last lines are kept, reported with their line number, and never corrupt the next append";
  const session = reference.SessionManager.create(options.cwd, sessionDir);
  session.appendMessage(user(clock, text));
  let parent = session.appendMessage(assistant(clock, `First attempt: ${text}`));
  for (let k = 0; k < options.rungs; k++) {
    session.branch(parent);
    session.appendMessage(user(clock, `Attempt ${k}: ${text}`));
    session.appendMessage(assistant(clock, `Attempt ${k} broke the Windows line endings; ${text}`));
    session.branch(parent);
    session.appendMessage(user(clock, `Retry ${k}, keeping the line splitter: ${text}`));
    parent = session.appendMessage(assistant(clock, `Retry ${k} passes: ${text}`));
  }
  const name = `Deep ladder, ${options.rungs} branch points`;
  session.appendSessionInfo(name);
  return { file: requireFile(session), name, leafId: parent, text };
}
