import * as vscode from "vscode";
import type { SessionManager } from "../core/session/session-manager";
import type { SessionInfo } from "../core/session/session-list";
import type { EntrySummary } from "../core/tree/types";
import { formatAge } from "../core/util/format-age";
import { sessionTitle } from "./sessions-view";
import { reportQuickPick, showPick } from "./quick-pick-probe";

export interface EntryPick extends vscode.QuickPickItem {
  entryId: string;
}

function kindOf(s: EntrySummary): string {
  if (s.type === "message") return s.role === "toolResult" ? `tool ${s.toolName ?? ""}`.trim() : (s.role ?? "message");
  return s.type.replace(/_/g, " ");
}

function entryPick(s: EntrySummary, label: string | undefined, leafId: string | null): EntryPick {
  const badges = [label ? `$(tag) ${label}` : "", s.id === leafId ? "$(circle-filled) leaf" : ""].filter(Boolean).join("  ");
  return {
    entryId: s.id,
    label: s.preview || `(${kindOf(s)})`,
    description: `${kindOf(s)} · ${s.id}${badges ? `  ${badges}` : ""}`,
  };
}

/**
 * A quick pick of entries: the current path first (leaf at the top, preselected), then every
 * other entry newest first. Bookkeeping entries (labels, names, checkout markers) are left out.
 */
export async function pickEntry(
  sm: SessionManager,
  title: string,
  filter: (s: EntrySummary) => boolean = () => true,
): Promise<string | undefined> {
  const labels = sm.getLabels();
  const leaf = sm.getLeafId();
  const usable = (s: EntrySummary) => !s.checkoutMarker && s.type !== "label" && s.type !== "session_info" && filter(s);
  const pathIds = sm.getPathIds().reverse();
  const onPath = new Set(pathIds);
  const items: (EntryPick | vscode.QuickPickItem)[] = [];
  const pathItems = pathIds.map((id) => sm.getSummary(id)!).filter(usable).map((s) => entryPick(s, labels.get(s.id), leaf));
  if (pathItems.length) items.push({ label: "Current path", kind: vscode.QuickPickItemKind.Separator }, ...pathItems);
  const others = sm.getSummaries().filter((s) => !onPath.has(s.id) && usable(s)).reverse().map((s) => entryPick(s, labels.get(s.id), leaf));
  if (others.length) items.push({ label: "Other branches", kind: vscode.QuickPickItemKind.Separator }, ...others);
  if (!pathItems.length && !others.length) {
    void vscode.window.showInformationMessage("This session has no entries to choose from yet.");
    return undefined;
  }
  const qp = vscode.window.createQuickPick<EntryPick | vscode.QuickPickItem>();
  qp.title = title;
  qp.placeholder = "Type to search entries by text, kind or id";
  qp.matchOnDescription = true;
  qp.items = items;
  // The workbench makes the first entry active (separators are skipped); setting it from here would
  // keep the workbench from reporting the active item, which Arbor's host tests wait for.
  const reported = reportQuickPick(qp);
  return new Promise((resolve) => {
    let picked: string | undefined;
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0] ?? qp.activeItems[0];
      picked = item && "entryId" in item ? item.entryId : undefined;
      qp.hide();
    });
    qp.onDidHide(() => {
      reported.dispose();
      qp.dispose();
      resolve(picked);
    });
    qp.show();
  });
}

export interface SessionPick extends vscode.QuickPickItem {
  info: SessionInfo;
}

/** A quick pick of sessions with search over names, first messages and labels. */
export async function pickSession(sessions: SessionInfo[], title: string): Promise<SessionInfo | undefined> {
  if (!sessions.length) {
    void vscode.window.showInformationMessage("No sessions found for this workspace. Start one with \"Arbor: New Session\".");
    return undefined;
  }
  const items: SessionPick[] = sessions.map((info) => ({
    info,
    label: sessionTitle(info),
    description: `${formatAge(info.modified)} · ${info.messageCount} msgs${info.parentSessionPath ? " · fork" : ""}${info.labels.length ? ` · ${info.labels.join(", ")}` : ""}`,
    detail: info.name ? info.firstMessage.replace(/\s+/g, " ").slice(0, 120) : info.path,
  }));
  const pick = await showPick(items, { title, placeHolder: "Search sessions by name, first message or label", matchOnDescription: true, matchOnDetail: true });
  return pick?.info;
}
