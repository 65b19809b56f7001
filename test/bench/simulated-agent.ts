/**
 * A simulated coding agent that drives the reference SessionManager the way Pi does: turns of
 * prompt, tool rounds and answer; model and thinking changes; labels; session names; `!cmd`
 * runs; leaving a branch (with and without a branch summary); returning to an old branch; and
 * compacting when the context grows past 150–300 KB.
 */
import type { StoredMessage, ToolCall } from "../../src/core/session/types";
import {
  assistantMessage,
  bashExecution,
  MODELS,
  ModelProfile,
  toolCall,
  toolResult,
  userMessage,
} from "./content-messages";
import { filePath, identifier, structuredSummary } from "./content-text";
import type { SimulatedClock } from "./deterministic-env";
import type { RefSessionManager } from "./reference";
import { Rng } from "./rng";

/** Thrown by an append once the session holds the requested number of entries. */
class SessionFull extends Error {}

interface EntryFacts {
  parentId: string | null;
  /** Approximate serialized size: what the entry adds to a context. */
  bytes: number;
  /** 1-based line in the file (the header is line 1). */
  line: number;
  isUserMessage: boolean;
  /** Set on compaction entries. */
  firstKeptEntryId?: string;
}

/** An entry on another branch than the final leaf's, for checkout benchmarks. */
export interface CheckoutTarget {
  id: string;
  line: number;
  /** Entries from the root to this one, inclusive. */
  depth: number;
}

export interface AgentStats {
  entries: number;
  leafId: string | null;
  byType: Record<string, number>;
  branchesLeft: number;
  branchSummaries: number;
  returnsToOldBranch: number;
  targets: CheckoutTarget[];
}

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const MINUTE = 60_000;

export class SimulatedAgent {
  private readonly facts = new Map<string, EntryFacts>();
  private readonly withChildren = new Set<string>();
  private readonly abandonedTips: string[] = [];
  private readonly byType: Record<string, number> = {};
  private count = 0;
  /** The current root-to-leaf path (ids), with running context size bookkeeping. */
  private path: string[] = [];
  private contextStart = 0;
  private compactAtBytes: number;
  private model: ModelProfile;
  private branchesLeft = 0;
  private branchSummaries = 0;
  private returnsToOldBranch = 0;

  constructor(
    private readonly sm: RefSessionManager,
    private readonly rng: Rng,
    private readonly clock: SimulatedClock,
    private readonly limit: number,
  ) {
    this.model = rng.pick(MODELS);
    this.compactAtBytes = this.nextCompactionThreshold();
  }

  /** Appends turns until the session holds exactly `limit` entries. */
  run(): AgentStats {
    try {
      this.add("model_change", 200, false, () => this.sm.appendModelChange(this.model.provider, this.model.modelId));
      this.add("thinking_level_change", 150, false, () => this.sm.appendThinkingLevelChange("medium"));
      for (let turn = 0; ; turn++) {
        this.playTurn(turn);
      }
    } catch (error) {
      if (!(error instanceof SessionFull)) {
        throw error;
      }
    }
    return {
      entries: this.count,
      leafId: this.sm.getLeafId(),
      byType: this.byType,
      branchesLeft: this.branchesLeft,
      branchSummaries: this.branchSummaries,
      returnsToOldBranch: this.returnsToOldBranch,
      targets: this.pickCheckoutTargets(8),
    };
  }

  private playTurn(turn: number): void {
    const rng = this.rng;
    if (turn > 0 && rng.chance(0.03)) {
      this.model = rng.pick(MODELS);
      this.add("model_change", 200, false, () => this.sm.appendModelChange(this.model.provider, this.model.modelId));
    }
    if (turn > 0 && rng.chance(0.03)) {
      this.add("thinking_level_change", 150, false, () => this.sm.appendThinkingLevelChange(rng.pick(THINKING_LEVELS)));
    }
    this.clock.advance(rng, 15_000, rng.chance(0.1) ? 600 * MINUTE : 8 * MINUTE);
    const promptId = this.addMessage(userMessage(rng, this.clock.now()));

    const rounds = rng.skewedInt(0, 9, 1.4);
    for (let round = 0; round < rounds; round++) {
      if (rng.chance(0.01)) {
        this.addAssistant([], "aborted");
        return;
      }
      const calls = Array.from({ length: rng.skewedInt(1, 3, 2) }, () => toolCall(rng));
      this.addAssistant(calls, "toolUse");
      for (const call of calls) {
        this.clock.advance(rng, 50, 20_000);
        this.addMessage(toolResult(rng, call, this.clock.now()));
      }
    }
    this.addAssistant([], rng.chance(0.02) ? "error" : "stop");

    if (turn === 0 || rng.chance(0.004)) {
      const name = `${identifier(rng)} ${rng.pick(["refactor", "bug hunt", "perf pass", "spec work"])}`;
      this.add("session_info", 160, false, () => this.sm.appendSessionInfo(name));
    }
    if (rng.chance(0.05)) {
      this.clock.advance(rng, 5_000, 3 * MINUTE);
      this.addMessage(bashExecution(rng, this.clock.now()));
    }
    if (rng.chance(0.03)) {
      const label = rng.chance(0.85) ? rng.pick(["checkpoint", "tests green", "before refactor", "good state"]) : undefined;
      this.add("label", 170, false, () => this.sm.appendLabelChange(promptId, label));
    }
    if (rng.chance(0.01)) {
      this.add("custom", 220, false, () => this.sm.appendCustomEntry("todo-list", { items: [filePath(rng), filePath(rng)] }));
    }
    if (rng.chance(0.005)) {
      const content = `Reminder from the ${identifier(rng)} extension: ${filePath(rng)} changed on disk.`;
      this.add("custom_message", 120 + content.length, false, () => this.sm.appendCustomMessageEntry("file-watch", content, true));
    }
    this.compactIfNeeded();
    this.maybeLeaveBranch();
  }

  private addMessage(message: StoredMessage): string {
    return this.add("message", JSON.stringify(message).length + 110, message.role === "user", () => this.sm.appendMessage(message));
  }

  private addAssistant(calls: ToolCall[], stopReason: "toolUse" | "stop" | "error" | "aborted"): string {
    this.clock.advance(this.rng, 2_000, 90_000);
    return this.addMessage(assistantMessage(this.rng, {
      model: this.model,
      contextTokens: Math.ceil(this.contextBytes() / 4) + 4_000,
      timestamp: this.clock.now(),
      toolCalls: calls,
      stopReason,
    }));
  }

  /** Appends through `append` (which must make a child of the current leaf) and books the new entry. */
  private add(type: string, bytes: number, isUserMessage: boolean, append: () => string, extra?: Partial<EntryFacts>): string {
    if (this.count >= this.limit) {
      throw new SessionFull();
    }
    if (type !== "message") {
      this.clock.advance(this.rng, 100, 5_000);
    }
    const parentId = this.sm.getLeafId();
    const id = append();
    this.count++;
    this.byType[type] = (this.byType[type] ?? 0) + 1;
    this.facts.set(id, { parentId, bytes, line: this.count + 1, isUserMessage, ...extra });
    if (parentId !== null) {
      this.withChildren.add(parentId);
    }
    this.path.push(id);
    if (extra?.firstKeptEntryId !== undefined) {
      const kept = this.path.lastIndexOf(extra.firstKeptEntryId);
      this.contextStart = kept >= 0 ? kept : this.path.length - 1;
    }
    return id;
  }

  private contextBytes(): number {
    let total = 0;
    for (let i = this.contextStart; i < this.path.length; i++) {
      total += this.facts.get(this.path[i])?.bytes ?? 0;
    }
    return total;
  }

  private nextCompactionThreshold(): number {
    return this.rng.int(150_000, 300_000);
  }

  /** Compacts like an agent would: keep the last few turns, summarize the rest. */
  private compactIfNeeded(): void {
    const contextBytes = this.contextBytes();
    if (contextBytes < this.compactAtBytes) {
      return;
    }
    const prompts = this.userPromptIndexes(this.contextStart + 1);
    if (prompts.length < 3) {
      return;
    }
    const keptIndex = prompts[prompts.length - this.rng.int(2, Math.min(4, prompts.length - 1))];
    const firstKeptEntryId = this.path[keptIndex];
    const files = Array.from({ length: this.rng.int(3, 12) }, () => filePath(this.rng));
    const summary = structuredSummary(this.rng, this.rng.int(1_500, 4_000), files);
    const details = { readFiles: files.slice(0, Math.ceil(files.length / 2)), modifiedFiles: files.slice(Math.ceil(files.length / 2)) };
    this.add("compaction", summary.length + 400, false,
      () => this.sm.appendCompaction(summary, firstKeptEntryId, Math.ceil(contextBytes / 4), details),
      { firstKeptEntryId });
    this.compactAtBytes = this.nextCompactionThreshold();
  }

  private userPromptIndexes(from: number): number[] {
    const indexes: number[] = [];
    for (let i = Math.max(0, from); i < this.path.length; i++) {
      if (this.facts.get(this.path[i])?.isUserMessage) {
        indexes.push(i);
      }
    }
    return indexes;
  }

  /** Sometimes the user goes back: re-edits an earlier prompt, optionally summarizing what is left behind, or resumes an old branch. */
  private maybeLeaveBranch(): void {
    const rng = this.rng;
    if (!rng.chance(0.05)) {
      return;
    }
    const leaf = this.sm.getLeafId();
    if (this.abandonedTips.length > 0 && rng.chance(0.12)) {
      const tip = rng.pick(this.abandonedTips.slice(-20));
      if (leaf !== null && !this.withChildren.has(tip)) {
        this.abandonedTips.push(leaf);
        this.sm.branch(tip);
        this.rebuildPath(tip);
        this.returnsToOldBranch++;
        return;
      }
    }
    const prompts = this.userPromptIndexes(Math.max(this.contextStart, this.path.length - 80));
    if (prompts.length < 2 || leaf === null) {
      return;
    }
    const promptIndex = prompts[prompts.length - rng.int(1, Math.min(6, prompts.length - 1))];
    const position = this.path[promptIndex - 1];
    this.abandonedTips.push(leaf);
    this.branchesLeft++;
    if (rng.chance(0.4)) {
      const summary = structuredSummary(rng, rng.int(600, 2_000), [filePath(rng)]);
      this.sm.branch(position);
      this.rebuildPath(position);
      this.branchSummaries++;
      this.add("branch_summary", summary.length + 200, false, () => this.sm.branchWithSummary(position, summary));
    } else {
      this.sm.branch(position);
      this.rebuildPath(position);
    }
  }

  /** Recomputes the path and the context start for a new leaf. */
  private rebuildPath(leafId: string): void {
    const path: string[] = [];
    for (let id: string | null = leafId; id !== null; id = this.facts.get(id)?.parentId ?? null) {
      path.push(id);
    }
    path.reverse();
    this.path = path;
    this.contextStart = 0;
    for (let i = path.length - 1; i >= 0; i--) {
      const kept = this.facts.get(path[i])?.firstKeptEntryId;
      if (kept !== undefined) {
        const keptIndex = path.lastIndexOf(kept, i);
        this.contextStart = keptIndex >= 0 ? keptIndex : i;
        break;
      }
    }
  }

  /** Abandoned branch tips in the second half of the file, spread out, deepest last. */
  private pickCheckoutTargets(wanted: number): CheckoutTarget[] {
    const onFinalPath = new Set(this.path);
    const tips = [...new Set(this.abandonedTips)]
      .filter((id) => !this.withChildren.has(id) && !onFinalPath.has(id))
      .map((id) => ({ id, line: this.facts.get(id)?.line ?? 0 }))
      .filter((tip) => tip.line > this.count / 2)
      .sort((a, b) => a.line - b.line);
    const chosen = tips.length <= wanted
      ? tips
      : Array.from({ length: wanted }, (_, i) => tips[Math.floor(((i + 1) * tips.length) / wanted) - 1]);
    return chosen.map((tip) => ({ ...tip, depth: this.depthOf(tip.id) }));
  }

  private depthOf(id: string): number {
    let depth = 0;
    for (let cur: string | null = id; cur !== null; cur = this.facts.get(cur)?.parentId ?? null) {
      depth++;
    }
    return depth;
  }
}
