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
  readonly testing?: { readonly currentSession: SessionManager | undefined; readonly tree: TreeProbe };
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
