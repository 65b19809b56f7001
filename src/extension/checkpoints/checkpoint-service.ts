import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentSessionConfig, CheckpointRecorder } from "../../core/agent/agent-session";
import { CheckpointStore, probeGit, SessionCheckpoints, type RestoreReport } from "../../core/checkpoints";
import type { SessionManager } from "../../core/session/session-manager";

/** Why checkpoints are off, when they are. */
export type CheckpointsOff = { off: true; reason: string };

/**
 * The user's git as VS Code's Git extension finds it: the `git.path` setting, else `git` on PATH.
 * Only the user's own value counts: a workspace's settings must not choose a program for Arbor to run
 * (the Git extension declares the setting machine-scoped, but Arbor cannot count on that extension).
 */
export function gitCandidates(): string[] {
  const setting = vscode.workspace.getConfiguration("git").inspect<string | string[] | null>("path")?.globalValue;
  const listed = Array.isArray(setting) ? setting : typeof setting === "string" && setting !== "" ? [setting] : [];
  return [...listed, "git"];
}

/**
 * The window's checkpoint stores, one per workspace folder that sessions work in, in the
 * extension's global storage. Sessions record snapshots through it; the checkout command restores.
 */
export class CheckpointService implements vscode.Disposable {
  private gitPath: Promise<string | undefined> | undefined;
  private readonly stores = new Map<string, Promise<CheckpointStore | undefined>>();
  private toldOff = false;
  /** The last restore of this window, for "Undo File Restore". */
  lastRestore: { store: CheckpointStore; report: RestoreReport } | undefined;
  /** A session recorded a snapshot in this store (automatic pruning listens). */
  onSnapshot: ((store: CheckpointStore) => void) | undefined;

  /**
   * `protectedFolders`: folders a restore must never touch even when they sit inside the workspace
   * (the sessions folders and the agent folder: a restore must not rewrite the session it runs in).
   */
  constructor(
    /** The extension's global storage (the stores, and records for other windows). */
    readonly storageDir: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly protectedFolders: () => string[] = () => [],
  ) {}

  private settings() {
    const c = vscode.workspace.getConfiguration("arbor.checkpoints");
    return {
      enabled: c.get<boolean>("enabled", true),
      maxFileBytes: Math.max(0, c.get<number>("maxFileSizeMB", 10)) * 1024 * 1024,
      exclude: c.get<string[]>("exclude", []).filter((p) => typeof p === "string"),
      restoreOnCheckout: c.get<"ask" | "conversationAndFiles" | "conversationOnly">("restoreOnCheckout", "ask"),
    };
  }

  /** What the checkout does with files when the question is off (or "ask"). */
  restoreOnCheckout(): "ask" | "conversationAndFiles" | "conversationOnly" {
    return this.settings().restoreOnCheckout;
  }

  /** The workspace folder a session works in (its cwd or a folder containing it); none outside the workspace. */
  private folderOf(cwd: string): string | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(cwd));
    return folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
  }

  /** The store of the folder a session works in; undefined (said once) when checkpoints are off. */
  storeFor(cwd: string): Promise<CheckpointStore | undefined> {
    const settings = this.settings();
    if (!settings.enabled) return Promise.resolve(undefined);
    const folder = this.folderOf(cwd);
    if (!folder) return Promise.resolve(undefined);
    let store = this.stores.get(folder);
    if (!store) {
      store = this.openStore(folder, settings).catch((error: unknown) => {
        this.log.warn(`Checkpoints are off for ${folder}: ${(error as Error).message}`);
        return undefined;
      });
      this.stores.set(folder, store);
    }
    return store;
  }

  private async openStore(folder: string, settings: ReturnType<CheckpointService["settings"]>): Promise<CheckpointStore | undefined> {
    this.gitPath ??= findGit();
    const gitPath = await this.gitPath;
    if (!gitPath) {
      this.tellOff("Arbor's file checkpoints are off: git was not found (set `git.path` or put git on PATH). Check outs move the conversation only.");
      return undefined;
    }
    const inside = this.protectedFolders()
      .map((p) => path.relative(folder, p))
      .filter((rel) => rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel))
      .map((rel) => `/${rel.split(path.sep).join("/")}/`);
    return CheckpointStore.open({ gitPath, storageDir: this.storageDir, workspace: folder, maxFileBytes: settings.maxFileBytes, excludes: [...settings.exclude, ...inside] });
  }

  private tellOff(message: string): void {
    this.log.warn(message);
    if (this.toldOff) return;
    this.toldOff = true;
    void vscode.window.showWarningMessage(message);
  }

  /** The recorder an agent session uses (snapshots are taken in Restricted Mode too: they only read). */
  recorder(sm: SessionManager): CheckpointRecorder {
    let recorder: Promise<{ store: CheckpointStore; checkpoints: SessionCheckpoints } | undefined> | undefined;
    return {
      record: async (moment) => {
        recorder ??= this.storeFor(sm.getCwd()).then((store) =>
          store ? { store, checkpoints: new SessionCheckpoints(store, sm, (s) => s.skipped.length > 0 && this.log.info(`Checkpoint ${s.id.slice(0, 8)} left out large files: ${s.skipped.map((f) => f.path).join(", ")}`)) } : undefined,
        );
        const r = await recorder;
        if (!r) return undefined;
        try {
          const recorded = await r.checkpoints.record(moment);
          this.onSnapshot?.(r.store);
          return recorded;
        } catch (error) {
          this.log.warn(`A checkpoint failed: ${(error as Error).message}`);
          return undefined;
        }
      },
    };
  }

  dispose(): void {
    this.stores.clear();
  }
}

async function findGit(): Promise<string | undefined> {
  for (const candidate of gitCandidates()) {
    if (await probeGit(candidate)) return candidate;
  }
  return undefined;
}

/** Adds checkpoint recording to every agent session's configuration. */
export function withCheckpoints(base: (sm: SessionManager) => Promise<AgentSessionConfig>, service: CheckpointService): (sm: SessionManager) => Promise<AgentSessionConfig> {
  return async (sm) => ({ ...(await base(sm)), checkpoints: (m: SessionManager) => service.recorder(m) });
}

/** A snapshot's file as a URI our content provider serves (for "Show Changes"). */
export function snapshotUri(workspace: string, snapshot: string, rel: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${rel}`, query: new URLSearchParams({ w: workspace, s: snapshot }).toString() });
}

export const SNAPSHOT_SCHEME = "arbor-checkpoint";

/** Serves files of snapshots, read-only, for diffs. */
export function registerSnapshotContent(service: CheckpointService): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, {
    async provideTextDocumentContent(uri) {
      const q = new URLSearchParams(uri.query);
      const store = await service.storeFor(q.get("w") ?? "");
      const bytes = store ? await store.readFile(q.get("s") ?? "", uri.path.slice(1)) : undefined;
      return bytes?.toString("utf8") ?? "";
    },
  });
}

/** The workspace path of a snapshot path. */
export function fileUri(workspace: string, rel: string): vscode.Uri {
  return vscode.Uri.file(path.join(workspace, ...rel.split("/")));
}
