/**
 * Branch diff: two entries of the open session in VS Code's diff editor, each side the path from
 * their common ancestor to that entry as Markdown (src/core/branch-diff), in read-only virtual
 * documents. From the palette (Compare Branches...: the two entries selected in the tree, else
 * picked), and from a tree row's context menu (Compare with Current Leaf, Compare Branches...).
 */
import * as vscode from "vscode";
import { branchMarkdown, compareBranches, entryCaption } from "../core/branch-diff/branch-diff";
import type { SessionManager } from "../core/session/session-manager";
import { pickEntry } from "./pickers";
import { registerCommandSet } from "./register-commands";
import type { SessionHost } from "./session-host";
import { filesAt } from "../core/checkpoints";
import { fileUri, snapshotUri, type CheckpointService } from "./checkpoints/checkpoint-service";

/** The branch diff's commands; package.json contributes exactly these. */
export const BRANCH_DIFF_COMMAND_IDS = ["arbor.compareBranches", "arbor.tree.compareWithLeaf"] as const;

export const BRANCH_SCHEME = "arbor-branch";

/** Documents kept for reopening (a diff tab restored, Reopen Closed Editor); older ones are dropped. */
const KEPT_DOCUMENTS = 20;

/** The text of each comparison side, by URI; VS Code shows them read-only (a content provider's documents). */
export class BranchDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "This comparison is no longer available: compare the branches again.";
  }

  /** Keeps a side's text under a fresh URI named after it (the .md makes it Markdown). */
  add(name: string, text: string): vscode.Uri {
    const safe = name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, " ").replace(/\s+/g, " ").trim().slice(0, 60) || "branch";
    const uri = vscode.Uri.from({ scheme: BRANCH_SCHEME, path: `/${safe}.md`, query: `n=${++this.next}` });
    this.texts.set(uri.toString(), text);
    while (this.texts.size > KEPT_DOCUMENTS) this.texts.delete(this.texts.keys().next().value as string);
    return uri;
  }
}

/** What the commands need of the tree: the entries selected in it, oldest first. */
export interface TreeSelection {
  readonly selection: readonly string[];
}

/** The id a tree row's context menu passes (its data-vscode-context), or an id passed directly. */
function rowEntryId(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  const id = (arg as { entryId?: unknown } | undefined)?.entryId;
  return typeof id === "string" ? id : undefined;
}

/**
 * Beside the conversation: when the workspace's files were recorded at both entries and differ,
 * says how many files differ, with a button for VS Code's multi-file diff of the two states.
 */
async function offerFileDiff(service: CheckpointService, sm: SessionManager, leftId: string, rightId: string, title: string): Promise<void> {
  const left = filesAt(sm, leftId);
  const right = filesAt(sm, rightId);
  if (!left || !right || left.snapshot === right.snapshot) return;
  const store = await service.storeFor(sm.getCwd());
  if (!store || !(await store.has(left.snapshot)) || !(await store.has(right.snapshot))) return;
  const changes = await store.diff(left.snapshot, right.snapshot);
  if (changes.length === 0) return;
  const show = vscode.l10n.t("Show File Changes");
  const n = changes.length;
  const answer = await vscode.window.showInformationMessage(n === 1 ? vscode.l10n.t("The workspace's files at the two entries differ in 1 file.") : vscode.l10n.t("The workspace's files at the two entries differ in {0} files.", n), show);
  if (answer !== show) return;
  const resources = changes.map((c) => [fileUri(store.workspace, c.path), snapshotUri(store.workspace, left.snapshot, c.path), snapshotUri(store.workspace, right.snapshot, c.path)]);
  await vscode.commands.executeCommand("vscode.changes", vscode.l10n.t("Files: {0}", title), resources);
}

/** Opens the diff of two entries' branches; returns the two documents' URIs (tests read them). */
export async function openBranchDiff(sm: SessionManager, docs: BranchDocuments, leftId: string, rightId: string, checkpoints?: CheckpointService): Promise<[vscode.Uri, vscode.Uri]> {
  const comparison = compareBranches(sm, leftId, rightId);
  if (comparison.left.entryId === comparison.right.entryId) throw new Error("Pick two different entries to compare.");
  const leftName = entryCaption(sm, comparison.left.entryId);
  const rightName = entryCaption(sm, comparison.right.entryId);
  const left = docs.add(leftName, branchMarkdown(sm, comparison, "left"));
  const right = docs.add(rightName, branchMarkdown(sm, comparison, "right"));
  const title = `${leftName} ↔ ${rightName}`;
  await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false });
  if (checkpoints) void offerFileDiff(checkpoints, sm, comparison.left.entryId, comparison.right.entryId, title).catch(() => undefined);
  return [left, right];
}

export function registerBranchDiff(host: SessionHost, tree: TreeSelection, log: vscode.LogOutputChannel, checkpoints?: CheckpointService): vscode.Disposable[] {
  const docs = new BranchDocuments();
  const requireSession = (): SessionManager => {
    const sm = host.current;
    if (!sm) throw new Error("No session is open: resume one from the Sessions view or start a new one");
    return sm;
  };
  const handlers: Record<(typeof BRANCH_DIFF_COMMAND_IDS)[number], (...args: unknown[]) => unknown> = {
    /**
     * Two ids: compares them. From a row's menu, or with no id: the two entries selected in the tree
     * when there are two (and the row is one of them); else the row or a picked entry, then another.
     */
    "arbor.compareBranches": async (first?: unknown, second?: unknown) => {
      const sm = requireSession();
      const row = rowEntryId(first);
      const other = rowEntryId(second);
      if (row && other) return openBranchDiff(sm, docs, row, other, checkpoints);
      const selected = tree.selection;
      if (selected.length === 2 && (row === undefined || selected.includes(row))) return openBranchDiff(sm, docs, selected[0], selected[1], checkpoints);
      const a = row ?? (await pickEntry(sm, "Compare Branches: the first entry"));
      if (!a) return undefined;
      const b = await pickEntry(sm, `Compare Branches: compare ${entryCaption(sm, a)} with`, (s) => s.id !== a);
      return b ? openBranchDiff(sm, docs, a, b, checkpoints) : undefined;
    },
    "arbor.tree.compareWithLeaf": async (arg?: unknown) => {
      const sm = requireSession();
      const id = rowEntryId(arg) ?? tree.selection.at(-1) ?? (await pickEntry(sm, "Compare which entry with the current leaf?"));
      const leaf = sm.getLeafId();
      if (!id) return undefined;
      if (leaf === null) throw new Error("This session has no leaf yet.");
      return openBranchDiff(sm, docs, id, leaf, checkpoints);
    },
  };
  return [vscode.workspace.registerTextDocumentContentProvider(BRANCH_SCHEME, docs), ...registerCommandSet(BRANCH_DIFF_COMMAND_IDS, handlers, log)];
}
