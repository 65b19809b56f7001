/**
 * Entry of the Conversation Tree webview bundle (dist/webview.js). Host messages can only arrive
 * after `ready`, which the app posts once mounted; any that come earlier are queued anyway.
 */
import { TreeApp } from "./app";
import { registerToolkit } from "../toolkit";
import type { WebviewToHostMessage } from "../../src/protocol/messages";
import { getVsCodeApi } from "../shared/vscode-api";
import { keepEditingKeysHere } from "../shared/editing-keys";

const api = getVsCodeApi<WebviewToHostMessage>();
const early: unknown[] = [];
let app: TreeApp | undefined;

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  if (app) app.handleMessage(event.data);
  else early.push(event.data);
});

// Uncaught errors would otherwise vanish into a webview's console nobody opens.
window.addEventListener("error", (event: ErrorEvent) => {
  api.postMessage({ type: "log", level: "error", message: `Conversation Tree: ${event.message} (${event.filename}:${event.lineno})`.slice(0, 10_000) });
});

keepEditingKeysHere(document.body);

function mount(): void {
  const root = document.getElementById("app") ?? document.body;
  app = TreeApp.mount(root, api);
  for (const data of early.splice(0)) app.handleMessage(data);
}

registerToolkit().then(mount, (err: unknown) => {
  api.postMessage({ type: "log", level: "error", message: `Conversation Tree: form controls failed to load: ${String(err)}` });
  mount();
});
