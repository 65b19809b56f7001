/** The bench's report: a table with absolute numbers, ours/ref ratios and the floor; targets marked PASS or MISS. */
import type { ListingBenchResult } from "./bench-list";
import type { EngineSessionResult, SessionBenchResult } from "./bench-session";

/** The targets, as ratios ours/reference, checked on the 100,000-entry session (or the largest one run). */
export const TARGETS = {
  open: 0.5,
  memory: 0.5,
  checkoutContext: 0.2,
  listWarm: 0.2,
} as const;
export const TARGET_ENTRIES = 100_000;

export type TargetName = keyof typeof TARGETS;

export interface TargetVerdict {
  target: TargetName;
  limit: number;
  ratio: number;
  status: "PASS" | "MISS" | "N/A";
  entries: number;
}

const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function ms(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value < 10 ? `${value.toFixed(2)} ms` : value < 100 ? `${value.toFixed(1)} ms` : `${NUMBER.format(value)} ms`;
}

function mb(value: number): string {
  return Number.isFinite(value) ? `${NUMBER.format(value)} MB` : "-";
}

function ratioText(ours: number, ref: number): string {
  const r = ours / ref;
  return Number.isFinite(r) ? `${r < 0.1 ? r.toFixed(3) : r.toFixed(2)}x` : "-";
}

function verdict(target: TargetName, ours: number, ref: number, entries: number): TargetVerdict {
  const ratio = ours / ref;
  const limit = TARGETS[target];
  return { target, limit, ratio, entries, status: !Number.isFinite(ratio) ? "N/A" : ratio <= limit ? "PASS" : "MISS" };
}

/** Verdicts on the session with TARGET_ENTRIES entries, else the largest one measured. */
export function judgeTargets(sessions: readonly SessionBenchResult[], listing: ListingBenchResult | undefined): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const judged = sessions.find((s) => s.entries === TARGET_ENTRIES) ?? [...sessions].sort((a, b) => b.entries - a.entries)[0];
  if (judged) {
    verdicts.push(verdict("open", judged.ours.openMs, judged.ref.openMs, judged.entries));
    verdicts.push(verdict("memory", judged.ours.maxRssMb, judged.ref.maxRssMb, judged.entries));
    verdicts.push(verdict("checkoutContext", judged.ours.checkoutMs, judged.ref.checkoutMs, judged.entries));
  }
  if (listing) {
    verdicts.push(verdict("listWarm", listing.oursWarm.ms, listing.ref.ms, 0));
  }
  return verdicts;
}

class Table {
  private readonly rows: string[][] = [];
  constructor(private readonly header: string[]) {}

  add(row: string[]): void {
    this.rows.push(row);
  }

  render(): string {
    const all = [this.header, ...this.rows];
    const widths = this.header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
    const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ").trimEnd();
    return [line(this.header), widths.map((w) => "-".repeat(w)).join("  "), ...this.rows.map(line)].join("\n");
  }
}

const HEADER = ["metric", "ours", "ref", "ours/ref", "floor", "target"];

function targetCell(verdicts: readonly TargetVerdict[], name: TargetName, entries: number): string {
  const v = verdicts.find((x) => x.target === name && x.entries === entries);
  return v ? `<=${v.limit}x ${v.status}` : "";
}

function sessionSection(s: SessionBenchResult, verdicts: readonly TargetVerdict[]): string {
  const t = new Table(HEADER);
  const row = (label: string, pick: (e: EngineSessionResult) => number, fmt: (v: number) => string, floor = "", target = "") =>
    t.add([label, fmt(pick(s.ours)), fmt(pick(s.ref)), ratioText(pick(s.ours), pick(s.ref)), floor, target]);
  row("open until the tree is ready", (e) => e.openMs, ms, ms(s.floor.readParseMs), targetCell(verdicts, "open", s.entries));
  row("peak RSS after open", (e) => e.maxRssMb, mb, mb(s.floor.maxRssMb), targetCell(verdicts, "memory", s.entries));
  row("  RSS before open (runtime + code)", (e) => e.baselineRssMb, mb);
  row("  heap after open (after gc)", (e) => e.heapAfterOpenMb, mb, mb(s.floor.heapMb));
  row("  external after open (buffers)", (e) => e.externalAfterOpenMb, mb);
  row("context of the leaf (first)", (e) => e.leafContextMs, ms);
  row("context of the leaf (repeat)", (e) => e.leafContextRepeatMs, ms);
  row(`checkout + context (median of ${s.targets})`, (e) => e.checkoutMs, ms, "", targetCell(verdicts, "checkoutContext", s.entries));
  row("checkout + context (slowest target)", (e) => e.checkoutMaxMs, ms);
  row("checkout + context (revisit)", (e) => e.checkoutRepeatMs, ms);
  row("append 1,000 messages", (e) => e.appendMs, ms);
  const runs = Math.max(s.ours.openRunsMs.length, s.ref.openRunsMs.length);
  const title = `${NUMBER.format(s.entries)} entries, ${(s.bytes / 1e6).toFixed(1)} MB: medians of ${runs} run${runs === 1 ? "" : "s"}, each in its own process`;
  const notes: string[] = [];
  for (const [name, e] of [["ours", s.ours], ["ref", s.ref]] as const) {
    if (e.error) notes.push(`${name}: ${e.available ? "partly failed" : "not measured"}: ${e.error.split("\n")[0]}`);
  }
  if (s.agreement) {
    const a = s.agreement;
    notes.push(`same results: tree ${a.tree ? "yes" : "NO"}, leaf context ${a.leafContext ? "yes" : "NO"}, ` +
      `contexts after checkout ${a.checkoutContexts.same}/${a.checkoutContexts.total}`);
    notes.push(...a.notes.slice(0, 5).map((n) => `  ${n}`));
  }
  return `== ${title}\n${t.render()}${notes.length ? `\n${notes.join("\n")}` : ""}`;
}

function listingSection(l: ListingBenchResult, verdicts: readonly TargetVerdict[]): string {
  const t = new Table(HEADER);
  t.add(["list, warm (index reused)", ms(l.oursWarm.ms), ms(l.ref.ms), ratioText(l.oursWarm.ms, l.ref.ms), "", targetCell(verdicts, "listWarm", 0)]);
  t.add(["list, cold (no index)", ms(l.oursCold.ms), ms(l.ref.ms), ratioText(l.oursCold.ms, l.ref.ms), "", ""]);
  const notes: string[] = [];
  for (const [name, s] of [["ours cold", l.oursCold], ["ours warm", l.oursWarm], ["ref", l.ref]] as const) {
    if (s.error) notes.push(`${name}: not measured: ${s.error.split("\n")[0]}`);
  }
  if (l.agree !== undefined) {
    notes.push(`same listing (ids, names, counts, first messages, modified, order): ${l.agree ? "yes" : "NO"}`);
  }
  const title = `listing ${l.sessions} sessions (${NUMBER.format(l.entries)} entries, ${(l.bytes / 1e6).toFixed(1)} MB): ` +
    `medians of ${l.ref.runsMs.length} run${l.ref.runsMs.length === 1 ? "" : "s"}, each in a fresh process`;
  return `== ${title}\n${t.render()}${notes.length ? `\n${notes.join("\n")}` : ""}`;
}

export function renderReport(sessions: readonly SessionBenchResult[], listing: ListingBenchResult | undefined, verdicts: readonly TargetVerdict[]): string {
  const parts = sessions.map((s) => sessionSection(s, verdicts));
  if (listing) parts.push(listingSection(listing, verdicts));
  const judged = verdicts.find((v) => v.entries > 0)?.entries;
  const summary = verdicts.map((v) => `${v.target} ${Number.isFinite(v.ratio) ? `${v.ratio.toFixed(2)}x` : "-"} (<= ${v.limit}x) ${v.status}`).join(", ");
  parts.push(`targets${judged !== undefined && judged !== TARGET_ENTRIES ? ` (judged at ${NUMBER.format(judged)} entries, not ${NUMBER.format(TARGET_ENTRIES)})` : ""}: ${summary}`);
  return parts.join("\n\n");
}
