/**
 * VS Code's modal dialog as Arbor's tool approvals show it (window.showWarningMessage with
 * `modal: true`): read what it says, then press one of its buttons with a real click.
 */
import { Locator, Page } from "playwright-core";
import { defaultUiTimeoutMs } from "./workbench";

/** The modal dialog box of the workbench. */
export function modalDialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box[role="dialog"]');
}

/** Waits for the modal and returns its message, its detail and its button labels. */
export async function readModalDialog(page: Page, timeoutMs = defaultUiTimeoutMs): Promise<{ message: string; detail: string; buttons: string[] }> {
  const dialog = modalDialog(page);
  await dialog.waitFor({ state: "visible", timeout: timeoutMs });
  // innerText keeps the line breaks the dialog shows.
  const message = (await dialog.locator(".dialog-message-text").innerText()).trim();
  const detail = (await dialog.locator(".dialog-message-detail").innerText()).trim();
  const buttons = (await dialog.locator(".dialog-buttons .monaco-button").allInnerTexts()).map((t) => t.trim());
  return { message, detail, buttons };
}

/** Clicks the modal's button labelled exactly `label` and waits for the dialog to close. */
export async function clickModalButton(page: Page, label: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  const dialog = modalDialog(page);
  const button = dialog.locator(".dialog-buttons .monaco-button", { hasText: new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*$`) });
  await button.click({ timeout: timeoutMs });
  await dialog.waitFor({ state: "hidden", timeout: timeoutMs });
}
