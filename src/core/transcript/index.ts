/** The transcript of a path: what the chat draws and the export writes. */
export * from "./transcript";
