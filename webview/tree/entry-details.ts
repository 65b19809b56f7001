import { describeEntry, formatCount, formatTokens } from "../../src/core/tree/entry-view";
import type { EntryDetailsMessage, OpenFileChangeMessage, RequestDetailsMessage, TreeRow } from "../../src/protocol/messages";
import { DetailsPanel, type DetailsBody } from "./details-panel";

/**
 * The details pane: the long form of the focused entry, fetched from the host once per entry
 * with a request id and matched on the way back. In the side view it opens for compactions and
 * branch summaries (their summaries); in an editor tab it shows every entry beside the tree.
 */
export class EntryDetails {
  readonly panel = new DetailsPanel();
  private readonly cache = new Map<string, DetailsBody>();
  private readonly pending = new Map<string, string>();
  private requestCounter = 0;
  private last: { row: TreeRow | undefined; sessionId: string | null; replacedCount: number | undefined } | undefined;

  constructor(
    private readonly request: (message: RequestDetailsMessage | OpenFileChangeMessage) => void,
    /** Show every entry (the editor tab), not only summaries. */
    private readonly everyEntry: boolean,
  ) {
    if (everyEntry) this.panel.showEmpty("Select an entry to see it in full.");
    this.panel.onOpenFile = (path) => {
      const row = this.last?.row;
      const sessionId = this.last?.sessionId;
      if (row && sessionId) this.request({ type: "openFileChange", sessionId, entryId: row.entry.id, path });
    };
  }

  /** Forgets fetched details and unanswered requests (another session was loaded). */
  reset(): void {
    this.cache.clear();
    this.pending.clear();
    this.last = undefined;
  }

  /** Follows the focus: shows the entry, requesting its long form if not fetched yet. */
  update(row: TreeRow | undefined, sessionId: string | null, replacedCount: number | undefined): void {
    this.last = { row, sessionId, replacedCount };
    const type = row?.entry.type;
    const summaryKind = type === "compaction" || type === "branch_summary";
    if (!row || sessionId === null || (!summaryKind && !this.everyEntry)) {
      if (this.everyEntry) this.panel.showEmpty(sessionId === null ? "No session is open." : "Select an entry to see it in full.");
      else this.panel.hide();
      return;
    }
    const entry = row.entry;
    const view = describeEntry(entry);
    const facts: string[] = [];
    if (type === "compaction") {
      if (entry.tokensBefore !== undefined) facts.push(`${formatTokens(entry.tokensBefore)} tokens before`);
      if (replacedCount !== undefined) facts.push(`replaced ${formatCount(replacedCount)} entries`);
    } else if (this.everyEntry) {
      if (entry.timestamp) facts.push(entry.timestamp);
      if (entry.line > 0) facts.push(`line ${formatCount(entry.line)}`);
      facts.push(`id ${entry.id}`);
      if (row.label) facts.push(`label ${row.label}`);
    }
    // A checkpoint recorded at the entry later (the leaf left it) brings its files: fetched again.
    const key = `${entry.id}\u0000${row.checkpoint}`;
    let body = this.cache.get(key);
    if (!body) {
      body = { state: "loading" };
      this.cache.set(key, body);
      const requestId = `d${++this.requestCounter}`;
      this.pending.set(requestId, key);
      this.request({ type: "requestDetails", requestId, sessionId, entryId: entry.id });
    }
    const title = type === "compaction" ? "Compaction" : type === "branch_summary" ? "Branch summary" : view.tag;
    this.panel.show({ icon: view.icon, title, facts }, body);
  }

  /** Takes the host's answer; answers to unknown or stale request ids are ignored. */
  receive(msg: EntryDetailsMessage): void {
    const key = this.pending.get(msg.requestId);
    if (key === undefined || key.slice(0, key.indexOf("\u0000")) !== msg.entryId) return;
    this.pending.delete(msg.requestId);
    this.cache.set(key, msg.ok ? { state: "ready", details: msg.details, ...(msg.files ? { files: msg.files } : {}) } : { state: "error", error: msg.error });
    if (this.last) this.update(this.last.row, this.last.sessionId, this.last.replacedCount);
  }
}
