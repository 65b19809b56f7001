/**
 * Random session trees built with the reference's own SessionManager, for differential tests.
 * A seed fixes the shape and content of the tree. Entry ids and entry timestamps come from
 * the reference (random UUID prefixes, wall clock), so they differ from run to run; message
 * timestamps are seeded.
 *
 * The tree mixes every entry kind Pi writes: messages of all roles (with text, thinking, tool
 * calls, images, usage, errors), tool results following their calls, bash runs (excluded,
 * failed, cancelled, truncated), custom messages and entries, model and thinking changes,
 * labels and label clears, session names, branches, branch summaries (empty, with file lists,
 * from the root), and compactions whose kept entry is on the path, off it, or unknown.
 */
import type {
  AssistantMessage,
  ImageContent,
  StoredMessage,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../../src/core/session/types";
import { THINKING_LEVELS } from "../../src/core/session/types";
import type { PiReference, RefSessionManager } from "./reference";

/** A seeded pseudo-random source (mulberry32): the same seed gives the same sequence. */
export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [0, n) */
  int(n: number): number;
  /** integer in [min, max] */
  between(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[int(items.length)];
    },
  };
}

export interface RandomSessionOptions {
  seed: number;
  /** How many entries to append (the header not counted). */
  entries: number;
  /**
   * Persist to this folder (`SessionManager.create`); in memory when absent. Pi writes nothing
   * before the first assistant message, so every generated session holds at least one.
   */
  persistDir?: string;
  /** Working directory recorded in the header. */
  cwd?: string;
  /** Also store a few messages whose role this version does not know (as a newer Pi might). */
  unknownRoles?: boolean;
}

export interface RandomSession {
  manager: RefSessionManager;
  /** Every entry id, in file order. */
  ids: string[];
  /** The session file when persisted (it always exists: see `persistDir`). */
  file?: string;
}

const WORDS = [
  "tree", "leaf", "branch", "fix", "the", "parser", "returns", "null", "when", "input", "is", "empty",
  "ünïcödé", "日本語", "🌳", "`code`", "```", "<summary>", "\\n", "\"quoted\"", "src/core/x.ts", "TODO",
];
const PATHS = ["src/a.ts", "src/b.ts", "README.md", "test/c.test.ts", "docs/ü.md", "/abs/path.txt"];
const TOOL_NAMES = ["read", "write", "edit", "bash", "grep", "ls", "find"];
const PROVIDERS: readonly [string, string][] = [
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5"],
  ["google", "gemini-2.5-pro"],
  ["ollama", "qwen3:8b"],
];
const TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

class Generator {
  private step = 0;
  private hasAssistant = false;
  private readonly pendingCalls: ToolCall[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly manager: RefSessionManager,
    private readonly options: RandomSessionOptions,
  ) {}

  run(): void {
    let guard = this.options.entries * 20 + 100;
    for (let count = 0; count < this.options.entries && guard-- > 0; count = this.manager.getEntries().length) {
      // Pi writes a file only once it holds an assistant message: make sure every session has one.
      if (count === this.options.entries - 1 && !this.hasAssistant) this.appendAssistant();
      else this.act();
    }
  }

  private act(): void {
    this.step++;
    const rng = this.rng;
    if (this.pendingCalls.length > 0 && rng.chance(0.85)) return this.appendToolResult(this.pendingCalls.shift()!);
    const roll = rng.int(100);
    if (roll < 20) return void this.manager.appendMessage(this.userMessage());
    if (roll < 40) return this.appendAssistant();
    if (roll < 45) return void this.manager.appendMessage(this.bashMessage());
    if (roll < 49) return this.appendCustomMessageEntry();
    if (roll < 51) return void this.manager.appendMessage(this.storedCustomMessage());
    if (roll < 54) return void this.manager.appendCustomEntry(`ext.${rng.pick(["state", "marker"])}`, { n: rng.int(9) });
    if (roll < 57) return void this.manager.appendModelChange(...rng.pick(PROVIDERS));
    if (roll < 60) return void this.manager.appendThinkingLevelChange(rng.pick(THINKING_LEVELS));
    if (roll < 64) return this.appendLabel();
    if (roll < 66) return void this.manager.appendSessionInfo(rng.chance(0.3) ? "" : this.text(1, 4));
    if (roll < 75) return this.branchSomewhere();
    if (roll < 80) return this.branchWithSummary();
    if (roll < 86) return this.appendCompaction();
    if (roll < 87) return this.manager.resetLeaf();
    if (roll < 88 && this.options.unknownRoles) return void this.manager.appendMessage(this.unknownRoleMessage());
    return void this.manager.appendMessage(this.userMessage());
  }

  private timestamp(): number {
    return 1_700_000_000_000 + this.step * 1000 + this.rng.int(1000);
  }

  private text(minWords: number, maxWords: number): string {
    const count = this.rng.between(minWords, maxWords);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(this.rng.chance(0.05) ? "\n" : this.rng.pick(WORDS));
    return words.join(" ");
  }

  /** Mostly short text, sometimes long enough to matter to token budgets. */
  private body(): string {
    return this.rng.chance(0.15) ? this.text(300, 2500) : this.text(0, 40);
  }

  private image(): ImageContent {
    return { type: "image", data: TINY_PNG, mimeType: "image/png" };
  }

  private blocks(): (TextContent | ImageContent)[] {
    const blocks: (TextContent | ImageContent)[] = [{ type: "text", text: this.body() }];
    if (this.rng.chance(0.2)) blocks.push(this.image());
    if (this.rng.chance(0.2)) blocks.push({ type: "text", text: this.text(0, 10) });
    return blocks;
  }

  private userMessage(): StoredMessage {
    const content = this.rng.chance(0.6) ? this.body() : this.blocks();
    return { role: "user", content, timestamp: this.timestamp() };
  }

  private usage(): Usage {
    const input = this.rng.int(50000);
    const output = this.rng.int(4000);
    const cacheRead = this.rng.int(20000);
    const cacheWrite = this.rng.int(2000);
    const totalTokens = this.rng.chance(0.2) ? 0 : input + output + cacheRead + cacheWrite;
    return { input, output, cacheRead, cacheWrite, totalTokens, cost: { input: 0.01, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.03 } };
  }

  private toolCall(): ToolCall {
    const name = this.rng.pick(TOOL_NAMES);
    const roll = this.rng.int(10);
    const args: Record<string, unknown> =
      roll < 6 ? { path: this.rng.pick(PATHS) } : roll < 8 ? { command: this.text(1, 5) } : roll < 9 ? { path: 42 } : {};
    if (name === "edit" && this.rng.chance(0.5)) args.oldText = this.text(1, 8);
    return { type: "toolCall", id: `call_${this.step}_${this.rng.int(1e6)}`, name, arguments: args };
  }

  private appendAssistant(): void {
    const content: (TextContent | ThinkingContent | ToolCall)[] = [];
    if (this.rng.chance(0.4)) {
      const thinking: ThinkingContent = { type: "thinking", thinking: this.body() };
      if (this.rng.chance(0.3)) thinking.thinkingSignature = "sig";
      content.push(thinking);
    }
    if (this.rng.chance(0.8)) content.push({ type: "text", text: this.body() });
    const calls: ToolCall[] = [];
    const callCount = this.rng.chance(0.4) ? this.rng.between(1, 3) : 0;
    for (let i = 0; i < callCount; i++) calls.push(this.toolCall());
    content.push(...calls);
    const [provider, model] = this.rng.pick(PROVIDERS);
    const failure = this.rng.int(20);
    const stopReason = failure === 0 ? "aborted" : failure === 1 ? "error" : failure === 2 ? "length" : calls.length > 0 ? "toolUse" : "stop";
    const message: AssistantMessage = {
      role: "assistant",
      content,
      api: provider === "anthropic" ? "anthropic-messages" : "openai-completions",
      provider,
      model,
      usage: this.usage(),
      stopReason,
      timestamp: this.timestamp(),
    };
    if (stopReason === "error") message.errorMessage = "upstream 500";
    this.manager.appendMessage(message);
    this.hasAssistant = true;
    this.pendingCalls.push(...calls);
  }

  private appendToolResult(call: ToolCall): void {
    const content: (TextContent | ImageContent)[] = [{ type: "text", text: this.rng.chance(0.2) ? this.text(400, 1500) : this.body() }];
    if (this.rng.chance(0.1)) content.push(this.image());
    this.manager.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content,
      details: this.rng.chance(0.3) ? { diff: this.text(1, 5) } : undefined,
      isError: this.rng.chance(0.15),
      timestamp: this.timestamp(),
    });
  }

  private bashMessage(): StoredMessage {
    const truncated = this.rng.chance(0.2);
    return {
      role: "bashExecution",
      command: this.text(1, 4),
      output: this.rng.chance(0.2) ? "" : this.body(),
      exitCode: this.rng.pick([0, 0, 1, 127, undefined]),
      cancelled: this.rng.chance(0.15),
      truncated,
      fullOutputPath: truncated && this.rng.chance(0.7) ? "/tmp/pi-bash-full.log" : undefined,
      excludeFromContext: this.rng.chance(0.2) ? true : undefined,
      timestamp: this.timestamp(),
    };
  }

  private storedCustomMessage(): StoredMessage {
    return {
      role: "custom",
      customType: "ext.note",
      content: this.rng.chance(0.5) ? this.body() : this.blocks(),
      display: this.rng.chance(0.5),
      timestamp: this.timestamp(),
    };
  }

  private unknownRoleMessage(): StoredMessage {
    // A role from a newer (or older, unmigrated) Pi: must be kept and never break resolution.
    return { role: "hookMessage", content: this.text(1, 6), timestamp: this.timestamp() } as unknown as StoredMessage;
  }

  private appendCustomMessageEntry(): void {
    const content = this.rng.chance(0.5) ? this.body() : this.blocks();
    const details = this.rng.chance(0.4) ? { source: "ext" } : undefined;
    this.manager.appendCustomMessageEntry("ext.inject", content, this.rng.chance(0.6), details);
  }

  private anyId(): string | undefined {
    const entries = this.manager.getEntries();
    return entries.length === 0 ? undefined : this.rng.pick(entries).id;
  }

  private appendLabel(): void {
    const target = this.anyId();
    if (target === undefined) return;
    const clear = this.rng.chance(0.3);
    this.manager.appendLabelChange(target, clear ? this.rng.pick([undefined, ""]) : `label-${this.rng.int(5)}`);
  }

  private branchSomewhere(): void {
    const target = this.anyId();
    if (target === undefined) return;
    this.manager.branch(target);
    this.pendingCalls.length = 0;
  }

  private branchWithSummary(): void {
    const target = this.rng.chance(0.15) ? null : this.anyId();
    if (target === undefined) return;
    const summary = this.rng.chance(0.25) ? "" : this.body();
    const details = this.rng.chance(0.5)
      ? { readFiles: [this.rng.pick(PATHS)], modifiedFiles: this.rng.chance(0.5) ? [this.rng.pick(PATHS)] : [] }
      : undefined;
    this.manager.branchWithSummary(target, summary, details, this.rng.chance(0.2) ? true : undefined);
    this.pendingCalls.length = 0;
  }

  private appendCompaction(): void {
    const path = this.manager.getBranch();
    const roll = this.rng.int(10);
    let firstKept: string | undefined;
    if (roll < 7 && path.length > 0) firstKept = this.rng.pick(path).id;
    else if (roll < 9) firstKept = this.anyId();
    firstKept ??= "deadbeef";
    const details = this.rng.chance(0.6)
      ? { readFiles: [this.rng.pick(PATHS)], modifiedFiles: [this.rng.pick(PATHS)] }
      : this.rng.chance(0.3)
        ? { something: "else" }
        : undefined;
    this.manager.appendCompaction(this.body(), firstKept, this.rng.int(200000), details, this.rng.chance(0.2) ? true : undefined);
  }
}

/**
 * Build a random session with the reference's SessionManager.
 * @param pi the loaded reference package ({@link loadReference})
 */
export function generateReferenceSession(pi: PiReference, options: RandomSessionOptions): RandomSession {
  const cwd = options.cwd ?? "/work/random-session";
  const manager = options.persistDir ? pi.SessionManager.create(cwd, options.persistDir) : pi.SessionManager.inMemory(cwd);
  new Generator(createRng(options.seed), manager, options).run();
  return {
    manager,
    ids: manager.getEntries().map((entry) => entry.id),
    file: options.persistDir ? manager.getSessionFile() : undefined,
  };
}
