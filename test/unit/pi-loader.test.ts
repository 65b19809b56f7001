/** Loading Pi extension files: discovery as Pi does it, jiti with Pi's package names, a tool from hello.ts. */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverExtensions } from "../../src/core/pi-extensions/discovery";
import { reply } from "../support/scripted-openai-server";
import { makeKit, sentMessages, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

describe("Pi extension loading", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("hello.ts (unchanged) registers a tool the model calls", async () => {
    const pi = await startWithExamples(kit, ["hello.ts"]);
    assert.deepEqual(pi.reports, []);
    assert.deepEqual(pi.set.list().map((s) => [s.extension.name, s.state, s.tools]), [["hello", "loaded", ["hello"]]]);
    kit.server.script(reply.toolCall({ name: "hello", arguments: { name: "Arbor" } }), reply.text("It said hello."));
    await pi.runtime.session.prompt("greet Arbor");
    const offered = (kit.server.requests.at(-2)!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    assert.ok(offered.includes("hello"));
    const toolMessage = (sentMessages(kit.server, 2) as { role: string; content: string }[]).find((m) => m.role === "tool");
    assert.equal(toolMessage?.content, "Hello, Arbor!");
    const result = pi.runtime.session.getBranch().find((e) => e.type === "message" && e.message.role === "toolResult");
    assert.deepEqual(result?.type === "message" && result.message.role === "toolResult" && result.message.details, { greeted: "Arbor" });
    await pi.runtime.dispose();
  });

  it("discovers files and folders as Pi does: project (trusted only), user, then the setting's paths", () => {
    const root = kit.root;
    const agentDir = join(root, "agentdir");
    const cwd = join(root, "project");
    const mk = (path: string, text = "export default () => {}") => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, text);
    };
    mk(join(cwd, ".pi/extensions/local.ts"));
    mk(join(agentDir, "extensions/b.ts"));
    mk(join(agentDir, "extensions/a.js"));
    mk(join(agentDir, "extensions/notes.md"));
    mk(join(agentDir, "extensions/withindex/index.ts"));
    mk(join(agentDir, "extensions/withmanifest/package.json"), JSON.stringify({ pi: { extensions: ["./src/main.ts"] } }));
    mk(join(agentDir, "extensions/withmanifest/src/main.ts"));
    mk(join(agentDir, "extensions/empty/readme.txt"));
    mk(join(root, "extra/one.ts"));
    const trusted = discoverExtensions({ agentDir, cwd, trusted: true, paths: [join(root, "extra/one.ts"), join(agentDir, "extensions/b.ts")] });
    assert.deepEqual(trusted.map((d) => `${d.scope}:${d.name}`), ["project:local", "user:a", "user:b", "user:withindex", "user:main", "setting:one"]);
    const untrusted = discoverExtensions({ agentDir, cwd, trusted: false });
    assert.equal(untrusted.some((d) => d.scope === "project"), false, "a workspace that is not trusted loads none of its own extensions");
  });

  it("an extension that fails to load is listed with its error; the others load", async () => {
    const pi = await startWithExamples(kit, ["hello.ts"], { extraFiles: { "broken.ts": "export default function (pi) { throw new Error('boom at load'); }", "syntax.ts": "export default function (" } });
    const byName = new Map(pi.set.list().map((s) => [s.extension.name, s]));
    assert.equal(byName.get("hello")?.state, "loaded");
    assert.equal(byName.get("broken")?.state, "failed");
    assert.match(byName.get("broken")!.loadError!, /boom at load/);
    assert.equal(byName.get("syntax")?.state, "failed");
    assert.ok(pi.reports.some((r) => r.startsWith("broken/load:")));
    await pi.runtime.dispose();
  });
});
