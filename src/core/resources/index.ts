export * from "./types";
export { loadResources, emptyResources, skillReadRoots, type LoadedResources, type ResourceLoadOptions, type LoadedPackage } from "./resource-loader";
export { expandSkillCommand } from "./skills";
export { expandPromptTemplate, fillTemplate, splitArguments } from "./prompt-templates";
export { mergeSettings, migrateSettings, viewSettings, type JsonObject, type PiSettingsView } from "./pi-settings";
export { PROJECT_RESOURCES_IN_UNTRUSTED_WORKSPACE, projectLoads } from "./trust";
export { nodeResourceFs, type ResourceFs } from "./resource-fs";
