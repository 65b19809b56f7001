/**
 * What a workspace Arbor does not trust (VS Code's Restricted Mode) may contribute. Its text
 * loads: instruction files, skills and prompt templates are read by the agent as any other file of
 * the workspace would be, and the agent can neither write nor run commands there. What could run
 * code or point Arbor at other programs does not: the project's settings.json (shell path, command
 * prefix, packages, extension paths), its packages and its extensions. The user's own resources
 * (agent directory, home) always load.
 */
export const PROJECT_RESOURCES_IN_UNTRUSTED_WORKSPACE = {
  contextFiles: true,
  systemPromptFiles: true,
  skills: true,
  prompts: true,
  settings: false,
  packages: false,
  extensions: false,
} as const;

export type ProjectResource = keyof typeof PROJECT_RESOURCES_IN_UNTRUSTED_WORKSPACE;

/** Whether the project's resources of this kind load. */
export function projectLoads(resource: ProjectResource, trusted: boolean): boolean {
  return trusted || PROJECT_RESOURCES_IN_UNTRUSTED_WORKSPACE[resource];
}
