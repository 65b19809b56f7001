/**
 * An agent session with Pi's resources, through a real loopback model server: the request carries
 * the context files and the skill list, `/template args` and `/skill:name` are expanded in the user
 * message, an edited AGENTS.md counts from the next prompt, and extensions see the loaded data.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadResources } from "../../src/core/resources";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, sentMessages, type AgentKit } from "./agent-harness.test";

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const systemOf = (kit: AgentKit, index: number): string => (sentMessages(kit.server, index)[0] as { content: string }).content;
const lastUserOf = (kit: AgentKit, index: number): string => {
  const messages = sentMessages(kit.server, index) as { role: string; content: string | { text?: string }[] }[];
  const user = messages.filter((m) => m.role === "user").pop()!;
  return typeof user.content === "string" ? user.content : user.content.map((c) => c.text ?? "").join("");
};

describe("AgentSession with Pi's resources", () => {
  let kit: AgentKit;
  let agentDir: string;
  beforeEach(async () => {
    kit = await makeKit();
    agentDir = join(kit.root, "agent");
    write(join(agentDir, "AGENTS.md"), "Global rule: answer in English.");
    write(join(kit.cwd, "AGENTS.md"), "Project rule: run the tests.");
    write(join(agentDir, "skills", "review", "SKILL.md"), "---\nname: review\ndescription: Reviews a change for bugs\n---\n# Review steps\n\nCheck the error paths.");
    write(join(kit.cwd, ".pi", "prompts", "fix.md"), "---\ndescription: Fix an issue\nargument-hint: <issue> [notes]\n---\nFix issue $1. Notes: ${@:2}");
  });
  afterEach(async () => kit.cleanup());

  const resources = (cwd: string) => loadResources({ cwd, agentDir, home: kit.root, trusted: true });

  it("sends the context files and the skill list, and re-reads AGENTS.md before the next prompt", async () => {
    const { sm, session } = await makeSession(kit, { resources });
    kit.server.script(reply.text("one"), reply.text("two"));
    await session.prompt("Hi");
    const first = systemOf(kit, 0);
    assert.ok(first.indexOf(`## ${join(agentDir, "AGENTS.md")}\n\nGlobal rule`) >= 0, first);
    assert.ok(first.indexOf(`## ${join(kit.cwd, "AGENTS.md")}\n\nProject rule`) > first.indexOf("Global rule"), "outermost first");
    assert.match(first, /<name>review<\/name>\s*<description>Reviews a change for bugs<\/description>\s*<location>[^<]*review\/SKILL\.md<\/location>/);
    assert.ok(!first.includes("Check the error paths"), "never the skill's body");

    write(join(kit.cwd, "AGENTS.md"), "Project rule: changed.");
    await session.prompt("Again");
    assert.ok(systemOf(kit, 1).includes("Project rule: changed."));
    assert.deepEqual(session.getSkillReadRoots(), [join(agentDir, "skills", "review")]);
    await session.close();
    await sm.close();
  });

  it("expands /template args and /skill:name args in the message sent and recorded", async () => {
    const { sm, session } = await makeSession(kit, { resources });
    kit.server.script(reply.text("fixed"), reply.text("reviewed"), reply.text("plain"), reply.text("as sent"));
    await session.prompt('/fix 42 "be careful" today');
    assert.equal(lastUserOf(kit, 0), "Fix issue 42. Notes: be careful today");
    await session.prompt("/skill:review the parser");
    const skill = lastUserOf(kit, 1);
    assert.match(skill, /^<skill name="review" location="[^"]+SKILL\.md">\n/);
    assert.ok(skill.includes("Check the error paths.") && skill.endsWith("</skill>\n\nthe parser"), skill);
    await session.prompt("/unknown stays as typed");
    assert.equal(lastUserOf(kit, 2), "/unknown stays as typed");
    // A message an extension sends goes as it is, as in Pi.
    await session.prompt("/fix 7", { source: "extension" });
    assert.equal(lastUserOf(kit, 3), "/fix 7");
    await session.close();
    await sm.close();
  });

  it("uses SYSTEM.md as the base prompt and adds APPEND_SYSTEM.md; extensions see the files in systemPromptOptions", async () => {
    write(join(kit.cwd, ".pi", "SYSTEM.md"), "You are the project's own agent.");
    write(join(agentDir, "APPEND_SYSTEM.md"), "Always sign with -- bot.");
    let seen: { contextFiles: { path: string }[]; skills: { name: string; filePath: string }[]; customPrompt?: string } | undefined;
    const { sm, session } = await makeSession(kit, {
      resources,
      hooks: { beforeAgentStart: async (event: { systemPromptOptions: unknown }) => void (seen = event.systemPromptOptions as typeof seen) },
    } as never);
    kit.server.script(reply.text("ok"));
    await session.prompt("Hi");
    const system = systemOf(kit, 0);
    assert.ok(system.startsWith("You are the project's own agent.\n\nAlways sign with -- bot."), system);
    assert.deepEqual(seen?.contextFiles.map((f) => f.path), [join(agentDir, "AGENTS.md"), join(kit.cwd, "AGENTS.md")]);
    assert.deepEqual(seen?.skills.map((s) => s.name), ["review"]);
    assert.equal(seen?.customPrompt, "You are the project's own agent.");
    await session.close();
    await sm.close();
  });

  it("runs Pi's shellCommandPrefix before every bash call and !cmd, and records the command as typed", async () => {
    write(join(agentDir, "settings.json"), JSON.stringify({ shellCommandPrefix: "greet() { echo \"prefixed-$1\"; }" }));
    const asked: string[] = [];
    const { sm, session } = await makeSession(kit, { resources, allowShell: true, toolPolicy: { approve: async (request) => (asked.push(request.kind === "command" ? request.command : ""), "once" as const) } });
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "greet tool" } }), reply.text("done"));
    await session.prompt("Run it");
    const toolResult = (sentMessages(kit.server, 1) as { role: string; content: unknown }[]).find((m) => m.role === "tool");
    assert.match(JSON.stringify(toolResult?.content), /prefixed-tool/);
    assert.deepEqual(asked, ["greet tool"], "the user approves the command the model wrote");
    const bang = await session.prompt("!greet bang");
    assert.ok(bang.kind === "bash" && bang.message.output.includes("prefixed-bang"), JSON.stringify(bang));
    const recorded = sm.getEntries().flatMap((e) => (e.type === "message" && e.message.role === "bashExecution" ? [e.message.command] : []));
    assert.deepEqual(recorded, ["greet bang"]);
    await session.close();
    await sm.close();
  });
});
