import { describeEntry, formatCount, formatTokens } from "../../src/core/tree/entry-view";
import type { Row } from "../../src/core/tree/layout";
import type { TreeViewModel } from "../../src/core/tree/tree-view-model";
import type { EntryDetailsMessage, RequestDetailsMessage } from "../../src/protocol/messages";
import { DetailsPanel, type DetailsBody } from "./details-panel";

/** The span the selected compaction replaced, as the rows need it. */
interface SelectedSpan {
  compactionId: string;
  replaced: ReadonlySet<string>;
  keptId?: string;
}

/**
 * What selecting a compaction or a branch summary shows: the span a compaction replaced (marked on
 * the rows) and the entry's full summary in the details pane, fetched from the host once per entry
 * with a request id and matched on the way back.
 */
export class EntryDetails {
  readonly panel = new DetailsPanel();
  private readonly cache = new Map<string, DetailsBody>();
  private readonly pending = new Map<string, string>();
  private requestCounter = 0;
  private span: SelectedSpan | undefined;
  private last: { row: Row | undefined; model: TreeViewModel } | undefined;

  constructor(private readonly request: (message: RequestDetailsMessage) => void) {}

  /** Forgets fetched details and unanswered requests (a new session was loaded). */
  reset(): void {
    this.cache.clear();
    this.pending.clear();
    this.span = undefined;
  }

  /** A row's place relative to the selected compaction's span. */
  spanState(id: string): "replaced" | "kept" | undefined {
    const span = this.span;
    if (!span) return undefined;
    if (span.keptId === id) return "kept";
    return span.replaced.has(id) ? "replaced" : undefined;
  }

  /** Follows the selection: updates the span and the pane, requesting details not fetched yet. */
  update(row: Row | undefined, model: TreeViewModel): void {
    this.last = { row, model };
    this.updateSpan(row, model);
    const type = row?.node.summary.type;
    const sessionId = model.sessionId;
    if (!row || (type !== "compaction" && type !== "branch_summary") || sessionId === null) {
      this.panel.hide();
      return;
    }
    const summary = row.node.summary;
    const facts: string[] = [];
    if (type === "compaction") {
      if (summary.tokensBefore !== undefined) facts.push(`${formatTokens(summary.tokensBefore)} tokens before`);
      if (this.span) facts.push(`replaced ${formatCount(this.span.replaced.size)} entries`);
    }
    let body = this.cache.get(summary.id);
    if (!body) {
      body = { state: "loading" };
      this.cache.set(summary.id, body);
      const requestId = `d${++this.requestCounter}`;
      this.pending.set(requestId, summary.id);
      this.request({ type: "requestDetails", requestId, sessionId, entryId: summary.id });
    }
    const title = type === "compaction" ? "Compaction" : "Branch summary";
    this.panel.show({ icon: describeEntry(summary).icon, title, facts }, body);
  }

  /** Takes the host's answer; answers to unknown or stale request ids are ignored. */
  receive(msg: EntryDetailsMessage): void {
    const entryId = this.pending.get(msg.requestId);
    if (entryId === undefined || entryId !== msg.entryId) return;
    this.pending.delete(msg.requestId);
    this.cache.set(entryId, msg.ok ? { state: "ready", details: msg.details } : { state: "error", error: msg.error });
    if (this.last) this.update(this.last.row, this.last.model);
  }

  private updateSpan(row: Row | undefined, model: TreeViewModel): void {
    if (!row || row.node.summary.type !== "compaction") {
      this.span = undefined;
      return;
    }
    const id = row.node.summary.id;
    if (this.span?.compactionId === id) return;
    const span = model.compactionSpan(id);
    this.span = span
      ? { compactionId: id, replaced: new Set(span.replacedIds), keptId: span.keptFound ? span.firstKeptEntryId : undefined }
      : undefined;
  }
}
