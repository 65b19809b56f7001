import * as vscode from "vscode";

/** What the workbench last reported about one of Arbor's open quick picks. */
export interface QuickPickReport {
  readonly title: string;
  /** The labels of its items (separators left out), as the host gave them. */
  labels: string[];
  /** The item the workbench has active: it reports one only once it has drawn the list. */
  active: string | undefined;
}

/**
 * Arbor's open quick pick as the workbench reports it. The list's items reach the workbench after
 * the host sends them, so Arbor's host tests wait here for the item they want to be active before
 * they accept it, instead of sleeping. Nothing else reads it; keeping it costs a field per pick.
 */
export const quickPickReports: { current: QuickPickReport | undefined } = { current: undefined };

const labelsOf = (items: readonly vscode.QuickPickItem[]): string[] => items.filter((item) => item.kind !== vscode.QuickPickItemKind.Separator).map((item) => item.label);

/** `vscode.window.showQuickPick` of one item, reported to {@link quickPickReports}. */
export async function showPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions & { title: string }): Promise<T | undefined> {
  const report: QuickPickReport = { title: options.title, labels: labelsOf(items), active: undefined };
  quickPickReports.current = report;
  try {
    return await vscode.window.showQuickPick(items, {
      ...options,
      onDidSelectItem: (item) => {
        report.active = typeof item === "string" ? item : item.label;
        options.onDidSelectItem?.(item);
      },
    });
  } finally {
    if (quickPickReports.current === report) quickPickReports.current = undefined;
  }
}

/** Reports a quick pick made with `createQuickPick` to {@link quickPickReports} until it is disposed. */
export function reportQuickPick<T extends vscode.QuickPickItem>(pick: vscode.QuickPick<T>): vscode.Disposable {
  const report: QuickPickReport = { title: pick.title ?? "", labels: labelsOf(pick.items), active: undefined };
  quickPickReports.current = report;
  const active = pick.onDidChangeActive((items) => {
    report.labels = labelsOf(pick.items);
    report.active = items[0]?.label;
  });
  return new vscode.Disposable(() => {
    active.dispose();
    if (quickPickReports.current === report) quickPickReports.current = undefined;
  });
}
