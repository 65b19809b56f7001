import * as vscode from "vscode";
import { autoPrune, referencedSnapshots, type AutoPruneResult, type CheckpointStore } from "../../core/checkpoints";
import type { CheckpointService } from "./checkpoint-service";
import { megabytes, PRUNE_CHECKPOINTS_COMMAND } from "./prune-command";

/** A quiet spell after the last snapshot before a store is checked (a prune's gc must not hold up a prompt). */
const QUIET_MS = 60_000;
const LAST_PRUNED_KEY = "arbor.checkpoints.lastPruned";

/**
 * Keeps each workspace's checkpoints within `arbor.checkpoints.maxStorageMB`: a quiet minute after a
 * snapshot, the store's snapshots that no session file refers to are pruned when a day has passed
 * since the last prune or the store is over the cap. Snapshots sessions refer to stay; when they
 * alone are over the cap, Arbor says so once per window, with Prune Checkpoints... and the setting.
 */
export class CheckpointAutoPrune implements vscode.Disposable {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly service: CheckpointService,
    private readonly state: vscode.Memento,
    private readonly sessionFolders: () => string[],
    /** Writes what the open session holds, so that its newest references are in its file. */
    private readonly flush: () => Promise<void>,
    private readonly log: vscode.LogOutputChannel,
    private readonly quietMs = QUIET_MS,
  ) {}

  afterSnapshot(store: CheckpointStore): void {
    const key = store.workspace;
    const pending = this.timers.get(key);
    if (pending) clearTimeout(pending);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.check(store).catch((error: Error) => this.log.warn(`Pruning the checkpoints of ${key} failed: ${error.message}`));
      }, this.quietMs),
    );
  }

  /** Checks one store now (also what the timer runs). */
  async check(store: CheckpointStore): Promise<AutoPruneResult> {
    const capMb = vscode.workspace.getConfiguration("arbor.checkpoints").get<number>("maxStorageMB", 2048);
    const capBytes = Math.max(0, Number.isFinite(capMb) ? capMb : 0) * 1024 * 1024;
    const last = this.state.get<Record<string, number>>(LAST_PRUNED_KEY, {});
    await this.flush().catch(() => undefined);
    const result = await autoPrune(store, {
      capBytes,
      lastPrunedAt: last[store.workspace],
      referenced: () => referencedSnapshots(this.sessionFolders()),
      keep: this.service.lastRestore ? [this.service.lastRestore.report.from] : [],
    });
    if (result.pruned) {
      await this.state.update(LAST_PRUNED_KEY, { ...last, [store.workspace]: Date.now() });
      this.log.info(`Pruned ${result.removed} unreferenced checkpoint snapshots of ${store.workspace}: ${megabytes(result.bytesBefore)} → ${megabytes(result.bytesAfter)}`);
    } else if (result.reason === "unreadable-sessions") {
      this.log.warn(`Checkpoints of ${store.workspace} not pruned: some session files could not be read.`);
    }
    if (result.overCap && !this.warned.has(store.workspace)) {
      this.warned.add(store.workspace);
      const bytes = result.pruned ? result.bytesAfter : result.bytes;
      const prune = vscode.l10n.t("Prune Checkpoints...");
      const settings = vscode.l10n.t("Open Settings");
      void vscode.window
        .showWarningMessage(vscode.l10n.t("The file checkpoints of {0} take {1}, more than arbor.checkpoints.maxStorageMB ({2}), in snapshots that sessions still refer to.", store.workspace, megabytes(bytes), megabytes(capBytes)), prune, settings)
        .then((answer) => {
          if (answer === prune) void vscode.commands.executeCommand(PRUNE_CHECKPOINTS_COMMAND);
          if (answer === settings) void vscode.commands.executeCommand("workbench.action.openSettings", "arbor.checkpoints.maxStorageMB");
        });
    }
    return result;
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
