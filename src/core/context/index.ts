/** Context resolution and conversion for the model: what one leaf of a session stands for. */
export * from "./build-context";
export * from "./convert-to-llm";
export * from "./messages";
