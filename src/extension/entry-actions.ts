import * as vscode from "vscode";
import { entryText } from "../core/session/entry-text";
import type { SessionManager } from "../core/session/session-manager";
import { MAX_LABEL_LENGTH, tooLong } from "./input-limits";
import type { SessionHost } from "./session-host";
import { showPick } from "./quick-pick-probe";

/** What to do with the branch the leaf leaves behind. */
export type LeaveChoice = { summarize: false } | { summarize: true; instructions?: string };

/** Asks whether to summarize the branch being left (the host decides when to ask). */
export async function askLeaveBranch(abandoned: number): Promise<LeaveChoice | undefined> {
  const items: (vscode.QuickPickItem & { choice: "no" | "yes" | "custom" })[] = [
    { label: "$(check) Check out, no summary", choice: "no" },
    { label: "$(note) Summarize the branch I am leaving", description: `${abandoned} entries`, choice: "yes" },
    { label: "$(edit) Summarize with instructions…", choice: "custom" },
  ];
  const pick = await showPick(items, { title: "Leaving a branch", placeHolder: "Carry what this branch learned into the new position?" });
  if (!pick) return undefined;
  if (pick.choice === "no") return { summarize: false };
  if (pick.choice === "yes") return { summarize: true };
  const instructions = await vscode.window.showInputBox({ title: "Branch summary instructions", prompt: "What should the summary focus on?", ignoreFocusOut: true });
  return instructions === undefined ? undefined : { summarize: true, instructions };
}

/** How many entries a move of the leaf to `target` would leave behind (0 when it only goes forward). */
export function abandonedCount(sm: SessionManager, target: string | null): number {
  const old = sm.getLeafId();
  if (old === null || old === target) return 0;
  return sm.getBranchLeft(old, target).ids.length;
}

/** Where a checkout of `id` puts the leaf (Pi's semantics), without moving it. */
export function checkoutTarget(sm: SessionManager, id: string): string | null {
  const s = sm.getSummary(id);
  if (!s) return null;
  if (s.role === "user" || s.type === "custom_message") return s.parentId !== null && sm.hasEntry(s.parentId) ? s.parentId : null;
  return id;
}

/** Offers text taken back for editing (a checkout or fork before a user message). */
export async function offerEditText(text: string): Promise<void> {
  const preview = text.replace(/\s+/g, " ").slice(0, 80);
  const copy = "Copy Message";
  const choice = await vscode.window.showInformationMessage(`Back before "${preview}${text.length > 80 ? "…" : ""}". Edit and send it again from here.`, copy);
  if (choice === copy) await vscode.env.clipboard.writeText(text);
}

/** Sets or clears a label through an input box. */
export async function promptLabel(host: SessionHost, id: string): Promise<void> {
  const sm = host.current;
  if (!sm) return;
  const current = sm.getLabel(id);
  const value = await vscode.window.showInputBox({
    // Opened from a row's context menu in the tree's webview: the workbench hands the focus back to
    // the webview as the menu closes, which would close a box that gives way on focus loss.
    ignoreFocusOut: true,
    title: `Label entry ${id}`,
    prompt: "A name for this point (empty clears the label)",
    value: current ?? "",
    validateInput: (v) => tooLong(v, MAX_LABEL_LENGTH, "labels"),
  });
  if (value === undefined) return;
  if (!value.trim() && current === undefined) return;
  sm.appendLabelChange(id, value.trim() || undefined);
  await sm.flush();
}

/** Copies an entry's full text. */
export async function copyEntryText(host: SessionHost, id: string): Promise<void> {
  const entry = host.current?.getEntry(id);
  if (!entry) return;
  await vscode.env.clipboard.writeText(entryText(entry));
  vscode.window.setStatusBarMessage("$(copy) Entry text copied", 2000);
}
