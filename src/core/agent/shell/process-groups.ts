/**
 * Process groups started by shell commands, tracked so that none outlives its session or the
 * extension host. Every command runs as the leader of its own group; what it starts in the
 * background (`cmd &`) stays in that group after the shell has exited, so signalling the group
 * reaches it. (A process that leaves the group on purpose, with `setsid`, cannot be followed.)
 */
import type { Disposable } from "../../util/disposable";

/** Time a group gets to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;

const isWindows = process.platform === "win32";

/** Sends a signal to a whole process group (the process alone on Windows, which has no groups). */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(isWindows ? pgid : -pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of the group is still there (zombies count until reaped). */
export function isProcessGroupAlive(pgid: number): boolean {
  return signalProcessGroup(pgid, 0);
}

/** SIGTERM now, SIGKILL after the grace period unless `immediate` (when the host is going away). */
export function killProcessGroup(pgid: number, immediate = false): void {
  if (immediate) {
    signalProcessGroup(pgid, "SIGKILL");
    return;
  }
  if (!signalProcessGroup(pgid, "SIGTERM")) return;
  const timer = setTimeout(() => signalProcessGroup(pgid, "SIGKILL"), KILL_GRACE_MS);
  timer.unref();
}

/** Every live tracker, so the host can stop everything at once (deactivate, process exit). */
const trackers = new Set<ProcessGroups>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `exit` handlers must be synchronous; process.kill is. This covers an extension host that ends
  // without calling deactivate (a crash, a kill of the window).
  process.on("exit", () => killAllProcessGroups(true));
}

/**
 * The groups of one owner (an agent session). `dispose` kills every group still alive and stops
 * tracking; a disposed tracker kills any group added later at once.
 */
export class ProcessGroups implements Disposable {
  private readonly groups = new Set<number>();
  private disposed = false;

  constructor() {
    trackers.add(this);
    installExitHook();
  }

  /** Starts tracking a group (its leader's pid). */
  add(pgid: number): void {
    if (this.disposed) {
      killProcessGroup(pgid);
      return;
    }
    this.groups.add(pgid);
  }

  /** Stops tracking a group whose processes are all gone. */
  forget(pgid: number): void {
    this.groups.delete(pgid);
  }

  /** The tracked groups that still have a process, dropping the rest. */
  alive(): number[] {
    for (const pgid of this.groups) if (!isProcessGroupAlive(pgid)) this.groups.delete(pgid);
    return [...this.groups];
  }

  /** Kills every tracked group (SIGTERM, then SIGKILL after a grace; at once when `immediate`). */
  killAll(immediate = false): void {
    for (const pgid of this.alive()) killProcessGroup(pgid, immediate);
    this.groups.clear();
  }

  dispose(): void {
    if (this.disposed) return;
    this.killAll();
    this.disposed = true;
    trackers.delete(this);
  }
}

/** The tracker of commands run without an owner of their own (library use). */
export const defaultProcessGroups = new ProcessGroups();

/**
 * Kills every group any tracker holds. The extension calls it on deactivate; it also runs at process
 * exit (with `immediate`, as nothing runs after exit handlers).
 */
export function killAllProcessGroups(immediate = false): void {
  for (const tracker of trackers) tracker.killAll(immediate);
}
