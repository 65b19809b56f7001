/**
 * One webview page loads at a time. VS Code for the Web hosts such as code-server serve every webview
 * from one origin, where the service workers of two frames loading at the same moment can take over
 * each other's frame and leave one blank for good. Arbor's pages say so when their script runs, so the
 * next page is loaded only once the one before it has spoken (or has had `giveUpMs` to do so, so that
 * one page that never starts does not keep the others blank too). Desktop VS Code gives each webview
 * an origin of its own; there the wait costs one page's start-up, a few tens of milliseconds.
 *
 * No `vscode` import: the order is plain logic, tested on its own.
 */

/** A place in the queue: `started` when the page spoke, `dispose` when the webview went away. */
export interface StartTurn {
  /** The page has said it runs: the next one may load. */
  started(): void;
  /** The webview is gone (or gave up): frees its place, or leaves the queue if it was still waiting. */
  dispose(): void;
}

interface Waiting {
  readonly load: () => void;
  done: boolean;
}

/** Lets one webview page load at a time, in the order they asked. */
export class WebviewStartQueue {
  private current: Waiting | undefined;
  private currentTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiting: Waiting[] = [];

  /** @param giveUpMs how long a page may take to speak before the next one loads anyway. */
  constructor(private readonly giveUpMs = 10_000) {}

  /** How many pages wait for their turn (diagnostics and tests). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Whether a page is loading and has not spoken yet. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Calls `load` now if no other page is loading, else once the pages before it have started. */
  enqueue(load: () => void): StartTurn {
    const turn: Waiting = { load, done: false };
    this.waiting.push(turn);
    this.next();
    return {
      started: () => this.finish(turn),
      dispose: () => this.finish(turn),
    };
  }

  private finish(turn: Waiting): void {
    if (turn.done) return;
    turn.done = true;
    const index = this.waiting.indexOf(turn);
    if (index >= 0) this.waiting.splice(index, 1);
    if (this.current === turn) {
      this.current = undefined;
      if (this.currentTimer) clearTimeout(this.currentTimer);
      this.currentTimer = undefined;
      this.next();
    }
  }

  private next(): void {
    if (this.current) return;
    const turn = this.waiting.shift();
    if (!turn) return;
    this.current = turn;
    this.currentTimer = setTimeout(() => {
      this.currentTimer = undefined;
      if (this.current !== turn) return;
      this.current = undefined;
      this.next();
    }, this.giveUpMs);
    this.currentTimer.unref?.();
    turn.load();
  }
}
