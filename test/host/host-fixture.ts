/**
 * The one setup both extension-host runners share (code-server's run-in-code-server.ts and
 * `@vscode/test-electron`'s run-test-electron.ts): a workspace folder, a Pi agent folder holding the
 * sample sessions, and the environment the extension and the suite read. A unit test checks that
 * this environment names every variable the suite reads, and that the electron runner passes it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSampleSessions } from "../support/sample-sessions";

/** What a runner needs to start a suite run. */
export interface HostFixture {
  /** The folder the window opens. */
  readonly workspace: string;
  /** The Pi agent folder (PI_CODING_AGENT_DIR), with the sample sessions under sessions/. */
  readonly agentDir: string;
  /** The environment of the extension host (and so of the suite). */
  readonly env: Readonly<Record<string, string>>;
}

/** Writes the workspace, the agent folder and the sample sessions under `root` (an empty folder). */
export async function prepareHostFixture(root: string): Promise<HostFixture> {
  const workspace = join(root, "workspace");
  const agentDir = join(root, "agent");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "README.md"), "# Arbor host-test workspace\n");
  const samplesFile = join(root, "sample-sessions.json");
  writeFileSync(samplesFile, JSON.stringify(await createSampleSessions({ agentDir, cwd: workspace }), null, 2));
  return {
    workspace,
    agentDir,
    env: { PI_CODING_AGENT_DIR: agentDir, ARBOR_HOST_WORKSPACE: workspace, ARBOR_SAMPLE_SESSIONS: samplesFile, ARBOR_TEST_HOOKS: "1" },
  };
}

/** The options `@vscode/test-electron`'s runTests gets for a fixture (see run-test-electron.ts). */
export function testElectronOptions(
  fixture: HostFixture,
  paths: {
    /** Arbor's folder, or several extension folders (Arbor's first, then test extensions). */
    readonly extensionDevelopmentPath: string | readonly string[];
    readonly extensionTestsPath: string;
    readonly userDataDir: string;
    readonly version: string;
    /** More arguments for the window (such as enabling a proposed API for a test extension). */
    readonly launchArgs?: readonly string[];
  },
): {
  version: string;
  extensionDevelopmentPath: string | string[];
  extensionTestsPath: string;
  extensionTestsEnv: Record<string, string>;
  launchArgs: string[];
} {
  const dev = paths.extensionDevelopmentPath;
  return {
    version: paths.version,
    extensionDevelopmentPath: typeof dev === "string" ? dev : [...dev],
    extensionTestsPath: paths.extensionTestsPath,
    extensionTestsEnv: { ...fixture.env },
    launchArgs: [fixture.workspace, ...(paths.launchArgs ?? []), "--disable-extensions", "--disable-workspace-trust", "--skip-welcome", "--user-data-dir", paths.userDataDir],
  };
}
