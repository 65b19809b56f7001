/**
 * The exported page: a header, the tree of every entry, and the transcript of one path. The reader
 * picks another entry in the tree and the transcript follows; the address keeps the choice
 * (`#leaf=<id>`), so a link can point at a branch.
 */
import type { ExportPageData } from "../../src/core/export/page-data";
import { entryPath, exportTitle, indexEntries } from "../../src/core/export/page-model";
import type { SessionEntry } from "../../src/core/session/types";
import { summarizeEntry } from "../../src/core/session/summarize";
import { projectTree } from "../../src/core/tree/projection";
import { el } from "../shared/dom";
import { TranscriptView } from "./transcript-view";
import { TreePanel } from "./tree-panel";

const LEAF_HASH = /^#leaf=(.+)$/;

function formatTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString();
}

export class ExportPage {
  private readonly byId: Map<string, SessionEntry>;
  private readonly tree: TreePanel;
  private readonly transcript: TranscriptView;

  private constructor(root: HTMLElement, private readonly data: ExportPageData) {
    this.byId = indexEntries(data.entries);
    const labels = new Map(data.labels.map((l) => [l.targetId, l.label]));
    const projection = projectTree(data.entries.map((e) => summarizeEntry(e, 0)));

    const header = el("header", "page-header");
    header.appendChild(el("h1", "title", exportTitle(data.session.name, data.entries, data.session.id)));
    const facts = [
      data.session.cwd,
      `started ${formatTime(data.session.startedAt)}`,
      `${data.entries.length} entries`,
      data.badLines > 0 ? `${data.badLines} unreadable line${data.badLines === 1 ? "" : "s"} left out` : "",
      `exported${data.generator ? ` by ${data.generator}` : ""} ${formatTime(data.exportedAt)}`,
    ].filter(Boolean);
    header.appendChild(el("p", "facts", facts.join(" · ")));

    this.tree = new TreePanel({ projection, labels, exportedLeafId: data.leafId, onPick: (id) => this.show(id, true) });
    this.transcript = new TranscriptView(labels);
    const layout = el("div", "layout");
    layout.append(this.tree.element, this.transcript.element);
    root.replaceChildren(header, layout);
    window.addEventListener("hashchange", () => this.show(this.leafFromHash() ?? data.leafId, false));
  }

  static mount(root: HTMLElement, data: ExportPageData): ExportPage {
    const page = new ExportPage(root, data);
    page.show(page.leafFromHash() ?? data.leafId, false);
    return page;
  }

  /** Shows the path to an entry in the transcript and the tree. */
  private show(leafId: string | null, remember: boolean): void {
    const leaf = leafId !== null && this.byId.has(leafId) ? leafId : null;
    const path = entryPath(this.byId, leaf);
    this.tree.showPath(leaf, new Set(path.map((e) => e.id)));
    this.transcript.show(path, { leafId: leaf, exported: leaf === this.data.leafId });
    if (remember && leaf !== null) {
      try {
        history.replaceState(null, "", `#leaf=${encodeURIComponent(leaf)}`);
      } catch {
        // Some viewers forbid history changes on local files; the page still works.
      }
    }
  }

  /** The entry the address names (`#leaf=<id>`), when it is one of this session's. */
  private leafFromHash(): string | null {
    const match = LEAF_HASH.exec(location.hash);
    if (!match) return null;
    try {
      const id = decodeURIComponent(match[1]!);
      return this.byId.has(id) ? id : null;
    } catch {
      return null;
    }
  }
}
