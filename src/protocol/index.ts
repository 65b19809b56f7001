/** The host/webview protocol of the Conversation Tree: message types, guards, and the page HTML. */
export * from "./messages";
export * from "./guards";
export * from "./webview-html";
