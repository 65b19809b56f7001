/** The plain data the resource loader returns: files with their paths and sources, problems beside them. */

/** Who put a resource there: the user (agent directory, home), the project (its `.pi/`, its folders), or a Pi package. */
export type ResourceScope = "user" | "project";

/** Where a resource was found. */
export interface ResourceSource {
  scope: ResourceScope;
  /** `auto`: a folder Pi looks in; `settings`: listed in settings.json; `package`: shipped by a Pi package. */
  origin: "auto" | "settings" | "package";
  /** The package's source as settings.json names it ("npm:@me/tools", "git:github.com/me/tools", "../local"), for packages. */
  packageSource?: string;
}

export type ResourceKind = "context" | "system" | "skill" | "prompt" | "settings" | "package" | "extension";

/** A problem found while loading; the resource it concerns is skipped or loaded as far as possible. */
export interface ResourceDiagnostic {
  kind: ResourceKind;
  level: "warning" | "error";
  message: string;
  path: string;
  /** For a name that two resources share: the one that is used. */
  winnerPath?: string;
}

/** An instruction file (AGENTS.md or CLAUDE.md) sent with every request. */
export interface ContextFile {
  path: string;
  content: string;
  scope: ResourceScope;
}

export interface Skill {
  name: string;
  description: string;
  /** The skill's file (a SKILL.md, or a root .md file). */
  path: string;
  /** The folder its relative references resolve against. */
  baseDir: string;
  /** Only `/skill:name` runs it; the system prompt does not list it. */
  disableModelInvocation: boolean;
  source: ResourceSource;
}

export interface PromptTemplate {
  /** The command: `/name`. */
  name: string;
  description: string;
  argumentHint?: string;
  /** The body (front matter removed), with `$1`, `$@`… still in it. */
  content: string;
  path: string;
  source: ResourceSource;
}

/** A file of SYSTEM.md / APPEND_SYSTEM.md. */
export interface PromptFile {
  path: string;
  content: string;
  scope: ResourceScope;
}
