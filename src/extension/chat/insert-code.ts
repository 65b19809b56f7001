import * as vscode from "vscode";

/**
 * "Insert at Cursor" from a code block of the chat: the code replaces each selection of the text
 * editor the user last worked in (the chat's own focus does not change which one that is). An
 * edit, not a write: the file is saved only when the user saves it.
 */
export async function insertAtCursor(code: string): Promise<boolean> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showInformationMessage("Open a file to insert the code block into it.");
    return false;
  }
  const done = await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, code);
  });
  if (!done) void vscode.window.showWarningMessage(`Could not insert the code block into ${vscode.workspace.asRelativePath(editor.document.uri)}.`);
  return done;
}
