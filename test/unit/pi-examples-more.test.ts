/**
 * More of the reference's example extensions, loaded unchanged from node_modules through Arbor's
 * loader over a real runtime and the scripted model server, each driven through its main behaviour:
 * what the user sees (notifications, statuses, dialogs), what the model receives (system prompt,
 * prompt text, tools) and what lands in the session file or the git repository. The census in
 * docs/pi-extensions.md names these as working; these tests are what says so.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { describePiModel } from "../../src/core/models/pi-ai-provider";
import type { ToolResultMessage } from "../../src/core/session/types";
import { trapWatchers } from "../support/fs-watchers";
import { reply, type ScriptedServer } from "../support/scripted-openai-server";
import { makeKit, nextEvent, readLines, textOf, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

type WireMessage = { role: string; content: unknown };

/** The chat-completions request bodies the server received. */
function completions(server: ScriptedServer): { messages: WireMessage[]; tools?: { function: { name: string } }[] }[] {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as { messages: WireMessage[] });
}
const wireText = (content: unknown): string =>
  typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("\n");
/** The system prompt of the last request. */
function lastSystem(server: ScriptedServer): string {
  const system = completions(server).at(-1)!.messages.find((m) => m.role === "system" || m.role === "developer");
  assert.ok(system, "a system prompt was sent");
  return wireText(system.content);
}
/** The text of the last user message of the last request. */
function lastUserText(server: ScriptedServer): string {
  const user = completions(server).at(-1)!.messages.filter((m) => m.role === "user").at(-1);
  assert.ok(user, "a user message was sent");
  return wireText(user.content);
}
function toolResults(branch: readonly { type: string; message?: unknown }[]): ToolResultMessage[] {
  return branch.flatMap((e) => (e.type === "message" && (e.message as { role: string }).role === "toolResult" ? [e.message as ToolResultMessage] : []));
}
const resultText = (m: ToolResultMessage) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8" });
/** The workspace as a git repository with one commit and a local identity (HOME is a temp folder). */
function gitRepo(cwd: string): void {
  git(cwd, "init", "-q", "-b", "main");
  git(cwd, "config", "user.name", "Test");
  git(cwd, "config", "user.email", "test@example.invalid");
  git(cwd, "config", "commit.gpgsign", "false");
  writeFileSync(join(cwd, "tracked.txt"), "one\n");
  git(cwd, "add", "-A");
  git(cwd, "commit", "-q", "-m", "initial");
}
const userTexts = (branch: readonly { type: string; message?: unknown }[]): string[] =>
  branch.flatMap((e) => (e.type === "message" && (e.message as { role: string }).role === "user" ? [wireText((e.message as { content: unknown }).content)] : []));
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("Pi's example extensions, driven through their main behaviour (unchanged files)", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  // Several examples run git or a shell: the machine's own profile and git identity must not decide the tests.
  const home = process.env.HOME;
  beforeEach(async () => {
    kit = await makeKit();
    const tempHome = join(kit.root, "home");
    mkdirSync(tempHome, { recursive: true });
    process.env.HOME = tempHome;
  });
  /** What a test set up outside its folders, undone after it, passed or not. */
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    for (const undo of cleanups.splice(0)) undo();
    if (home === undefined) delete process.env.HOME;
    else process.env.HOME = home;
    await kit.cleanup();
  });

  it("pirate.ts: /pirate adds pirate mode to the system prompt the model receives, and /pirate again removes it", async () => {
    const pi = await startWithExamples(kit, ["pirate.ts"]);
    assert.doesNotMatch(lastSystem(kit.server), /PIRATE MODE/);
    await pi.set.runCommand("pirate", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Arrr! Pirate mode enabled!");
    kit.server.script(reply.text("Arrr"), reply.text("plain"));
    await pi.runtime.session.prompt("hello");
    const base = pi.runtime.session.getSystemPrompt();
    assert.ok(lastSystem(kit.server).startsWith(base), "Arbor's prompt, then the extension's addition");
    assert.match(lastSystem(kit.server), /IMPORTANT: You are now in PIRATE MODE/);
    await pi.set.runCommand("pirate", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Pirate mode disabled");
    await pi.runtime.session.prompt("hello again");
    assert.doesNotMatch(lastSystem(kit.server), /PIRATE MODE/);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("input-transform.ts: ?quick rewrites the prompt the model receives and the file keeps; ping and time are answered without the model", async () => {
    const pi = await startWithExamples(kit, ["input-transform.ts"]);
    const requests = completions(kit.server).length;
    await pi.runtime.session.prompt("ping");
    assert.equal(pi.ui.notifications.at(-1)?.message, "pong");
    await pi.runtime.session.prompt("?quick   ");
    assert.deepEqual(pi.ui.notifications.at(-1), { extension: "input-transform", message: "Usage: ?quick <question>", type: "warning" });
    await pi.runtime.session.prompt("time");
    assert.equal(completions(kit.server).length, requests, "nothing went to the model");
    kit.server.script(reply.text("Short."));
    await pi.runtime.session.prompt("?quick what is jiti?");
    assert.equal(lastUserText(kit.server), "Respond briefly in 1-2 sentences: what is jiti?");
    const sm = pi.runtime.session.sessionManager;
    await sm.flush();
    const users = readLines(sm.getSessionFile()!).filter((l) => l.type === "message" && (l.message as { role: string }).role === "user");
    assert.deepEqual(users.map((l) => wireText((l.message as { content: unknown }).content)), ["first question", "Respond briefly in 1-2 sentences: what is jiti?"]);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("inline-bash.ts: !{command} in a prompt is replaced by its output before the model sees it, and the user is told", async () => {
    const pi = await startWithExamples(kit, ["inline-bash.ts"]);
    kit.server.script(reply.text("ok"));
    await pi.runtime.session.prompt("Sum is !{echo sum-$((40+2))} in !{pwd}");
    assert.equal(lastUserText(kit.server), `Sum is sum-42 in ${kit.cwd}`, "expanded in the session's folder");
    assert.match(pi.ui.notifications.at(-1)!.message, /^Expanded 2 inline command\(s\):\n!\{echo sum-\$\(\(40\+2\)\)\} -> "sum-42"/);
    await pi.runtime.dispose();
  });

  it("permission-gate.ts: a dangerous bash call asks first; No blocks it and the model reads why, Yes runs it, a safe one does not ask", async () => {
    const pi = await startWithExamples(kit, ["permission-gate.ts"], { session: { toolPolicy: { autoApprove: "commands" } } });
    mkdirSync(join(kit.cwd, "build"));
    pi.ui.answer("No");
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "rm -rf build" } }), reply.text("Understood."));
    await pi.runtime.session.prompt("clean up");
    assert.deepEqual(pi.ui.calls.filter((c) => c.startsWith("select")), ["select: ⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?"]);
    assert.deepEqual(pi.ui.choices.at(-1), ["Yes", "No"]);
    assert.equal(existsSync(join(kit.cwd, "build")), true, "the blocked command did not run");
    assert.match(resultText(toolResults(pi.runtime.session.getBranch()).at(-1)!), /Blocked by user/);
    const toolMessage = completions(kit.server).at(-1)!.messages.find((m) => m.role === "tool");
    assert.match(wireText(toolMessage!.content), /Blocked by user/, "the model reads why");

    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "echo safe" } }), reply.text("ok"));
    await pi.runtime.session.prompt("say safe");
    assert.equal(pi.ui.calls.filter((c) => c.startsWith("select")).length, 1, "a safe command is not asked about");

    pi.ui.answer("Yes");
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "rm -rf build" } }), reply.text("Done."));
    await pi.runtime.session.prompt("clean up, really");
    assert.equal(pi.ui.calls.filter((c) => c.startsWith("select")).length, 2);
    assert.equal(existsSync(join(kit.cwd, "build")), false, "allowed: it ran");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("claude-rules.ts: the rule files of .claude/rules/ are announced and listed in the system prompt the model receives", async () => {
    mkdirSync(join(kit.cwd, ".claude", "rules", "frontend"), { recursive: true });
    writeFileSync(join(kit.cwd, ".claude", "rules", "testing.md"), "# Testing\n");
    writeFileSync(join(kit.cwd, ".claude", "rules", "frontend", "css.md"), "# CSS\n");
    writeFileSync(join(kit.cwd, ".claude", "rules", "notes.txt"), "not a rule\n");
    const pi = await startWithExamples(kit, ["claude-rules.ts"]);
    assert.equal(pi.ui.notifications[0]?.message, "Found 2 rule(s) in .claude/rules/");
    kit.server.script(reply.text("ok"));
    await pi.runtime.session.prompt("add a test");
    const system = lastSystem(kit.server);
    assert.match(system, /## Project Rules/);
    const listed = system.split("\n").filter((l) => l.startsWith("- .claude/rules/")).sort();
    assert.deepEqual(listed, ["- .claude/rules/frontend/css.md", "- .claude/rules/testing.md"]);
    await pi.runtime.dispose();
  });

  it("prompt-customizer.ts: tool guidance for the active tools and its own section reach the system prompt", async () => {
    const pi = await startWithExamples(kit, ["prompt-customizer.ts"]);
    kit.server.script(reply.text("ok"), reply.text("ok"));
    await pi.runtime.session.prompt("hi");
    let system = lastSystem(kit.server);
    assert.match(system, /## Tool Guidance\n\n• Use the `read` tool/);
    assert.match(system, /• Execute commands with the `bash` tool/);
    assert.match(system, /• Use the `write` tool/);
    assert.match(system, /## Extension-Added Context/);
    // It reads the active tools from systemPromptOptions: without bash, no bash line.
    pi.runtime.session.setActiveTools(["read", "write", "edit"]);
    await pi.runtime.session.prompt("again");
    system = lastSystem(kit.server);
    assert.doesNotMatch(system, /Execute commands with the `bash` tool/);
    assert.match(system, /• Use the `edit` tool/);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("system-prompt-header.ts: the status shows the length of the system prompt when a reply starts, and is cleared at shutdown", async () => {
    const pi = await startWithExamples(kit, ["system-prompt-header.ts"]);
    kit.server.script(reply.text("ok"));
    await pi.runtime.session.prompt("hi");
    assert.equal(pi.ui.statuses.get("system-prompt-header/system-prompt"), `System: ${lastSystem(kit.server).length} chars`);
    await pi.runtime.dispose();
    assert.equal(pi.ui.statuses.has("system-prompt-header/system-prompt"), false);
  });

  it("status-line.ts: Ready at start, then the turn count after each turn, in plain text", async () => {
    const pi = await startWithExamples(kit, ["status-line.ts"]);
    const status = () => pi.ui.statuses.get("status-line/status-demo");
    // The harness's first exchange already ran one turn.
    assert.equal(status(), "✓ Turn 1 complete");
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "true" } }), reply.text("done"));
    const seen: string[] = [];
    const sub = pi.runtime.session.onEvent((e) => e.type === "message_start" && seen.push(status() ?? ""));
    await pi.runtime.session.prompt("two turns");
    sub.dispose();
    assert.ok(seen.includes("● Turn 2..."), seen.join(" | "));
    assert.equal(status(), "✓ Turn 3 complete");
    // A new session's instance of the extension starts again at Ready.
    await pi.runtime.newSession();
    assert.equal(status(), "Ready");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("model-status.ts: a model change is announced and shown in the status", async () => {
    const pi = await startWithExamples(kit, ["model-status.ts"]);
    const other = describePiModel(kit.piModels[1]!);
    assert.equal(pi.runtime.session.setModel(other), true);
    await settled();
    assert.match(pi.ui.notifications.at(-1)?.message ?? "", /^Model: .+\/scripted-other$/);
    assert.equal(pi.ui.statuses.get("model-status/model"), "🤖 scripted-other");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("event-bus.ts: its session_start event and /emit reach its pi.events listener, which notifies", async () => {
    const pi = await startWithExamples(kit, ["event-bus.ts"]);
    assert.equal(pi.ui.notifications.at(-1)?.message, "Event from event-bus-example: Session started");
    await pi.set.runCommand("emit", "over the bus");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Event from /emit command: over the bus");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("dynamic-tools.ts: echo_session from session_start and /add-echo-tool's tools are offered to the model, which calls them", async () => {
    const pi = await startWithExamples(kit, ["dynamic-tools.ts"]);
    assert.ok(pi.ui.notifications.some((n) => n.message === "Registered dynamic tool: echo_session"));
    await pi.set.runCommand("add-echo-tool", "Shout_1");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Registered dynamic tool: shout_1");
    await pi.set.runCommand("add-echo-tool", "shout_1");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Tool already registered: shout_1");
    await pi.set.runCommand("add-echo-tool", "no spaces");
    assert.equal(pi.ui.notifications.at(-1)?.type, "warning");
    kit.server.script(reply.toolCall([{ name: "echo_session", arguments: { message: "hi" } }, { name: "shout_1", arguments: { message: "HEY" } }]), reply.text("echoed"));
    await pi.runtime.session.prompt("echo things");
    const first = completions(kit.server).at(-2)!;
    const offered = (first.tools ?? []).map((t) => t.function.name);
    assert.ok(offered.includes("echo_session") && offered.includes("shout_1"), offered.join(", "));
    assert.match(lastSystem(kit.server), /^- echo_session: Echo back user-provided text with \[session\] prefix$/m);
    assert.deepEqual(toolResults(pi.runtime.session.getBranch()).map(resultText), ["[session] hi", "[shout_1] HEY"]);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("send-user-message.ts: /ask and /askwith send user messages the model answers; /steer and /followup go into a running reply", async () => {
    const pi = await startWithExamples(kit, ["send-user-message.ts"]);
    const session = pi.runtime.session;
    const runEnd = (): Promise<AgentSessionEvent> => nextEvent(session, (e) => e.type === "run_end");
    // run_end comes before the session is idle again: wait for both, as a user waits for the reply to finish.
    const finished = async (ended: Promise<AgentSessionEvent>): Promise<void> => {
      await ended;
      while (!session.isIdle()) await settled();
    };
    kit.server.script(reply.text("4"));
    let ended = runEnd();
    await pi.set.runCommand("ask", "What is 2+2?");
    await finished(ended);
    assert.equal(lastUserText(kit.server), "What is 2+2?");
    kit.server.script(reply.text("ok"));
    ended = runEnd();
    await pi.set.runCommand("askwith", "list files");
    await finished(ended);
    assert.equal(lastUserText(kit.server), "User request: list files\nPlease respond concisely.");

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    kit.server.script(
      reply.steps({ type: "chunk", delta: { role: "assistant", content: "working " } }, { type: "wait", until: held }, { type: "chunk", delta: { content: "on it" } }, { type: "finish", finishReason: "stop" }),
      reply.text("steered"),
      reply.text("followed up"),
    );
    const replying = session.prompt("long task");
    while (session.isIdle()) await settled();
    await pi.set.runCommand("ask", "not now");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Agent is busy. Use /steer or /followup instead.");
    await pi.set.runCommand("steer", "focus on X");
    await pi.set.runCommand("followup", "and then?");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Follow-up queued");
    release();
    await replying;
    while (!session.isIdle()) await settled();
    assert.deepEqual(userTexts(session.getBranch()).slice(-3), ["long task", "focus on X", "and then?"]);
    assert.deepEqual(completions(kit.server).slice(-2).map((b) => wireText(b.messages.filter((m) => m.role === "user").at(-1)!.content)), ["focus on X", "and then?"]);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("commands.ts: /commands lists the extensions' commands in a pick, and shows the chosen one's source file", async () => {
    const pi = await startWithExamples(kit, ["commands.ts", "pirate.ts"]);
    pi.ui.answer("/pirate - Toggle pirate mode (agent speaks like a pirate)", true);
    await pi.set.runCommand("commands", "");
    assert.deepEqual(pi.ui.choices.at(-1), ["--- Extensions ---", "/commands - List available slash commands", "/pirate - Toggle pirate mode (agent speaks like a pirate)"]);
    assert.equal(pi.ui.calls.filter((c) => c.startsWith("confirm")).at(-1), "confirm: pirate");
    assert.equal(pi.ui.notifications.at(-1)?.message, join(pi.agentDir, "extensions", "pirate.ts"), "the file the command comes from, as in Pi");
    await pi.set.runCommand("commands", "prompt");
    assert.equal(pi.ui.notifications.at(-1)?.message, "No prompt commands found");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("timed-confirm.ts: a dialog nobody answers closes at its timeout (or its signal) and the command goes on; an answer is used", async () => {
    const pi = await startWithExamples(kit, ["timed-confirm.ts"]);
    pi.ui.answer({ hold: true });
    await pi.set.runCommand("timed", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Cancelled or timed out");
    pi.ui.answer("Option B");
    await pi.set.runCommand("timed-select", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Selected: Option B");
    pi.ui.answer({ hold: true });
    await pi.set.runCommand("timed-signal", "");
    assert.deepEqual(pi.ui.notifications.at(-1), { extension: "timed-confirm", message: "Dialog timed out (auto-cancelled)", type: "warning" });
    pi.ui.answer(true);
    await pi.set.runCommand("timed", "");
    assert.equal(pi.ui.notifications.at(-1)?.message, "Confirmed by user!");
    await pi.runtime.dispose();
  });

  it("bash-spawn-hook.ts: the model's bash commands run through its hook (its variable set, the profile of HOME sourced), in the session's folder", async () => {
    writeFileSync(join(process.env.HOME!, ".profile"), "export FROM_PROFILE=sourced\n");
    const pi = await startWithExamples(kit, ["bash-spawn-hook.ts"], { session: { toolPolicy: { autoApprove: "commands" } } });
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: 'echo "hook=$PI_SPAWN_HOOK profile=$FROM_PROFILE"; pwd' } }), reply.text("ok"));
    await pi.runtime.session.prompt("show the hook");
    // It makes its tool with process.cwd(), which in VS Code's extension host is not the workspace: Arbor runs it in the session's folder.
    assert.equal(resultText(toolResults(pi.runtime.session.getBranch()).at(-1)!).trim(), `hook=1 profile=sourced\n${kit.cwd}`);
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  it("file-trigger.ts: text written to its trigger file reaches the session as its message and starts a reply", async () => {
    // Its trigger file is a fixed path, as in Pi; keep what another user may have there.
    const trigger = "/tmp/agent-trigger.txt";
    const before = existsSync(trigger) ? readFileSync(trigger, "utf8") : undefined;
    writeFileSync(trigger, "");
    // The example never closes its watcher: it is closed after the test, passed or not.
    const trap = trapWatchers();
    const watchers = trap.watchers;
    cleanups.push(() => {
      trap.release();
      if (before === undefined) rmSync(trigger, { force: true });
      else writeFileSync(trigger, before);
    });
    const pi = await startWithExamples(kit, ["file-trigger.ts"]);
    assert.equal(pi.ui.notifications.at(-1)?.message, `Watching ${trigger}`);
    assert.equal(watchers.length, 1);
    const session = pi.runtime.session;
    kit.server.script(reply.text("Running them."));
    const replied = nextEvent(session, (e) => e.type === "run_end");
    writeFileSync(trigger, "Run the tests\n");
    await replied;
    while (!session.isIdle()) await settled();
    const message = session.getBranch().find((e) => e.type === "custom_message");
    assert.ok(message && message.type === "custom_message");
    assert.equal(message.customType, "file-trigger");
    assert.equal(message.content, "External trigger: Run the tests");
    assert.equal(message.display, true);
    assert.equal(lastUserText(kit.server), "External trigger: Run the tests", "the model reads it");
    assert.equal(readFileSync(trigger, "utf8"), "", "the file was cleared after reading");
    assert.deepEqual(pi.reports, []);
    await pi.runtime.dispose();
  });

  describe("in a git repository", () => {
    beforeEach(() => gitRepo(kit.cwd));

    it("auto-commit-on-exit.ts: closing the session commits the changes with the last reply's first line", async () => {
      const pi = await startWithExamples(kit, ["auto-commit-on-exit.ts"]);
      kit.server.script(reply.text("Added the parser module\nwith details below"));
      await pi.runtime.session.prompt("add a parser");
      writeFileSync(join(kit.cwd, "parser.ts"), "export {};\n");
      await pi.runtime.dispose();
      assert.equal(git(kit.cwd, "log", "-1", "--format=%s").trim(), "[pi] Added the parser module");
      assert.equal(git(kit.cwd, "status", "--porcelain").trim(), "", "everything is committed");
      assert.equal(pi.ui.notifications.at(-1)?.message, "Auto-committed: [pi] Added the parser module");
      assert.deepEqual(pi.reports, []);
    });

    it("auto-commit-on-exit.ts: a clean tree is left alone", async () => {
      const pi = await startWithExamples(kit, ["auto-commit-on-exit.ts"]);
      await pi.runtime.dispose();
      assert.equal(git(kit.cwd, "log", "-1", "--format=%s").trim(), "initial");
    });

    it("dirty-repo-guard.ts: with uncommitted files a new session and a fork ask first; No cancels them, Yes goes ahead", async () => {
      const pi = await startWithExamples(kit, ["dirty-repo-guard.ts"]);
      const file = pi.runtime.session.sessionManager.getSessionFile();
      writeFileSync(join(kit.cwd, "tracked.txt"), "changed\n");
      writeFileSync(join(kit.cwd, "new.txt"), "new\n");
      pi.ui.answer("No, let me commit first");
      assert.equal((await pi.runtime.newSession()).cancelled, true);
      assert.deepEqual(pi.ui.choices.at(-1), ["Yes, proceed anyway", "No, let me commit first"]);
      assert.deepEqual(pi.ui.notifications.at(-1), { extension: "dirty-repo-guard", message: "Commit your changes first", type: "warning" });
      const question = pi.runtime.session.getBranch().find((e) => e.type === "message" && e.message.role === "user")!.id;
      pi.ui.answer(undefined);
      assert.equal((await pi.runtime.fork(question)).cancelled, true, "a dismissed pick cancels too");
      assert.deepEqual(pi.ui.calls.filter((c) => c.startsWith("select")), ["select: You have 2 uncommitted file(s). new session anyway?", "select: You have 2 uncommitted file(s). fork anyway?"]);
      assert.equal(pi.runtime.session.sessionManager.getSessionFile(), file);
      pi.ui.answer("Yes, proceed anyway");
      assert.equal((await pi.runtime.newSession()).cancelled, false);
      assert.notEqual(pi.runtime.session.sessionManager.getSessionFile(), file);
      // A clean tree: no question.
      git(kit.cwd, "add", "-A");
      git(kit.cwd, "commit", "-q", "-m", "work");
      const asked = pi.ui.calls.length;
      assert.equal((await pi.runtime.newSession()).cancelled, false);
      assert.equal(pi.ui.calls.length, asked);
      assert.deepEqual(pi.reports, []);
      await pi.runtime.dispose();
    });

    it("git-checkpoint.ts: a turn after a tool result records a stash checkpoint; a fork from that entry during the reply offers to restore it, and Yes restores the files", async () => {
      const pi = await startWithExamples(kit, ["git-checkpoint.ts"], { session: { toolPolicy: { autoApprove: "commands" } } });
      const session = pi.runtime.session;
      writeFileSync(join(kit.cwd, "tracked.txt"), "edited\n");
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      kit.server.script(
        reply.toolCall({ name: "bash", arguments: { command: "echo by-the-tool > tracked.txt" } }),
        reply.steps({ type: "chunk", delta: { role: "assistant", content: "thinking " } }, { type: "wait", until: held }, { type: "chunk", delta: { content: "done" } }, { type: "finish", finishReason: "stop" }),
      );
      // The second turn streams (so its turn_start handlers, which took the checkpoint, have run: the
      // request waits for them), then holds while the user forks.
      const streaming = nextEvent(session, (e) => e.type === "message_update" && textOf(e.message).startsWith("thinking"));
      const replying = session.prompt("change the file");
      await streaming;
      const toolCall = [...session.getBranch()].reverse().find((e) => e.type === "message" && e.message.role === "assistant")!;
      assert.equal(toolResults(session.getBranch()).length, 1, "the tool ran");
      // The work tree moves on; the checkpoint holds the state when the turn started.
      git(kit.cwd, "checkout", "--", "tracked.txt");
      pi.ui.answer("Yes, restore code to that point");
      const forked = await pi.runtime.fork(toolCall.id, { position: "at" });
      assert.equal(forked.cancelled, false);
      assert.deepEqual(pi.ui.calls.filter((c) => c.startsWith("select")), ["select: Restore code state?"]);
      assert.equal(readFileSync(join(kit.cwd, "tracked.txt"), "utf8"), "by-the-tool\n", "the checkpoint was applied");
      assert.equal(pi.ui.notifications.at(-1)?.message, "Code restored to checkpoint");
      release();
      await replying.catch(() => undefined);
      assert.deepEqual(pi.reports, []);
      await pi.runtime.dispose();
    });
  });
});
