/**
 * "Arbor: Export Session...": the current session as one self-contained HTML page (tree and
 * transcript) or as Markdown of the current path. Asks the format, then where to save; an argument
 * `{ format, path, leafId? }` skips both questions (for other commands, tasks and tests).
 */
import { dirname } from "node:path";
import * as vscode from "vscode";
import { exportFileName, exportFormatOfPath, loadExportAssets, parseExportFormat, renderSessionExport, type ExportFormat } from "../core/export";
import { assertExportTarget } from "../core/export/export-target";
import { SessionError } from "../core/session/errors";
import type { SessionHost } from "./session-host";
import { showPick } from "./quick-pick-probe";
import { servePage, type ServedPage } from "./export-page-server";

export const EXPORT_COMMAND_ID = "arbor.exportSession";

/** What a caller may pass instead of answering the questions. */
export interface ExportRequest {
  format?: ExportFormat;
  /** An absolute file path (or a file URI) to write. */
  path?: string;
  /** Export at this entry instead of the current leaf. */
  leafId?: string;
}

function parseRequest(arg: unknown): ExportRequest {
  if (arg === undefined || arg === null || typeof arg !== "object" || Array.isArray(arg)) return {};
  const a = arg as Record<string, unknown>;
  const request: ExportRequest = {};
  if (a.format !== undefined) {
    const format = typeof a.format === "string" ? parseExportFormat(a.format) : undefined;
    if (!format) throw new Error(`Export Session: the format must be "html" or "md", not ${JSON.stringify(a.format)}`);
    request.format = format;
  }
  if (a.path !== undefined) {
    if (typeof a.path !== "string" || !a.path) throw new Error("Export Session: the path must be a non-empty string");
    request.path = a.path;
  }
  if (typeof a.leafId === "string") request.leafId = a.leafId;
  return request;
}

async function pickFormat(): Promise<ExportFormat | undefined> {
  const items: (vscode.QuickPickItem & { format: ExportFormat })[] = [
    { label: "HTML", description: "one page: the tree and the transcript, any branch readable", format: "html" },
    { label: "Markdown", description: "the transcript of the current path", format: "md" },
  ];
  return (await showPick(items, { title: "Export Session", placeHolder: "Export as" }))?.format;
}

/**
 * The file a path argument names, if Arbor may write there (see assertExportTarget): a file path
 * or a file URI inside the workspace or sessions folders, never in Restricted Mode. What the user
 * picks in the save dialog is theirs to choose and is not limited.
 */
async function targetOfArgument(path: string, host: SessionHost): Promise<vscode.Uri> {
  let file = path;
  if (/^[a-z][a-z0-9+.-]+:/i.test(path)) {
    const uri = vscode.Uri.parse(path, true);
    if (uri.scheme !== "file") throw new Error(`Export Session writes a path it is given only as a file path; refused ${path}`);
    file = uri.fsPath;
  }
  const folders = host.knownSessionFolders();
  const roots = [
    ...(vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath),
    folders.sessionsRoot,
    ...(folders.explicitDir ? [folders.explicitDir] : []),
  ];
  return vscode.Uri.file(await assertExportTarget(file, { roots, trusted: vscode.workspace.isTrusted }));
}

/** Exports the current session; returns the file written, or undefined when the user cancelled. */
export async function exportSession(host: SessionHost, extensionUri: vscode.Uri, version: string, arg?: unknown): Promise<string | undefined> {
  const request = parseRequest(arg);
  const sm = host.current;
  if (!sm) throw new SessionError("not-found", "No session is open: resume one from the Sessions view or start a new one");
  const format = request.format ?? (request.path ? exportFormatOfPath(request.path) : undefined) ?? (await pickFormat());
  if (!format) return undefined;
  const sessionFile = sm.getSessionFile();
  let target: vscode.Uri | undefined;
  if (request.path) target = await targetOfArgument(request.path, host);
  else {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? (sessionFile ? vscode.Uri.file(dirname(sessionFile)) : undefined);
    const name = exportFileName(sessionFile, sm.getSessionId(), format);
    target = await vscode.window.showSaveDialog({
      title: "Export Session",
      saveLabel: "Export",
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: format === "html" ? { "HTML page": ["html", "htm"] } : { Markdown: ["md", "markdown"] },
    });
    if (!target) return undefined;
  }
  if (/\.jsonl$/i.test(target.path) || (sessionFile && target.scheme === "file" && target.fsPath === sessionFile)) {
    throw new SessionError("io", `Export Session: refusing to write over a session file (${target.fsPath})`);
  }
  const written = target;
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Arbor: exporting session" }, async () => {
    const assets = format === "html" ? await loadExportAssets(extensionUri.fsPath) : undefined;
    const text = renderSessionExport(sm, { format, leafId: request.leafId, generator: `Arbor ${version}`, assets });
    await vscode.workspace.fs.writeFile(written, Buffer.from(text, "utf8"));
  });
  // Offer the result without holding the command (and its callers) until the message closes.
  // A browser on this machine can open the page; in VS Code for the Web or a remote window the file
  // is on another machine than the browser, so the page is offered as text and in the Explorer.
  const browserHere = format === "html" && written.scheme === "file" && vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName;
  // Elsewhere the page is served for a while on the extension host's loopback address, which VS Code
  // forwards to the browser (asExternalUri), so that it opens as a page there too.
  const actions = format !== "html" ? ["Open"] : browserHere ? ["Open in Browser", "Reveal in Explorer"] : ["Open in Browser", "Open as Text", "Reveal in Explorer"];
  void vscode.window.showInformationMessage(`Exported the session to ${written.scheme === "file" ? written.fsPath : written.toString()}`, ...actions).then((choice) => {
    if (choice === "Open in Browser" && browserHere) void vscode.env.openExternal(written);
    else if (choice === "Open in Browser") void openServedPage(written);
    else if (choice === "Open" || choice === "Open as Text") void vscode.window.showTextDocument(written);
    else if (choice === "Reveal in Explorer") void vscode.commands.executeCommand("revealInExplorer", written);
  });
  return written.scheme === "file" ? written.fsPath : written.toString();
}

/** Pages served for browsers elsewhere; stopped with the extension. */
const servedPages = new Set<ServedPage>();

async function openServedPage(file: vscode.Uri): Promise<void> {
  const name = file.path.split("/").pop() || "session.html";
  const page = await servePage(name, async () => vscode.workspace.fs.readFile(file));
  servedPages.add(page);
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(page.url));
  if (!(await vscode.env.openExternal(external))) void vscode.window.showWarningMessage(`The browser did not open ${external.toString(true)}.`);
}

/** Registers the command; failures are shown as one message and logged. */
export function registerExportCommand(host: SessionHost, extensionUri: vscode.Uri, version: string, log: vscode.LogOutputChannel): vscode.Disposable {
  const command = vscode.commands.registerCommand(EXPORT_COMMAND_ID, async (arg?: unknown) => {
    try {
      return await exportSession(host, extensionUri, version, arg);
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      log.error(`${EXPORT_COMMAND_ID}: ${message}`);
      void vscode.window.showErrorMessage(message);
      return undefined;
    }
  });
  return vscode.Disposable.from(command, {
    dispose: () => {
      for (const page of servedPages) void page.dispose();
      servedPages.clear();
    },
  });
}
