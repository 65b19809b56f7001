/**
 * What a session's replies used and cost, summed over the whole file or along one path.
 *
 * Every assistant message records its `usage` (tokens in, out, read from and written to the
 * cache, and the cost pi-ai worked out for them). The ledger reads each assistant body once per
 * index, keeps a few numbers per reply in columns, and answers every later question from them:
 * a status bar that updates after each reply, or `/session` on a 1,000,000-entry file, costs a
 * walk over numbers, not a read of the file. Entries appended later are taken in as they come.
 *
 * A reply's cost is the one recorded in the file when there is one; otherwise it is computed from
 * the prices of the recorded model (a {@link CostLookup}, pi-ai's catalog in Arbor), and a reply
 * whose model has no prices counts its tokens only. Costs are never estimated.
 *
 * Pure core: no `vscode`, no Node.
 */
import type { SessionEntry, Usage } from "./types";
import type { Steps } from "../util/steps";

/** Tokens, summed as Pi sums them (the total is the four counts added, not `totalTokens`). */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Messages by kind, as Pi's `/session` counts them (tool calls are the blocks of assistant messages). */
export interface MessageCounts {
  user: number;
  assistant: number;
  toolCalls: number;
  toolResults: number;
  bash: number;
  /** Messages an extension put into the conversation (`custom_message` entries). */
  custom: number;
  branchSummaries: number;
  compactions: number;
  /** Every message above except the tool calls (which live inside assistant messages). */
  total: number;
}

export interface UsageTotals {
  messages: MessageCounts;
  tokens: TokenCounts;
  /** Dollars: recorded costs, plus costs computed from prices for replies that recorded none. */
  cost: number;
  /** Replies that used tokens and recorded no cost, whose model has no prices: their cost is unknown. */
  unpriced: number;
}

/** What `/session` reports (see session-stats.ts): kept here, apart from the session reader, for the webview. */
export interface SessionStats {
  name: string | null;
  /** null for a session not saved yet. */
  file: string | null;
  id: string;
  path: UsageTotals;
  wholeFile: UsageTotals;
}

/**
 * The cost in dollars of `tokens` at the prices of a model, or undefined when the model is not
 * known or has no prices (a local model). Arbor's answers through pi-ai's `calculateCost`.
 */
export type CostLookup = (provider: string, model: string, tokens: TokenCounts) => number | undefined;

/** The entries of a session as the ledger reads them: the session index (EntryStore) fits. */
export interface UsageSource {
  readonly size: number;
  typeAt(i: number): string;
  roleAt(i: number): string | undefined;
  indexOf(id: string): number;
  /** Visits the entries at `positions` with their bodies (read from the file in sequential blocks). */
  forEachEntry(positions: ArrayLike<number>, visit: (i: number, entry: SessionEntry) => void): void;
}

/** Assistant bodies read between two pauses of {@link UsageLedger.catchUpSteps}. */
const BODIES_PER_STEP = 4096;

function count(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0;
}

/** The four token counts of a usage as recorded (a missing or odd field counts 0). */
export function tokensOf(usage: Partial<Usage> | undefined): TokenCounts {
  const input = count(usage?.input);
  const output = count(usage?.output);
  const cacheRead = count(usage?.cacheRead);
  const cacheWrite = count(usage?.cacheWrite);
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** The cost recorded with a usage, or 0 when none was (pi-ai records zeros for a model it has no prices for). */
export function recordedCost(usage: Partial<Usage> | undefined): number {
  return count(usage?.cost?.total);
}

/**
 * The cost of one reply: the recorded one, else the one its model's prices give, else undefined
 * (tokens were used and nothing says what they cost). A reply that used nothing costs 0.
 */
export function replyCost(usage: Partial<Usage> | undefined, provider: string, model: string, lookup?: CostLookup): number | undefined {
  const recorded = recordedCost(usage);
  if (recorded > 0) return recorded;
  const tokens = tokensOf(usage);
  if (tokens.total === 0) return 0;
  const computed = lookup?.(provider, model, tokens);
  return computed !== undefined && Number.isFinite(computed) && computed > 0 ? computed : undefined;
}

export function emptyTotals(): UsageTotals {
  return {
    messages: { user: 0, assistant: 0, toolCalls: 0, toolResults: 0, bash: 0, custom: 0, branchSummaries: 0, compactions: 0, total: 0 },
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
    unpriced: 0,
  };
}

/** Which count an entry adds to, from its type and role alone (no body). */
function kindOf(type: string, role: string | undefined): keyof MessageCounts | undefined {
  if (type === "message") {
    switch (role) {
      case "user":
        return "user";
      case "assistant":
        return "assistant";
      case "toolResult":
        return "toolResults";
      case "bashExecution":
        return "bash";
      case "custom":
        return "custom";
      default:
        return undefined;
    }
  }
  if (type === "custom_message") return "custom";
  if (type === "branch_summary") return "branchSummaries";
  if (type === "compaction") return "compactions";
  return undefined;
}

function copyTotals(t: UsageTotals): UsageTotals {
  return { messages: { ...t.messages }, tokens: { ...t.tokens }, cost: t.cost, unpriced: t.unpriced };
}

function startsWith(ids: readonly string[], prefix: readonly string[]): boolean {
  for (let k = 0; k < prefix.length; k++) if (ids[k] !== prefix[k]) return false;
  return true;
}

/** The replies that recorded no cost, by model (their tokens summed): priced when totals are asked for. */
type Unrecorded = Map<number, { tokens: TokenCounts; replies: number }>;

function addTokens(to: TokenCounts, input: number, output: number, cacheRead: number, cacheWrite: number): void {
  to.input += input;
  to.output += output;
  to.cacheRead += cacheRead;
  to.cacheWrite += cacheWrite;
  to.total += input + output + cacheRead + cacheWrite;
}

/**
 * The usage of one session index, kept in columns by reply. Made by `SessionReader.getUsageLedger()`
 * (one per index); {@link catchUp} or {@link catchUpSteps} takes in entries appended since.
 */
export class UsageLedger {
  /** Entries taken in so far (positions `[0, scanned)`). */
  private scanned = 0;
  /** Reply slot + 1 by entry position (0: not a reply). */
  private slotOf = new Int32Array(0);
  private replies = 0;
  private input = new Float64Array(0);
  private output = new Float64Array(0);
  private cacheRead = new Float64Array(0);
  private cacheWrite = new Float64Array(0);
  private cost = new Float64Array(0);
  private toolCalls = new Uint32Array(0);
  private model = new Int32Array(0);
  private readonly models: { provider: string; model: string }[] = [];
  private readonly modelKeys = new Map<string, number>();
  /** The whole file's counts and recorded sums, kept as entries come. */
  private file = emptyTotals();
  private fileUnrecorded: Unrecorded = new Map();
  /** The last path counted (see totalsOf). */
  private pathMemo: { ids: readonly string[]; totals: UsageTotals; unrecorded: Unrecorded } | undefined;

  constructor(private readonly source: UsageSource) {}

  /** Whether entries were appended since the last catch-up. */
  get behind(): boolean {
    return this.scanned < this.source.size;
  }

  /** Entries not taken in yet. */
  get pending(): number {
    return this.source.size - this.scanned;
  }

  /** Takes in every entry appended since the last catch-up, now. */
  catchUp(): void {
    const steps = this.catchUpSteps();
    while (!steps.next().done);
  }

  /**
   * The same as {@link catchUp}, pausing after each block of bodies (for runStepsInSlices: the
   * first catch-up of a huge file reads every assistant body once).
   */
  *catchUpSteps(): Steps<void> {
    while (this.scanned < this.source.size) {
      const end = this.source.size;
      const wanted: number[] = [];
      let i = this.scanned;
      for (; i < end && wanted.length < BODIES_PER_STEP; i++) {
        const kind = kindOf(this.source.typeAt(i), this.source.roleAt(i));
        if (kind === undefined) continue;
        this.file.messages[kind]++;
        this.file.messages.total++;
        if (kind === "assistant") wanted.push(i);
      }
      this.grow(i, this.replies + wanted.length);
      try {
        this.source.forEachEntry(wanted, (at, entry) => this.takeReply(at, entry));
      } catch (error) {
        // A body that cannot be read (the file changed under the index): start again next time
        // rather than keep counts that took in part of this block.
        this.forget();
        throw error;
      }
      this.scanned = i;
      if (this.scanned < this.source.size) yield;
    }
  }

  private forget(): void {
    this.scanned = 0;
    this.replies = 0;
    this.slotOf.fill(0);
    this.file = emptyTotals();
    this.fileUnrecorded = new Map();
    this.pathMemo = undefined;
  }

  private takeReply(at: number, entry: SessionEntry): void {
    if (entry.type !== "message" || entry.message.role !== "assistant") return;
    const m = entry.message;
    const slot = this.replies++;
    this.slotOf[at] = slot + 1;
    const t = tokensOf(m.usage);
    this.input[slot] = t.input;
    this.output[slot] = t.output;
    this.cacheRead[slot] = t.cacheRead;
    this.cacheWrite[slot] = t.cacheWrite;
    this.cost[slot] = recordedCost(m.usage);
    this.toolCalls[slot] = Array.isArray(m.content) ? m.content.reduce((n, b) => n + (b?.type === "toolCall" ? 1 : 0), 0) : 0;
    this.model[slot] = this.modelKey(typeof m.provider === "string" ? m.provider : "", typeof m.model === "string" ? m.model : "");
    this.addReply(this.file, this.fileUnrecorded, slot, false);
  }

  private modelKey(provider: string, model: string): number {
    const key = `${provider}\u0000${model}`;
    let k = this.modelKeys.get(key);
    if (k === undefined) {
      k = this.models.length;
      this.models.push({ provider, model });
      this.modelKeys.set(key, k);
    }
    return k;
  }

  /** Columns long enough for `positions` entries and `replies` replies. */
  private grow(positions: number, replies: number): void {
    if (positions > this.slotOf.length) {
      const next = new Int32Array(Math.max(positions, this.slotOf.length * 2, 64));
      next.set(this.slotOf);
      this.slotOf = next;
    }
    if (replies <= this.input.length) return;
    const size = Math.max(replies, this.input.length * 2, 64);
    const wider = <T extends Float64Array | Uint32Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(a);
      return next;
    };
    this.input = wider(this.input, (n) => new Float64Array(n));
    this.output = wider(this.output, (n) => new Float64Array(n));
    this.cacheRead = wider(this.cacheRead, (n) => new Float64Array(n));
    this.cacheWrite = wider(this.cacheWrite, (n) => new Float64Array(n));
    this.cost = wider(this.cost, (n) => new Float64Array(n));
    this.toolCalls = wider(this.toolCalls, (n) => new Uint32Array(n));
    this.model = wider(this.model, (n) => new Int32Array(n));
  }

  /** Adds reply `slot` to `totals`; its tokens go to `unrecorded` when it recorded no cost. */
  private addReply(totals: UsageTotals, unrecorded: Unrecorded, slot: number, countMessage: boolean): void {
    const input = this.input[slot]!;
    const output = this.output[slot]!;
    const cacheRead = this.cacheRead[slot]!;
    const cacheWrite = this.cacheWrite[slot]!;
    if (countMessage) {
      totals.messages.assistant++;
      totals.messages.total++;
    }
    totals.messages.toolCalls += this.toolCalls[slot]!;
    addTokens(totals.tokens, input, output, cacheRead, cacheWrite);
    const cost = this.cost[slot]!;
    if (cost > 0) totals.cost += cost;
    else if (input + output + cacheRead + cacheWrite > 0) {
      const key = this.model[slot]!;
      let group = unrecorded.get(key);
      if (!group) unrecorded.set(key, (group = { tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, replies: 0 }));
      addTokens(group.tokens, input, output, cacheRead, cacheWrite);
      group.replies++;
      // Counted here; a model found to have prices takes its replies off again in priced().
      totals.unpriced++;
    }
  }

  /**
   * `totals` with the replies that recorded no cost priced by `lookup` (a new object). Prices are
   * per token, so pricing a model's summed tokens once gives the sum of its replies' costs.
   */
  private priced(totals: UsageTotals, unrecorded: Unrecorded, lookup: CostLookup | undefined): UsageTotals {
    const out = copyTotals(totals);
    if (!lookup) return out;
    for (const [key, group] of unrecorded) {
      const { provider, model } = this.models[key]!;
      const cost = lookup(provider, model, { ...group.tokens });
      if (cost === undefined || !Number.isFinite(cost) || cost <= 0) continue;
      out.cost += cost;
      out.unpriced -= group.replies;
    }
    return out;
  }

  /** Every entry of the file (what Pi's footer sums). Catches up first. */
  fileTotals(lookup?: CostLookup): UsageTotals {
    this.catchUp();
    return this.priced(this.file, this.fileUnrecorded, lookup);
  }

  /**
   * The entries with these ids (a path from `getPathIds`), each counted once. Catches up first.
   * The last path asked for is remembered: a path that extends it (a reply came) costs only its
   * new entries; any other is counted whole (on a 1,000,000-entry path, about 0.2 s).
   */
  totalsOf(ids: readonly string[], lookup?: CostLookup): UsageTotals {
    this.catchUp();
    const memo = this.pathMemo;
    let from = 0;
    let totals = emptyTotals();
    let unrecorded: Unrecorded = new Map();
    if (memo && memo.ids.length <= ids.length && startsWith(ids, memo.ids)) {
      from = memo.ids.length;
      totals = copyTotals(memo.totals);
      unrecorded = new Map([...memo.unrecorded].map(([k, g]) => [k, { tokens: { ...g.tokens }, replies: g.replies }]));
    }
    for (let k = from; k < ids.length; k++) {
      const i = this.source.indexOf(ids[k]!);
      if (i < 0) continue;
      const slot = this.slotOf[i]! - 1;
      if (slot >= 0) {
        this.addReply(totals, unrecorded, slot, true);
        continue;
      }
      const kind = kindOf(this.source.typeAt(i), this.source.roleAt(i));
      // An assistant entry whose body was not a reply (a torn line) still counts as a message.
      if (kind === undefined) continue;
      totals.messages[kind]++;
      totals.messages.total++;
    }
    this.pathMemo = { ids: ids.slice(), totals: copyTotals(totals), unrecorded };
    return this.priced(totals, unrecorded, lookup);
  }
}

/**
 * A reply with the cost its line shows: the recorded one, or (when none was recorded) the one the
 * prices give, as a copy; the reply itself when there is nothing to add.
 */
export function pricedReply<T extends { provider: string; model: string; usage?: Usage }>(reply: T, lookup: CostLookup | undefined): T {
  const usage = reply.usage;
  if (!usage || !lookup || recordedCost(usage) > 0) return reply;
  const cost = replyCost(usage, reply.provider, reply.model, lookup);
  if (cost === undefined || cost === 0) return reply;
  return { ...reply, usage: { ...usage, cost: { ...(usage.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }), total: cost } } };
}
