/**
 * Tool safety for Pi extensions' tools: an extension that replaces a built-in tool (here the
 * reference's own bash-spawn-hook.ts example, unchanged, which registers its own `bash` made with
 * Pi's createBashTool) is held to the same rules as Arbor's bash: each command asks first and a
 * denial keeps it from running; its commands run in the session's process groups (a `sleep 100 &`
 * ends with the session) and under the host's default timeout.
 */
import * as assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "../../src/core/agent/safety/approvals";
import type { ToolResultMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { waitFor } from "../support/temp-dir";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function lastToolResult(branch: readonly { type: string; message?: unknown }[]): ToolResultMessage {
  const results = branch.flatMap((e) => (e.type === "message" && (e.message as { role: string }).role === "toolResult" ? [e.message as ToolResultMessage] : []));
  assert.ok(results.length > 0, "a tool result was recorded");
  return results.at(-1)!;
}
const textOf = (m: ToolResultMessage) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("tool safety: Pi extensions that replace a built-in tool", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  // The example's hook runs `source ~/.profile` before each command: the machine's own profile (which
  // may be slow or hang, as a pyenv rehash waiting on a stale lock did here) must not decide the test.
  const home = process.env.HOME;
  beforeEach(async () => {
    kit = await makeKit();
    process.env.HOME = kit.cwd;
  });
  afterEach(async () => {
    if (home === undefined) delete process.env.HOME;
    else process.env.HOME = home;
    await kit.cleanup();
  });

  it("bash-spawn-hook.ts's `bash` asks before each command, and a denial keeps its code from running", async () => {
    const asked: ApprovalRequest[] = [];
    const pi = await startWithExamples(kit, ["bash-spawn-hook.ts"], {
      session: { toolPolicy: { approve: (request) => (asked.push(request), "deny") } },
    });
    assert.deepEqual(pi.reports, []);
    assert.equal(pi.runtime.session.getAllTools().find((t) => t.definition.name === "bash")?.source, "bash-spawn-hook", "the extension's bash replaced Arbor's");
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "touch spawned.txt" } }), reply.text("ok"));
    await pi.runtime.session.prompt("make a file");
    assert.deepEqual(asked.map((r) => r.kind === "command" && r.command), ["touch spawned.txt"]);
    assert.equal(existsSync(join(kit.cwd, "spawned.txt")), false, "the denied command did not run");
    assert.match(textOf(lastToolResult(pi.runtime.session.getBranch())), /^The user denied this command/);
    await pi.runtime.dispose();
  });

  it("its commands run in the session's process groups and under the default timeout", async () => {
    // The policy is read on every call: no timeout for the first command, a short one for the second.
    let timeoutMs = 0;
    const toolPolicy = {
      autoApprove: "commands" as const,
      get commandTimeoutMs() {
        return timeoutMs;
      },
    };
    const pi = await startWithExamples(kit, ["bash-spawn-hook.ts"], { session: { toolPolicy } });
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "sleep 100 & echo $!" } }), reply.text("started"));
    await pi.runtime.session.prompt("start a sleeper");
    const started = textOf(lastToolResult(pi.runtime.session.getBranch()));
    const sleeper = Number(/(\d+)\s*(?:\n|$)/.exec(started)?.[1]);
    assert.ok(sleeper > 0 && isAlive(sleeper), `a background sleeper runs: ${started}`);

    timeoutMs = 400;
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "echo begun; sleep 100" } }), reply.text("ok"));
    await pi.runtime.session.prompt("run a long one");
    assert.match(textOf(lastToolResult(pi.runtime.session.getBranch())), /Stopped after the 0\.4 s timeout/, "the default timeout stopped it");

    await pi.runtime.dispose();
    await waitFor(() => !isAlive(sleeper), "the extension's background process to end with the session");
  });
});
