/**
 * A session file with every entry kind an export shows (and those it must leave out), for the
 * export tests. `hostile: true` puts a payload into every text field a session can carry (message
 * text, thinking, tool names and arguments, results, diffs, shell commands and output, paths,
 * custom types, labels, the session name, model names, error messages, the working folder), each
 * tagged with the field's name so a test can find it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Scripts that must never run. Each one would set `window.__pwned`, log "PWNED" or open a dialog. */
export const PAYLOADS = [
  `<script>window.__pwned=(window.__pwned||0)+1;console.log("PWNED")</script>`,
  `<img src=x onerror="window.__pwned=2;alert('PWNED')">`,
  `</script><script>window.__pwned=3</script>`,
  `<!--<script>window.__pwned=4</script>-->`,
  `<svg onload="window.__pwned=5"></svg>`,
  `<iframe srcdoc="<script>parent.__pwned=6</script>"></iframe>`,
  `[click me](javascript:window.__pwned=7) <a href="javascript:window.__pwned=8">link</a>`,
  `<a href="#" onclick="window.__pwned=9">x</a><details open ontoggle="window.__pwned=10">`,
  `<style>body{display:none}</style><meta http-equiv="refresh" content="0;url=javascript:window.__pwned=11">`,
  `\u2028\u2029 \`\`\` ]]> ${"'\"&amp;"}`,
].join(" ");

/** The text of one field: plain, or tagged and hostile. */
export function fieldText(field: string, plain: string, hostile: boolean): string {
  return hostile ? `${field}: ${plain} ${PAYLOADS}` : plain;
}

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const MINUTE = 60_000;
/** A 1x1 PNG. */
export const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export interface ExportFixture {
  file: string;
  /** The leaf Pi and Arbor resume at (the last entry). */
  leafId: string;
  /** The last entry of the other branch. */
  otherLeafId: string;
  ids: Record<string, string>;
}

const usage = { input: 1234, output: 321, cacheRead: 0, cacheWrite: 0, totalTokens: 1555, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** Writes the fixture session into `dir` and returns where it is and its notable ids. */
export function writeExportFixture(dir: string, options: { hostile?: boolean; name?: string } = {}): ExportFixture {
  const h = options.hostile === true;
  const t = (field: string, plain: string) => fieldText(field, plain, h);
  let clock = 0;
  const ts = () => new Date(T0 + clock++ * MINUTE).toISOString();
  const ms = () => T0 + clock * MINUTE;
  const lines: Record<string, unknown>[] = [];
  let last: string | null = null;
  const add = (id: string, body: Record<string, unknown>, parentId: string | null = last): string => {
    lines.push({ id, parentId, timestamp: ts(), ...body });
    last = id;
    return id;
  };
  const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: t("provider", "anthropic"),
    model: t("model", "claude-sonnet-4-5"),
    usage,
    stopReason: "stop",
    timestamp: ms(),
    ...extra,
  });

  add("a0000001", { type: "model_change", provider: t("model_change.provider", "anthropic"), modelId: t("model_change.modelId", "claude-sonnet-4-5") }, null);
  add("a0000002", { type: "thinking_level_change", thinkingLevel: "high" });
  const u1 = add("a0000003", {
    type: "message",
    message: { role: "user", content: [{ type: "text", text: t("user.text", "Fix the **parser**: it throws on a torn last line.") }, { type: "image", data: PNG_1PX, mimeType: "image/png" }, { type: "image", data: PNG_1PX, mimeType: h ? `image/png" onerror="window.__pwned=12` : "image/svg+xml" }], timestamp: ms() },
  });
  add("a0000004", {
    type: "message",
    message: assistant(
      [
        { type: "thinking", thinking: t("thinking", "A crash mid-write leaves a partial last line.") },
        { type: "text", text: t("assistant.text", "Let me read the parser and run the tests.") },
        { type: "toolCall", id: "call_1", name: t("toolCall.name", "read"), arguments: { path: t("toolCall.args.path", "src/parser.ts"), [t("toolCall.args.key", "limit")]: 200 } },
        { type: "toolCall", id: "call_2", name: "bash", arguments: { command: t("toolCall.args.command", "npm test -- --grep parser") } },
      ],
      { stopReason: "toolUse" },
    ),
  });
  add("a0000005", { type: "message", message: { role: "toolResult", toolCallId: "call_1", toolName: t("toolResult.toolName", "read"), content: [{ type: "text", text: t("toolResult.text", "export function parse(text) {\n\treturn text.split('\\n').map(JSON.parse);\n}") }], isError: false, timestamp: ms() } });
  add("a0000006", {
    type: "message",
    message: { role: "toolResult", toolCallId: "call_2", toolName: "bash", content: [{ type: "text", text: t("toolResult.error", "1 failing: parse throws on torn line") }], details: { diff: t("details.diff", "-old line\n+new line") }, isError: true, timestamp: ms() },
  });
  const a2 = add("a0000007", { type: "message", message: assistant([{ type: "text", text: t("assistant.answer", "The parser splits on newlines; a ```partial``` line throws.") }]) });
  // The other branch: tried first, then left (its summary is attached to the main path below).
  add("b0000001", { type: "message", message: { role: "user", content: t("branch.user", "Rewrite it as a streaming reader."), timestamp: ms() } }, a2);
  const otherLeaf = add("b0000002", { type: "message", message: assistant([{ type: "text", text: t("branch.assistant", "Done: the reader now streams chunks.") }]) });
  add("c0000001", { type: "branch_summary", fromId: a2, summary: t("branch_summary", "Tried a streaming reader: it mishandled CRLF across chunks.") }, a2);
  add("c0000002", { type: "message", message: { role: "bashExecution", command: t("bash.command", "npm test"), output: t("bash.output", "FAIL parser.test.ts\n\tat line 3"), exitCode: 1, cancelled: false, truncated: true, fullOutputPath: t("bash.fullOutputPath", "/tmp/arbor-out/1.log"), timestamp: ms() } });
  add("c0000003", { type: "message", message: { role: "bashExecution", command: t("bash.excluded", "cat secrets.txt"), output: "", exitCode: undefined, cancelled: true, truncated: false, excludeFromContext: true, timestamp: ms() } });
  add("c0000004", { type: "custom_message", customType: t("custom_message.customType", "reminder"), content: t("custom_message.content", "Run the benchmarks before merging."), display: true });
  add("c0000005", { type: "custom_message", customType: "hidden-note", content: "NOT DISPLAYED custom message", display: false });
  add("c0000006", { type: "message", message: { role: "custom", customType: t("custom.customType", "lint"), content: [{ type: "text", text: t("custom.content", "2 lint warnings") }], display: true, timestamp: ms() } });
  add("c0000007", { type: "custom", customType: t("custom.state", "my-extension/state"), data: { note: t("custom.data", "extension state") } });
  add("c0000008", {
    type: "compaction",
    summary: t("compaction.summary", "## Goal\nMake the parser tolerant of torn lines."),
    firstKeptEntryId: u1,
    tokensBefore: 48213,
    details: { readFiles: [t("compaction.readFile", "src/parser.ts")], modifiedFiles: [t("compaction.modifiedFile", "src/parser.ts")] },
  });
  add("c0000009", { type: "message", message: { role: "user", content: t("user.second", "Now add a test for a malformed middle line."), timestamp: ms() } });
  add("c000000a", { type: "message", message: assistant([{ type: "text", text: "" }], { stopReason: "error", errorMessage: t("errorMessage", "429 rate limited") }) });
  add("c000000b", { type: "message", message: { role: "user", content: t("user.retry", "Try again."), timestamp: ms() } });
  add("c000000c", { type: "message", message: assistant([{ type: "text", text: t("assistant.partial", "Adding the te") }], { stopReason: "aborted", errorMessage: "Request was aborted" }) });
  add("c000000d", { type: "message", message: { role: "toolResult", toolCallId: "call_gone", toolName: t("orphan.toolName", "grep"), content: [{ type: "text", text: t("orphan.text", "no matches") }], isError: false, timestamp: ms() } });
  add("c000000e", { type: "future_entry_kind", note: t("unknown.note", "from a newer Pi") });
  add("c000000f", { type: "label", targetId: a2, label: t("label", "diagnosis") });
  const leaf = add("c0000010", { type: "session_info", name: options.name ?? t("session.name", "Parser: tolerate torn lines") });
  const header = { type: "session", version: 3, id: "0195a000-0000-7000-8000-000000000001", timestamp: new Date(T0 - MINUTE).toISOString(), cwd: h ? `/work/app ${PAYLOADS}` : "/work/app" };
  const file = join(dir, "2026-03-01T09-59-00-000Z_0195a000-0000-7000-8000-000000000001.jsonl");
  writeFileSync(file, [header, ...lines].map((l) => `${JSON.stringify(l)}\n`).join(""));
  return { file, leafId: leaf, otherLeafId: otherLeaf, ids: { u1, a2 } };
}
