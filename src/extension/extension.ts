// Placeholder entry point: it lets the packaging, host and end-to-end test tiers run before the real
// extension lands. The real extension replaces this file; the tests only rely on what any version
// does (it activates, `activate` returns an API object, its contributed views appear).
import * as vscode from "vscode";

/** The value `activate` returns to other extensions. */
export interface ArborApi {
  /** The extension's version, from its manifest. */
  readonly version: string;
}

/** An empty tree: the Sessions view exists but lists nothing yet. */
class EmptyTree implements vscode.TreeDataProvider<never> {
  getTreeItem(element: never): vscode.TreeItem {
    return element;
  }

  getChildren(): never[] {
    return [];
  }
}

/** Called by VS Code on activation; returns the API other extensions receive. */
export function activate(context: vscode.ExtensionContext): ArborApi {
  const manifest = context.extension.packageJSON as { version: string; contributes?: { views?: Record<string, { id: string }[]> } };
  const contributed = Object.values(manifest.contributes?.views ?? {}).flat().some((view) => view.id === "arbor.sessions");
  // Registering a provider for a view the manifest does not contribute only produces an error.
  if (contributed) context.subscriptions.push(vscode.window.registerTreeDataProvider("arbor.sessions", new EmptyTree()));
  return { version: manifest.version };
}

/** Nothing to release beyond the subscriptions VS Code disposes. */
export function deactivate(): void {}
