/**
 * A mocha root hook for the extension-host suites: a test during which Arbor had to load one of its
 * webview pages again (or gave up on one) fails, as in the end-to-end tier. Arbor logs each such
 * reload as a warning (src/extension/webview-start.ts); the hook reads Arbor's log after every test.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";

/** The words of Arbor's warnings (startLogText in src/extension/webview-start.ts). */
const recoveryWords = ["page did not start within", "did not load (VS Code never started its webview)"];

function logFiles(dir: string, depth = 0): string[] {
  if (depth > 4 || !existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? logFiles(path, depth + 1) : name.endsWith(".log") ? [path] : [];
  });
}

/** Arbor's log folder, once the extension is active with its test hooks (undefined otherwise). */
function arborLogFolder(): string | undefined {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name?: string }).name === "arbor");
  const logUri = (ext?.isActive ? (ext.exports as { testing?: { logUri?: vscode.Uri } } | undefined)?.testing?.logUri : undefined);
  return logUri ? dirname(logUri.fsPath) : undefined;
}

let reported = 0;

/** Root hooks for `new Mocha({ rootHooks })`. */
export const webviewRecoveryHooks = {
  afterEach(): void {
    const folder = arborLogFolder();
    if (!folder) return;
    const found = logFiles(folder).flatMap((file) => readFileSync(file, "utf8").split("\n")).filter((line) => recoveryWords.some((w) => line.includes(w)));
    const fresh = found.slice(reported);
    reported = found.length;
    if (fresh.length) throw new Error(`Arbor had to load a webview page again during this test (a recovered blank view is still a failure):\n${fresh.join("\n")}`);
  },
};
