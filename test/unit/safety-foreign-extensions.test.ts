/**
 * Tool safety, a session's folder outside the workspace (issue 20.2): the window's trust does not
 * reach it. Its `.pi/extensions/` wait for the session's folder question, asked before any of them
 * is read as code (an extension that writes a marker when loaded has not written it while the
 * question is open); a denial leaves them unloaded, listed and announced; a yes loads them and
 * also answers the tools' question. `pi.exec` in that folder waits for the same question. Relative
 * `arbor.extensions.paths` entries come from the home folder, never from the session's folder.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/core/agent/safety/approvals";
import type { ToolPolicy } from "../../src/core/agent/tool-runner";
import { discoverExtensions } from "../../src/core/pi-extensions/discovery";
import { PiExtensionSet } from "../../src/core/pi-extensions/pi-extension-set";
import type { AgentSessionRuntime } from "../../src/core/runtime/agent-session-runtime";
import { ExtensionHost } from "../../src/core/runtime/extension-host";
import { reply } from "../support/scripted-openai-server";
import { HeadlessUi } from "../support/headless-ui";
import { makeKit, startRuntime, type AgentKit } from "./agent-harness.test";

/** An extension that leaves a marker the moment its file is loaded, and offers /run (pi.exec). */
function markerExtension(marker: string, execMarker: string): string {
  return `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "loaded");
export default function (pi) {
  pi.registerCommand("run", { description: "runs touch", handler: async () => { await pi.exec("touch", [${JSON.stringify(execMarker)}]); } });
}
`;
}

describe("tool safety: a session folder outside the workspace and its extensions", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  let workspace: string;
  let agentDir: string;
  let marker: string;
  let execMarker: string;
  let runtime: AgentSessionRuntime | undefined;
  beforeEach(async () => {
    kit = await makeKit();
    workspace = join(kit.root, "open-workspace");
    agentDir = join(kit.root, "agent");
    mkdirSync(workspace);
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    marker = join(kit.root, "project-extension-ran");
    execMarker = join(kit.root, "exec-ran");
    mkdirSync(join(kit.cwd, ".pi", "extensions"), { recursive: true });
    writeFileSync(join(kit.cwd, ".pi", "extensions", "x.ts"), markerExtension(marker, execMarker));
  });
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
    await kit.cleanup();
  });

  async function start(approve: ToolPolicy["approve"], folders: string[]): Promise<{ set: PiExtensionSet; ui: HeadlessUi }> {
    const extensions = new ExtensionHost();
    const ui = new HeadlessUi();
    const set = new PiExtensionSet({
      extensions,
      // The window is trusted: that alone must not load a foreign folder's code.
      discover: (cwd) => discoverExtensions({ agentDir, cwd, trusted: true }),
      ui,
      agentDir: () => agentDir,
      cacheDir: false,
      requestShutdown: () => undefined,
    });
    runtime = await startRuntime(kit, { extensions, sessionExtensions: set, configureSession: () => kit.config({ toolPolicy: { approve, workspaceFolders: folders } }) });
    return { set, ui };
  }

  function asker(answer: ApprovalAnswer): { asked: ApprovalRequest[]; markerWhenAsked: boolean[]; approve: NonNullable<ToolPolicy["approve"]> } {
    const asked: ApprovalRequest[] = [];
    const markerWhenAsked: boolean[] = [];
    return {
      asked,
      markerWhenAsked,
      approve: (request) => {
        asked.push(request);
        markerWhenAsked.push(existsSync(marker));
        return answer;
      },
    };
  }

  it("asks before loading the folder's extensions, naming them; Deny loads none, lists why, and says so", async () => {
    const host = asker("deny");
    const { set, ui } = await start(host.approve, [workspace]);
    assert.deepEqual(host.asked, [{ kind: "working-folder", cwd: kit.cwd, workspaceFolders: [workspace], extensions: [join(kit.cwd, ".pi/extensions/x.ts")] }]);
    assert.equal(existsSync(marker), false, "the stranger's code never ran");
    const [status] = set.list();
    assert.equal(status?.state, "failed");
    assert.match(status!.loadError!, /^Not loaded: this session's folder .* is outside the open workspace/);
    assert.ok(ui.calls.some((c) => c.startsWith("notify warning: The Pi extensions of") && c.includes("(x) were not loaded")), ui.calls.join("\n"));
    assert.deepEqual(set.commands(), []);
  });

  it("Allow loads them only after the answer, and the tools do not ask again", async () => {
    const host = asker("session");
    const { set } = await start(host.approve, [workspace]);
    assert.deepEqual(host.markerWhenAsked, [false], "nothing was loaded while the question was open");
    assert.equal(existsSync(marker), true);
    assert.deepEqual(set.list().map((s) => s.state), ["loaded"]);
    writeFileSync(join(kit.cwd, "a.txt"), "alpha\n");
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "a.txt" } }), reply.text("read"));
    await runtime!.session.prompt("read it");
    assert.equal(host.asked.length, 1, "the folder was allowed once for the session");
  });

  it("inside the workspace the folder's extensions load without a question", async () => {
    const host = asker("deny");
    const { set } = await start(host.approve, [kit.cwd]);
    assert.deepEqual(host.asked, []);
    assert.deepEqual(set.list().map((s) => s.state), ["loaded"]);
  });

  it("pi.exec of a user extension in a foreign session folder waits for the folder question; Deny runs nothing", async () => {
    // The same extension, as the user's own (agent directory): it loads without a question, its pi.exec asks.
    writeFileSync(join(agentDir, "extensions", "mine.ts"), markerExtension(join(kit.root, "user-extension-ran"), execMarker));
    writeFileSync(join(kit.cwd, ".pi", "extensions", "x.ts"), "export default function () {}\n");
    const answers: ApprovalAnswer[] = ["deny", "deny", "deny", "session"];
    const asked: ApprovalRequest[] = [];
    const { set } = await start((request) => (asked.push(request), answers.shift() ?? "deny"), [workspace]);
    assert.deepEqual(set.list().map((s) => `${s.extension.name}:${s.state}`), ["x:failed", "mine:loaded"]);
    assert.deepEqual(asked.map((r) => r.kind), ["working-folder"], "asked at load for the project extension");
    // startRuntime's first prompt began a new run: the load's denial no longer holds, so exec asks.
    await assert.rejects(set.runCommand("run", ""), /The extension "mine" cannot run touch in .*running tools in this session's folder/);
    assert.equal(asked.length, 2);
    assert.equal(existsSync(execMarker), false, "denied: nothing ran");
    // Within the same run a denial holds without asking again, as for tools.
    await assert.rejects(set.runCommand("run", ""));
    assert.equal(asked.length, 2);
    kit.server.script(reply.text("ok"));
    await runtime!.session.prompt("next");
    await assert.rejects(set.runCommand("run", ""));
    assert.equal(asked.length, 3);
    kit.server.script(reply.text("ok"));
    await runtime!.session.prompt("and next");
    await set.runCommand("run", "");
    assert.equal(existsSync(execMarker), true, "allowed: it ran");
    assert.deepEqual(asked.map((r) => r.kind), ["working-folder", "working-folder", "working-folder", "working-folder"]);
  });

  it("relative arbor.extensions.paths entries come from the home folder (or the given base), never the session's folder", () => {
    writeFileSync(join(kit.cwd, "evil.ts"), "export default function () {}\n");
    const fromSession = discoverExtensions({ agentDir, cwd: kit.cwd, trusted: false, paths: ["evil.ts"], pathsBase: join(kit.root, "home") });
    assert.deepEqual(fromSession.map((e) => e.path), [join(kit.root, "home", "evil.ts")]);
    const defaultBase = discoverExtensions({ agentDir, cwd: kit.cwd, trusted: false, paths: ["evil.ts"] });
    assert.ok(!defaultBase.some((e) => e.path === join(kit.cwd, "evil.ts")));
  });
});
