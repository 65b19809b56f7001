/**
 * Tool safety, shell: a command that leaves processes in the background returns when its shell
 * does; Stop ends the whole process group, also once the shell has exited; the bash tool has a
 * default timeout; and no process a command started outlives its session or the host process.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { AgentSession } from "../../src/core/agent/agent-session";
import { isProcessGroupAlive, ProcessGroups } from "../../src/core/agent/shell/process-groups";
import { runShellCommand, type ShellResult } from "../../src/core/agent/shell/run-shell";
import { SessionManager } from "../../src/core/session/session-manager";
import type { ToolResultMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { makeTempDir, waitFor } from "../support/temp-dir";
import { makeKit, makeSession, type AgentKit } from "./agent-harness.test";

/** Whether a process exists (a zombie counts until it is reaped). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `promise`, or a failure once `ms` have passed: a bound for commands that must not wait for a
 * `sleep 100` (a hang detector, not a speed measurement; the sleeps are far longer than the bound).
 */
async function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function lastPid(output: string): number {
  const pid = Number(/(\d+)\s*$/.exec(output)?.[1]);
  assert.ok(pid > 0, `the command printed a pid: ${JSON.stringify(output)}`);
  return pid;
}

describe("tool safety: the shell", function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof makeTempDir>;
  let groups: ProcessGroups;
  beforeEach(() => {
    tmp = makeTempDir("arbor-shell-");
    groups = new ProcessGroups();
  });
  afterEach(() => {
    groups.dispose();
    tmp.cleanup();
  });

  it("`sleep 100 &` returns when the shell exits, reports the background process, and keeps it tracked", async () => {
    const result: ShellResult = await settlesWithin(
      runShellCommand("echo before; sleep 100 & echo $!", { cwd: tmp.dir, processGroups: groups }),
      10_000,
      "a command that left `sleep 100` in the background",
    );
    const sleeper = lastPid(result.output);
    assert.equal(result.exitCode, 0);
    assert.equal(result.cancelled, false);
    assert.equal(result.backgroundProcesses, true);
    assert.match(result.output, /^before\n/);
    assert.ok(isAlive(sleeper), "the background process keeps running after the command returned");
    assert.equal(groups.alive().length, 1, "its process group is tracked");
    groups.killAll();
    await waitFor(() => !isAlive(sleeper), "the tracked background process to be killed");
  });

  it("a command without background processes is not tracked after it ends", async () => {
    const result = await runShellCommand("echo done", { cwd: tmp.dir, processGroups: groups });
    assert.equal(result.backgroundProcesses, false);
    assert.deepEqual(groups.alive(), []);
  });

  it("Stop ends the whole process group also after the shell itself has exited", async () => {
    const abort = new AbortController();
    let printed = "";
    // A long pipe grace keeps the command waiting on the open pipe after its shell is gone.
    const running = runShellCommand("sleep 60 & echo $!; exit 0", {
      cwd: tmp.dir,
      signal: abort.signal,
      processGroups: groups,
      pipeGraceMs: 60_000,
      onOutput: (text) => (printed += text),
    });
    await waitFor(() => /\d+\n$/.test(printed), "the background pid");
    const sleeper = lastPid(printed);
    const [pgid] = groups.alive();
    assert.ok(pgid !== undefined);
    // The shell (the group's leader) is gone; its background child still holds the group and the pipe.
    await waitFor(() => !isAlive(pgid) && isProcessGroupAlive(pgid), "the shell to exit while its child runs on");
    abort.abort();
    const result = await settlesWithin(running, 10_000, "the stopped command");
    assert.equal(result.cancelled, true);
    await waitFor(() => !isAlive(sleeper), "the background child to be killed by Stop");
    assert.equal(isProcessGroupAlive(pgid), false);
  });

  it("the bash tool stops a command at the default timeout from the policy", async () => {
    const kit = await makeKit();
    try {
      const { sm, session } = await makeSession(kit, { toolPolicy: { autoApprove: "commands", commandTimeoutMs: 300 } });
      kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "echo begun; sleep 100" } }), reply.text("ok"));
      await settlesWithin(session.prompt("run it"), 15_000, "a prompt whose command hits the default timeout");
      const result = sm.getBranch().map((e) => (e.type === "message" ? e.message : undefined)).find((m): m is ToolResultMessage => m?.role === "toolResult");
      const text = result!.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      assert.equal(result!.isError, true);
      assert.match(text, /^begun\n/);
      assert.match(text, /Stopped after the 0\.3 s timeout/);
      await session.close();
      await sm.close();
    } finally {
      await kit.cleanup();
    }
  });

  describe("no process outlives its session", () => {
    let kit: AgentKit;
    beforeEach(async () => (kit = await makeKit()));
    afterEach(async () => kit.cleanup());

    it("a bash tool call that leaves `sleep 100 &` running returns, and closing the session kills it", async () => {
      const { sm, session } = await makeSession(kit, { toolPolicy: { autoApprove: "commands" } });
      kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "sleep 100 & echo $!" } }), reply.text("started"));
      await settlesWithin(session.prompt("start a sleeper"), 15_000, "a prompt whose command left `sleep 100` running");
      const result = sm.getBranch().map((e) => (e.type === "message" ? e.message : undefined)).find((m): m is ToolResultMessage => m?.role === "toolResult")!;
      const text = result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      assert.match(text, /left processes running in the background/);
      const sleeper = lastPid(text.split("\n\n")[0]!);
      assert.ok(isAlive(sleeper));
      await session.close();
      await waitFor(() => !isAlive(sleeper), "the session's background process to end with the session");
      await sm.close();
    });

    it("`!sleep 100 &` returns, and disposing the session kills it", async () => {
      const sm = SessionManager.inMemory(kit.cwd);
      const session = new AgentSession({ sessionManager: sm });
      const ran = await settlesWithin(session.prompt("!sleep 100 & echo $!"), 10_000, "`!sleep 100 &`");
      assert.equal(ran.kind, "bash");
      const sleeper = lastPid((ran as { message: { output: string } }).message.output);
      assert.ok(isAlive(sleeper));
      session.dispose();
      await waitFor(() => !isAlive(sleeper), "the background process to end with the session");
    });
  });

  it("no process outlives the host process: background groups are killed when it exits", async () => {
    const runShell = join(__dirname, "../../src/core/agent/shell/run-shell.js");
    // A host that runs a command leaving `sleep 100` behind, prints its pid and exits without cleaning up.
    const script = [
      `const { runShellCommand } = require(${JSON.stringify(runShell)});`,
      `runShellCommand("sleep 100 & echo $!", { cwd: ${JSON.stringify(tmp.dir)} }).then((r) => { process.stdout.write(r.output); process.exit(0); });`,
    ].join("\n");
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await settlesWithin(new Promise<number | null>((resolve) => child.on("close", resolve)), 15_000, "the host process");
    assert.equal(code, 0);
    const sleeper = lastPid(output);
    try {
      await waitFor(() => !isAlive(sleeper), "the background process to die with its host", 5000);
    } finally {
      if (isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
    }
  });
});
