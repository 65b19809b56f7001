/**
 * A throw-away home for one real-VS-Code run: its own HOME, XDG folders, TMPDIR, user data and
 * extensions, so nothing touches the real home folder and runs never see each other's state.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Settings that keep the workbench quiet and offline: no startup editor, telemetry, updates, trust or git. */
export const quietUserSettings: Readonly<Record<string, unknown>> = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "security.workspace.trust.enabled": false,
  "git.enabled": false,
  "git.autoRepositoryDetection": false,
  "github.gitAuthentication": false,
  "chat.commandCenter.enabled": false,
  "npm.autoDetect": "off",
  "typescript.tsserver.experimental.enableProjectDiagnostics": false,
};

/** Folders and environment of one isolated run. */
export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly tmpDir: string;
  readonly userDataDir: string;
  readonly serverDataDir: string;
  readonly extensionsDir: string;
  /** The environment every process of the run gets (the server, its extension host, the browser). */
  readonly env: NodeJS.ProcessEnv;
  /** Merges settings into the user settings file; a running workbench picks the change up. */
  updateUserSettings(settings: Readonly<Record<string, unknown>>): void;
  /** Deletes the folders, unless ARBOR_KEEP_SANDBOX=1 asks to keep them for a post-mortem. */
  dispose(): void;
}

/** Options for {@link createSandbox}. */
export interface SandboxOptions {
  /** Extra environment for the run (for example PI_CODING_AGENT_DIR). */
  readonly env?: Readonly<Record<string, string>>;
  /** Settings on top of {@link quietUserSettings}. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

const undisposed = new Set<string>();
let exitHookInstalled = false;

/** If the runner ends without disposing (an uncaught error, a signal turned into exit), clean up anyway. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    if (process.env.ARBOR_KEEP_SANDBOX === "1") return;
    for (const root of undisposed) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  });
}

/**
 * Creates the folders under the system temp folder. Short paths on purpose: VS Code puts IPC sockets
 * in them and Unix socket paths are limited to about 100 characters.
 */
export function createSandbox(label: string, options: SandboxOptions = {}): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `arbor-${label}-`));
  installExitHook();
  undisposed.add(root);
  const dir = (name: string) => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const home = dir("home");
  const tmpDir = dir("tmp");
  const userDataDir = dir("user-data");
  const serverDataDir = dir("server-data");
  const extensionsDir = dir("extensions");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    TMPDIR: tmpDir,
    XDG_CONFIG_HOME: dir("home/.config"),
    XDG_DATA_HOME: dir("home/.local/share"),
    XDG_CACHE_HOME: dir("home/.cache"),
    XDG_STATE_HOME: dir("home/.local/state"),
    XDG_RUNTIME_DIR: dir("run"),
    ...options.env,
  };
  // Nothing of the outer VS Code (when tests are started from one) may leak into this run.
  for (const key of Object.keys(env)) if (key.startsWith("VSCODE_") || key === "ELECTRON_RUN_AS_NODE") delete env[key];

  const settingsFile = join(userDataDir, "User/settings.json");
  const updateUserSettings = (settings: Readonly<Record<string, unknown>>) => {
    let current: Record<string, unknown> = {};
    try {
      current = JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
    } catch {
      // first write
    }
    mkdirSync(dirname(settingsFile), { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ ...current, ...settings }, null, 2));
  };
  updateUserSettings({ ...quietUserSettings, ...options.settings });

  return {
    root, home, tmpDir, userDataDir, serverDataDir, extensionsDir, env, updateUserSettings,
    dispose: () => {
      if (process.env.ARBOR_KEEP_SANDBOX === "1") return;
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      undisposed.delete(root);
    },
  };
}

/**
 * A temporary folder for a test's own files (a workspace, an agent folder). Like a sandbox it is
 * deleted at exit if the test could not do it (mocha skips `after` hooks on Ctrl-C).
 */
export function createScratchFolder(label: string): { readonly path: string; dispose(): void } {
  const path = mkdtempSync(join(tmpdir(), `arbor-${label}-`));
  installExitHook();
  undisposed.add(path);
  return {
    path,
    dispose: () => {
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
      undisposed.delete(path);
    },
  };
}
