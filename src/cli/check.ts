import { KNOWN_ENTRY_TYPES } from "../core/session/types";
import { SessionManager } from "../core/session/session-manager";

export interface CheckProblem {
  line: number;
  kind: string;
  message: string;
}

export interface CheckReport {
  file: string;
  entries: number;
  problems: CheckProblem[];
  /** Entry types this version does not know: kept and passed through, not errors. */
  unknownTypes: string[];
}

type Fields = Record<string, unknown>;
const isStr = (v: unknown) => typeof v === "string";

/** Required fields per known entry type; a missing one makes the line a problem. */
const REQUIRED: Record<string, (e: Fields) => string | undefined> = {
  message: (e) => {
    const m = e.message as Fields | undefined;
    if (!m || typeof m !== "object") return "has no message object";
    if (!isStr(m.role)) return "has a message without a role";
    return undefined;
  },
  thinking_level_change: (e) => (isStr(e.thinkingLevel) ? undefined : "has no thinkingLevel"),
  model_change: (e) => (isStr(e.provider) && isStr(e.modelId) ? undefined : "needs provider and modelId"),
  compaction: (e) => (isStr(e.summary) && isStr(e.firstKeptEntryId) && typeof e.tokensBefore === "number" ? undefined : "needs summary, firstKeptEntryId and tokensBefore"),
  branch_summary: (e) => (isStr(e.summary) && isStr(e.fromId) ? undefined : "needs summary and fromId"),
  custom: (e) => (isStr(e.customType) ? undefined : "has no customType"),
  custom_message: (e) => (isStr(e.customType) && (isStr(e.content) || Array.isArray(e.content)) ? undefined : "needs customType and content"),
  label: (e) => (isStr(e.targetId) ? undefined : "has no targetId"),
  session_info: () => undefined,
};

/**
 * Validates a session file without writing to it: every line must be a well-formed entry, and
 * the tree must hold together (parents, label targets, compaction kept points). Each problem
 * names its line.
 */
export async function checkSessionFile(file: string): Promise<CheckReport> {
  const sm = await SessionManager.open(file, { readOnly: true });
  const problems: CheckProblem[] = sm.getProblems().map((p) => ({ line: p.line, kind: p.kind, message: p.message }));
  const unknown = new Set<string>();
  for (const s of sm.getSummaries()) {
    const entry = sm.getEntry(s.id) as unknown as Fields;
    const at = (kind: string, message: string) => problems.push({ line: s.line, kind, message: `line ${s.line} (${s.type} ${s.id}) ${message}` });
    if (!KNOWN_ENTRY_TYPES.has(s.type)) unknown.add(s.type);
    else {
      const missing = REQUIRED[s.type]?.(entry);
      if (missing) at("invalid", missing);
    }
    if (!isStr(entry.timestamp) || Number.isNaN(Date.parse(entry.timestamp as string))) at("invalid", "has no valid timestamp");
    if (entry.parentId !== null && !isStr(entry.parentId)) at("invalid", "has a parentId that is neither a string nor null");
    else if (isStr(entry.parentId) && !sm.hasEntry(entry.parentId as string)) at("orphan", `points to a parent ${String(entry.parentId)} that is not in the file (drawn as a root)`);
    if (s.type === "label" && isStr(entry.targetId) && !sm.hasEntry(entry.targetId as string)) at("dangling", `labels ${String(entry.targetId)}, which is not in the file`);
    if (s.type === "compaction" && isStr(entry.firstKeptEntryId) && !sm.hasEntry(entry.firstKeptEntryId as string)) {
      at("dangling", `keeps from ${String(entry.firstKeptEntryId)}, which is not in the file`);
    }
  }
  for (const cycle of findCycles(sm)) problems.push({ line: cycle.line, kind: "cycle", message: `line ${cycle.line}: the parent chain of ${cycle.id} loops back on itself` });
  problems.sort((a, b) => a.line - b.line);
  const report: CheckReport = { file: sm.getSessionFile()!, entries: sm.getEntryCount(), problems, unknownTypes: [...unknown] };
  await sm.close();
  return report;
}

function findCycles(sm: SessionManager): { id: string; line: number }[] {
  const state = new Map<string, 1 | 2>();
  const found: { id: string; line: number }[] = [];
  for (const s of sm.getSummaries()) {
    const trail: string[] = [];
    let id: string | null = s.id;
    while (id !== null && sm.hasEntry(id) && !state.has(id)) {
      state.set(id, 1);
      trail.push(id);
      const parent: string | null = sm.getSummary(id)!.parentId;
      id = parent === id ? null : parent;
    }
    if (id !== null && state.get(id) === 1) found.push({ id, line: sm.getSummary(id)!.line });
    for (const t of trail) state.set(t, 2);
  }
  return found;
}
