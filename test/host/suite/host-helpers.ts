/** Helpers shared by the extension-host suites: the extension's API, the sample sessions, waiting. */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import * as vscode from "vscode";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { HostToWebviewMessage } from "../../../src/protocol/messages";
import type { SampleSessions } from "../../support/sample-sessions";

/** What the Conversation Tree provider shows tests (ARBOR_TEST_HOOKS=1). */
export interface TreeProbe {
  readonly selectedEntryId: string | null;
  readonly webviewProblems: readonly string[];
  /** The last message of each type the host posted to a tree webview. */
  readonly lastPosted: ReadonlyMap<HostToWebviewMessage["type"], HostToWebviewMessage>;
  /** The last message of each type a tree webview sent. */
  readonly lastReceived: ReadonlyMap<string, { type: string; sessionId?: string }>;
  reveal(entryId: string): void;
  /** The host's tree (the model every tree webview is fed its rows from). */
  readonly hub: { readonly model: { readonly index: { positionOf(id: string): number | undefined; summary(i: number): { unsaved?: boolean } } } };
}

/** The parts of Arbor's API the hardening tests use. */
export interface HostApi {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly tree: TreeProbe;
    /** Arbor's open quick pick as the workbench reports it. */
    readonly quickPicks: { readonly current: { readonly title: string; readonly labels: readonly string[]; readonly active: string | undefined } | undefined };
    /** The Sessions view: a fresh listing, awaited. */
    readonly sessions: { listNow(): Promise<unknown[]> };
    /** What the Sessions view asked to index in the background at its last listing. */
    readonly backgroundIndexing: { readonly requested: readonly string[] | undefined; readonly preparing: string | undefined };
  };
}

export function findArbor(): vscode.Extension<unknown> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext, "Arbor is installed");
  return ext;
}

export async function arborApi(): Promise<HostApi> {
  return (await findArbor().activate()) as HostApi;
}

/** The test-only hooks (the runner sets ARBOR_TEST_HOOKS=1). */
export function hooks(api: HostApi): NonNullable<HostApi["testing"]> {
  assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
  return api.testing;
}

export function samples(): SampleSessions {
  const file = process.env.ARBOR_SAMPLE_SESSIONS;
  assert.ok(file, "ARBOR_SAMPLE_SESSIONS is not set by the runner");
  return JSON.parse(readFileSync(file, "utf8")) as SampleSessions;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds; fails with `what` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/**
 * Runs a command and collects the error and warning notifications it shows. The command wrapper
 * reports failures with showErrorMessage; tests read what the user would read.
 */
export async function messagesShownBy(run: () => Thenable<unknown>): Promise<{ errors: string[]; warnings: string[]; infos: string[] }> {
  const shown = { errors: [] as string[], warnings: [] as string[], infos: [] as string[] };
  const w = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
  const original = { error: w.showErrorMessage!, warning: w.showWarningMessage!, info: w.showInformationMessage! };
  w.showErrorMessage = (m: unknown) => (shown.errors.push(String(m)), Promise.resolve(undefined));
  w.showWarningMessage = (m: unknown) => (shown.warnings.push(String(m)), Promise.resolve(undefined));
  w.showInformationMessage = (m: unknown) => (shown.infos.push(String(m)), Promise.resolve(undefined));
  try {
    await run();
  } finally {
    w.showErrorMessage = original.error;
    w.showWarningMessage = original.warning;
    w.showInformationMessage = original.info;
  }
  return shown;
}

type QuickPickReport = NonNullable<NonNullable<HostApi["testing"]>["quickPicks"]["current"]>;

/** Arbor's quick pick titled `title` once the workbench has drawn it (it reports an active item). */
export async function quickPickDrawn(title: string | RegExp): Promise<QuickPickReport> {
  const picks = hooks(await arborApi()).quickPicks;
  const titled = (t: string) => (typeof title === "string" ? t === title : title.test(t));
  await until(() => picks.current !== undefined && titled(picks.current.title), `Arbor to show the quick pick "${String(title)}"`, 30_000);
  const open = picks.current!;
  // The workbench reports the active item once it has drawn the list. Should that report not come,
  // go on as a user would who sees the list (a wrong item or an empty list then fails the test).
  await until(() => open.active !== undefined, "the workbench to report the active item", 5_000).catch(() => undefined);
  return open;
}

/**
 * Accepts an item of Arbor's open quick pick titled `title`, as a user would with the arrow keys and
 * Enter: once the workbench has drawn the list (it reports an active item), Down until the workbench
 * reports the wanted item active (`item`: its label or a pattern; the first item when absent), then
 * Enter. The list reaches the workbench after the host sends it, so a fixed sleep would race it.
 */
export async function acceptInQuickPick(title: string | RegExp, item?: string | RegExp): Promise<string> {
  const open = await quickPickDrawn(title);
  const wanted = (label: string | undefined) => label !== undefined && (item === undefined || (typeof item === "string" ? label === item : item.test(label)));
  // Without a report, the workbench has the first item active.
  const activeNow = (): string | undefined => open.active ?? open.labels[0];
  if (!wanted(activeNow())) {
    assert.ok(open.labels.some(wanted), `the quick pick "${open.title}" offers ${String(item)}: ${open.labels.join(" | ")}`);
    for (let step = 0; !wanted(activeNow()) && step < open.labels.length; step++) {
      const before = open.active;
      await vscode.commands.executeCommand("workbench.action.quickOpenSelectNext");
      await until(() => open.active !== before, "the next item to be active");
    }
  }
  const accepted = activeNow()!;
  assert.ok(wanted(accepted), `reached ${String(item)} in "${open.title}"`);
  await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
  return accepted;
}
