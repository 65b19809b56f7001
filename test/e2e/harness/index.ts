/** The end-to-end harness: a real VS Code (code-server) with the packaged extension, in chromium. */
export * from "./approval-dialog";
export * from "./browser";
export * from "./paths";
export * from "./pi-user";
export * from "./processes";
export * from "./sandbox";
export * from "./servers";
export * from "./session";
export * from "./workbench";
