/**
 * Entry of the Chat webview bundle (dist/chat.js). The app mounts synchronously and only then says
 * `ready`, so no host message can arrive before the listener is in place.
 */
import type { ChatToHostMessage } from "../../src/protocol/chat-messages";
import { getVsCodeApi } from "../shared/vscode-api";
import { ChatApp } from "./app";
import { keepEditingKeysHere } from "../shared/editing-keys";

const api = getVsCodeApi<ChatToHostMessage>();

window.addEventListener("error", (event: ErrorEvent) => {
  api.postMessage({ type: "log", level: "error", message: `Chat: ${event.message} (${event.filename}:${event.lineno})`.slice(0, 10_000) });
});

keepEditingKeysHere(document.body);
const app = ChatApp.mount(document.getElementById("app") ?? document.body, api);
window.addEventListener("message", (event: MessageEvent<unknown>) => app.handleMessage(event.data));
// The view focused from VS Code (its title, a command such as New Session): the caret goes to the
// input, unless the user was already somewhere in the page.
window.addEventListener("focus", () => {
  if (document.activeElement === null || document.activeElement === document.body) app.focusInput();
});
(window as unknown as { __arborChat?: ChatApp }).__arborChat = app;
