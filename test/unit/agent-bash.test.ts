/** `!cmd` and `!!cmd`: real shell runs in the session cwd, recorded as bashExecution messages. */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession } from "../../src/core/agent/agent-session";
import { AgentError, SHELL_DISABLED_MESSAGE } from "../../src/core/agent/errors";
import { convertToLlm } from "../../src/core/context/convert-to-llm";
import { SessionManager } from "../../src/core/session/session-manager";
import type { BashExecutionMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, makeKit, makeSession, nextEvent, readLines, sentMessages, type AgentKit } from "./agent-harness.test";

function bashOf(result: { kind: string }): BashExecutionMessage {
  assert.equal(result.kind, "bash");
  return (result as unknown as { message: BashExecutionMessage }).message;
}

describe("AgentSession !cmd", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("runs in the session's cwd and records the output and exit code", async () => {
    const { sm, session } = await makeSession(kit);
    const message = bashOf(await session.prompt("!echo hello && pwd"));
    assert.equal(message.command, "echo hello && pwd");
    assert.equal(message.output, `hello\n${kit.cwd}\n`);
    assert.equal(message.exitCode, 0);
    assert.equal(message.cancelled, false);
    assert.equal(message.truncated, false);
    assert.equal(message.excludeFromContext, undefined);
    const llm = convertToLlm(sm.buildSessionContext().messages);
    assert.equal(llm.length, 1);
    assert.match(JSON.stringify(llm[0]), /Ran `echo hello && pwd`/);
    // Make the file exist (Pi's rule: written once an assistant message is there), then compare with Pi.
    kit.server.script(reply.text("noted"));
    await session.prompt("what did it print?");
    assert.match(JSON.stringify(sentMessages(kit.server, 0)), /hello/);
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("records a non-zero exit code", async () => {
    const { sm, session } = await makeSession(kit);
    const message = bashOf(await session.prompt("!sh -c 'printf oops >&2; exit 3'"));
    assert.equal(message.exitCode, 3);
    assert.equal(message.output, "oops");
    assert.match(JSON.stringify(convertToLlm([message])), /Command exited with code 3/);
    await session.close();
    await sm.close();
  });

  it("!!cmd is recorded but kept out of the model's context", async () => {
    const { sm, session } = await makeSession(kit);
    const message = bashOf(await session.prompt("!!printf 'private-output'"));
    assert.equal(message.excludeFromContext, true);
    assert.equal(message.output, "private-output");
    assert.equal(sm.getBranch().length, 1);
    kit.server.script(reply.text("ok"));
    await session.prompt("hello");
    assert.doesNotMatch(JSON.stringify(sentMessages(kit.server, 0)), /private-output/);
    await sm.flush();
    const line = readLines(sm.getSessionFile()!).find((l) => l.type === "message" && (l.message as { role: string }).role === "bashExecution");
    assert.equal((line!.message as BashExecutionMessage).excludeFromContext, true);
    await session.close();
    await sm.close();
  });

  it("a cancelled command is stopped and recorded as cancelled with no exit code", async () => {
    const { sm, session } = await makeSession(kit);
    const started = nextEvent(session, (e) => e.type === "bash_output");
    const running = session.prompt("!echo started; sleep 30");
    await started;
    assert.equal(session.isBashRunning(), true);
    session.abortBash();
    const message = bashOf(await running);
    assert.equal(message.cancelled, true);
    assert.equal(message.exitCode, undefined);
    assert.equal(message.output, "started\n");
    assert.equal(session.isBashRunning(), false);
    assert.match(JSON.stringify(convertToLlm([message])), /command cancelled/);
    await session.close();
    await sm.close();
  });

  it("caps long output to its tail and saves the whole output to the recorded file", async () => {
    const { sm, session } = await makeSession(kit, { outputLimits: { maxLines: 50, maxBytes: 2000 } });
    const message = bashOf(await session.prompt("!seq 1 5000"));
    const whole = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join("");
    assert.equal(message.truncated, true);
    assert.ok(message.fullOutputPath && existsSync(message.fullOutputPath));
    assert.equal(readFileSync(message.fullOutputPath, "utf8"), whole);
    assert.ok(message.output.endsWith("4999\n5000\n"));
    assert.ok(message.output.split("\n").length <= 50);
    assert.ok(!message.output.includes("\n1\n"), "the head was cut");
    assert.match(JSON.stringify(convertToLlm([message])), new RegExp(`Full output: ${message.fullOutputPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    await session.close();
    await sm.close();
  });

  it("refuses with a clear message when the host disabled the shell, and records nothing", async () => {
    const { sm, session } = await makeSession(kit, { allowShell: false });
    await assert.rejects(session.prompt("!echo hi"), (error: unknown) => error instanceof AgentError && error.code === "shell-disabled" && error.message === SHELL_DISABLED_MESSAGE);
    assert.equal(sm.getEntryCount(), 0);
    await session.close();
    await sm.close();
  });

  it("refuses an empty command and a missing working directory without recording anything", async () => {
    const sm = SessionManager.inMemory(join(kit.root, "no-such-folder"));
    const session = new AgentSession({ sessionManager: sm });
    await assert.rejects(session.prompt("!   "), (error: unknown) => error instanceof AgentError && error.code === "empty-command");
    await assert.rejects(session.prompt("!echo hi"), (error: unknown) => error instanceof AgentError && error.code === "shell-failed" && /does not exist/.test(error.message));
    assert.equal(sm.getEntryCount(), 0);
    await session.close();
  });

  it("a command run while a prompt streams is recorded after the reply, never inside the turn", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.hang("thinking..."));
    const streaming = nextEvent(session, (e) => e.type === "message_update");
    const prompt = session.prompt("long question");
    await streaming;
    const ran = await session.runBash("echo side-job");
    assert.equal(ran.entryId, undefined, "held back while the prompt runs");
    const recorded = nextEvent(session, (e) => e.type === "message_end" && e.message.role === "bashExecution");
    session.abort();
    await prompt;
    await recorded;
    const roles = sm.getBranch().flatMap((e) => (e.type === "message" ? [e.message.role] : []));
    assert.deepEqual(roles, ["user", "assistant", "bashExecution"]);
    await session.close();
    await sm.close();
  });
});
