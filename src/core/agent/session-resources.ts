/**
 * The Pi resources an agent session uses (context files, SYSTEM.md, skills, prompt templates):
 * loaded again before each prompt, so an edited AGENTS.md or a new skill counts from the next
 * prompt on, and turned into what the system prompt and `/skill:` / `/template` expansion need.
 */
import { emptyResources, expandPromptTemplate, expandSkillCommand, nodeResourceFs, type LoadedResources } from "../resources";
import type { SystemPromptInput } from "./system-prompt";

/** Loads the resources of a working folder (the host knows the agent directory and the workspace's trust). */
export type ResourceLoad = (cwd: string) => LoadedResources;

/** A skill in the shape Pi's `systemPromptOptions.skills` gives extensions. */
export interface PromptOptionSkill {
  name: string;
  description: string;
  filePath: string;
  baseDir: string;
  disableModelInvocation: boolean;
}

export class SessionResources {
  private loaded: LoadedResources | undefined;

  constructor(
    private readonly load: ResourceLoad | undefined,
    private readonly cwd: () => string,
  ) {}

  /** Reads the files again (before a prompt). */
  refresh(): LoadedResources {
    this.loaded = this.load ? this.load(this.cwd()) : emptyResources(this.cwd(), "");
    return this.loaded;
  }

  /** What the last refresh found (loaded once when nothing was loaded yet). */
  current(): LoadedResources {
    return this.loaded ?? this.refresh();
  }

  /**
   * `/skill:name args` as the skill's instructions, `/template args` as the template's text, other
   * text unchanged. A skill whose file cannot be read now leaves the text as typed.
   */
  expand(text: string): string {
    const { skills, prompts } = this.current();
    let skill: string | undefined;
    try {
      skill = expandSkillCommand(text, skills, nodeResourceFs);
    } catch {
      skill = undefined;
    }
    return skill ?? expandPromptTemplate(text, prompts) ?? text;
  }

  /** The system prompt's parts that come from resources. */
  promptInput(): Pick<SystemPromptInput, "customPrompt" | "appendSystemPrompt" | "contextFiles" | "skills"> {
    const r = this.current();
    return {
      customPrompt: r.systemPrompt?.content,
      appendSystemPrompt: r.appendSystemPrompt?.content,
      contextFiles: r.contextFiles.map(({ path, content }) => ({ path, content })),
      skills: r.skills.map(({ name, description, path, disableModelInvocation }) => ({ name, description, path, disableModelInvocation })),
    };
  }

  /** The skills as extensions see them in `before_agent_start`. */
  optionSkills(): PromptOptionSkill[] {
    return this.current().skills.map((s) => ({ name: s.name, description: s.description, filePath: s.path, baseDir: s.baseDir, disableModelInvocation: s.disableModelInvocation }));
  }
}
