import { dirname, isAbsolute, relative, sep } from "node:path";
import * as vscode from "vscode";
import { IgnoreRules } from "../../core/resources/path-patterns";
import { nodeResourceFs } from "../../core/resources/resource-fs";
import { rankFiles } from "./file-match";

/** Files the index holds at most (a larger workspace is searched in its first this many). */
const MAX_INDEXED = 50_000;

/** The globs of an `files.exclude`-shaped setting that are on (conditional entries count as on). */
function enabledGlobs(setting: unknown): string[] {
  if (typeof setting !== "object" || setting === null) return [];
  return Object.entries(setting as Record<string, unknown>).flatMap(([glob, on]) => (on === true || (typeof on === "object" && on !== null) ? [glob] : []));
}

/** `files.exclude` and `search.exclude` of a folder, as one glob (VS Code's glob takes one level of braces). */
function excludeGlob(folder: vscode.WorkspaceFolder): string | undefined {
  const globs = [...new Set([...enabledGlobs(vscode.workspace.getConfiguration("files", folder.uri).get("exclude")), ...enabledGlobs(vscode.workspace.getConfiguration("search", folder.uri).get("exclude"))])];
  const plain = globs.filter((g) => !/[{},]/.test(g));
  return plain.length === 0 ? undefined : `{${plain.join(",")}}`;
}

const toPosix = (p: string): string => p.split(sep).join("/");

/**
 * The workspace's files for the chat's `@` search, found with VS Code's file search: what
 * `files.exclude` and `search.exclude` leave out is not listed, nor (unless `search.useIgnoreFiles`
 * is off) what the `.gitignore`, `.ignore` and `.fdignore` files of a local folder ignore, as Pi's
 * `fd` walk skips them. Listed once and again after files are created or deleted.
 */
export class WorkspaceFiles implements vscode.Disposable {
  private files: Promise<vscode.Uri[]> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher("**/*", false, true, false);
    const forget = (): void => {
      this.files = undefined;
    };
    this.disposables.push(watcher, watcher.onDidCreate(forget), watcher.onDidDelete(forget), vscode.workspace.onDidChangeWorkspaceFolders(forget), vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("files.exclude") || e.affectsConfiguration("search.exclude") || e.affectsConfiguration("search.useIgnoreFiles")) forget();
    }));
  }

  /** The best matches for `query`, named as the prompt names them (relative to `cwd` when inside it). */
  async search(query: string, cwd: string | undefined, token?: vscode.CancellationToken): Promise<{ path: string; name: string }[]> {
    const uris = await (this.files ??= this.list());
    if (token?.isCancellationRequested) return [];
    const named = new Map<string, vscode.Uri>();
    for (const uri of uris) named.set(referencePath(uri, cwd), uri);
    return rankFiles([...named.keys()], query).map((path) => ({ path, name: path.slice(path.lastIndexOf("/") + 1) }));
  }

  private async list(): Promise<vscode.Uri[]> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const useIgnoreFiles = vscode.workspace.getConfiguration("search").get<boolean>("useIgnoreFiles", true);
    const lists = await Promise.all(
      folders.map(async (folder) => {
        const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, "**/*"), excludeGlob(folder) ?? null, MAX_INDEXED);
        if (!useIgnoreFiles || folder.uri.scheme !== "file") return found;
        return withoutIgnored(folder.uri.fsPath, found);
      }),
    );
    return lists.flat();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.files = undefined;
  }
}

/** The files below `root` that its ignore files (and those of the folders on the way) do not ignore. */
function withoutIgnored(root: string, files: readonly vscode.Uri[]): vscode.Uri[] {
  const rules = new IgnoreRules(root);
  const folders = new Set<string>([root]);
  for (const uri of files) if (/^\.(?:git|fd)?ignore$/.test(uri.path.slice(uri.path.lastIndexOf("/") + 1))) folders.add(dirname(uri.fsPath));
  // Outer folders first: a deeper file's rules come later and win, as in git.
  for (const dir of [...folders].sort((a, b) => a.split(sep).length - b.split(sep).length || (a < b ? -1 : 1))) rules.addFolder(nodeResourceFs, dir);
  return files.filter((uri) => !rules.ignores(toPosix(relative(root, uri.fsPath)), false));
}

/** A file as a prompt names it: relative to the session's folder (posix) when inside it, else absolute. */
export function referencePath(uri: vscode.Uri, cwd: string | undefined): string {
  if (uri.scheme !== "file") return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  if (cwd) {
    const rel = relative(cwd, uri.fsPath);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return toPosix(rel);
  }
  return uri.fsPath;
}
