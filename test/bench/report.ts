/** The bench's report: tables with absolute numbers, ours/ref ratios and the floor; targets marked PASS or MISSED. */
import type { CliBenchResult, CliSeries } from "./bench-cli";
import type { ListingBenchResult } from "./bench-list";
import type { EngineSessionResult, SessionBenchResult } from "./bench-session";
import { FIRST_SCREEN_ROWS } from "./implementations";

/** Ratio targets (ours / reference), judged on the 100,000-entry session (or the largest one measured). */
export const TARGETS = {
  open: 0.25,
  reopen: 0.05,
  memory: 0.5,
  checkoutContext: 0.2,
  append: 1.0,
  listWarm: 0.2,
  cliMemory: 0.25,
} as const;
export const TARGET_ENTRIES = 100_000;
/** The largest case: absolute limits for `arbor context` and `arbor tree --json`, and growth from TARGET_ENTRIES. */
export const LARGE_ENTRIES = 1_000_000;
export const LARGE_LIMITS = { cliMs: 3000, cliMb: 600, growth: 10 } as const;

export type TargetName = keyof typeof TARGETS | "large-cli-time" | "large-cli-memory" | "growth";

export interface TargetVerdict {
  target: TargetName;
  /** What was judged (e.g. which command). */
  what: string;
  limit: number;
  /** A ratio, or for the large case an absolute number (ms, MB). */
  value: number;
  unit: "x" | "ms" | "MB";
  status: "PASS" | "MISSED" | "N/A";
  entries: number;
}

/** Where the machine stood while a part of the bench ran. */
export interface MachineLoad {
  cpus: number;
  before: number;
  after: number;
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

function verdict(target: TargetName, what: string, value: number, limit: number, entries: number, unit: TargetVerdict["unit"] = "x"): TargetVerdict {
  return { target, what, limit, value, unit, entries, status: !Number.isFinite(value) ? "N/A" : value <= limit ? "PASS" : "MISSED" };
}

/** The CLI series by command and phase. */
function cliSeries(c: CliBenchResult | undefined, label: string): CliSeries | undefined {
  return c?.ours.find((s) => s.label === label);
}

/** Verdicts: ratios on the session with TARGET_ENTRIES entries (else the largest one), absolute limits and growth on LARGE_ENTRIES. */
export function judgeTargets(sessions: readonly SessionBenchResult[], listing: ListingBenchResult | undefined, cli: readonly CliBenchResult[] = []): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const small = sessions.filter((s) => s.entries < LARGE_ENTRIES);
  const judged = small.find((s) => s.entries === TARGET_ENTRIES) ?? [...small].sort((a, b) => b.entries - a.entries)[0];
  if (judged) {
    const n = judged.entries;
    verdicts.push(verdict("open", `open until the tree can be drawn, first open (ours: tree index + ${FIRST_SCREEN_ROWS} rows' summaries; ref: its whole getTree())`, judged.ours.openMs / judged.ref.openMs, TARGETS.open, n));
    verdicts.push(verdict("reopen", `the same, reopen of an unchanged file (ours from its index)`, judged.oursReopen?.openMs / judged.ref.openMs, TARGETS.reopen, n));
    verdicts.push(verdict("memory", "peak RSS of a process that opens, builds contexts and checks out", judged.ours.maxRssMb / judged.ref.maxRssMb, TARGETS.memory, n));
    verdicts.push(verdict("checkoutContext", "checkout + context", judged.ours.checkoutMs / judged.ref.checkoutMs, TARGETS.checkoutContext, n));
    verdicts.push(verdict("append", "append 1,000 messages", judged.ours.appendMs / judged.ref.appendMs, TARGETS.append, n));
  }
  const cliJudged = cli.find((c) => c.entries === judged?.entries);
  if (cliJudged) {
    for (const s of cliJudged.ours) verdicts.push(verdict("cliMemory", `${s.label}: peak RSS`, s.maxRssMb / cliJudged.ref.maxRssMb, TARGETS.cliMemory, cliJudged.entries));
  }
  if (listing) {
    verdicts.push(verdict("listWarm", "list, index reused, vs the reference's method for the same fields", listing.oursWarm.ms / listing.refSameFields.ms, TARGETS.listWarm, 0));
  }
  const large = cli.find((c) => c.entries === LARGE_ENTRIES);
  if (large) {
    for (const label of ["arbor context", "arbor tree --json"]) {
      for (const phase of ["first, index built", "again, index reused"]) {
        const s = cliSeries(large, `${label} (${phase})`);
        verdicts.push(verdict("large-cli-time", `${label} (${phase})`, s?.wallMs ?? NaN, LARGE_LIMITS.cliMs, LARGE_ENTRIES, "ms"));
        verdicts.push(verdict("large-cli-memory", `${label} (${phase})`, s?.maxRssMb ?? NaN, LARGE_LIMITS.cliMb, LARGE_ENTRIES, "MB"));
      }
    }
  }
  // Growth: ten times the entries may cost at most ten times the time and the memory.
  const base = sessions.find((s) => s.entries === TARGET_ENTRIES);
  const big = sessions.find((s) => s.entries === LARGE_ENTRIES);
  if (base && big) {
    const factor = big.entries / base.entries;
    const growth = (what: string, a: number, b: number) => verdict("growth", `${what} (x${factor} entries)`, b / a, LARGE_LIMITS.growth * (factor / 10), LARGE_ENTRIES);
    verdicts.push(growth("open, first: time", base.ours.openMs, big.ours.openMs));
    verdicts.push(growth("open, first: peak RSS", base.ours.maxRssMb, big.ours.maxRssMb));
    verdicts.push(growth("reopen: time", base.oursReopen.openMs, big.oursReopen.openMs));
    verdicts.push(growth("reopen: peak RSS", base.oursReopen.maxRssMb, big.oursReopen.maxRssMb));
    const baseCli = cli.find((c) => c.entries === TARGET_ENTRIES);
    if (baseCli && large) {
      for (const label of ["arbor context (first, index built)", "arbor tree --json (first, index built)"]) {
        const a = cliSeries(baseCli, label);
        const b = cliSeries(large, label);
        verdicts.push(growth(`${label}: time`, a?.wallMs ?? NaN, b?.wallMs ?? NaN));
        verdicts.push(growth(`${label}: peak RSS`, a?.maxRssMb ?? NaN, b?.maxRssMb ?? NaN));
      }
    }
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
    const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ").trimEnd();
    return [line(this.header), widths.map((w) => "-".repeat(w)).join("  "), ...this.rows.map(line)].join("\n");
  }
}

function loadText(load: MachineLoad | undefined): string {
  return load ? `${load.cpus} cores, load ${load.before.toFixed(1)} -> ${load.after.toFixed(1)}` : "";
}

function sessionSection(s: SessionBenchResult, load: MachineLoad | undefined): string {
  const t = new Table(["metric", "ours", "ref", "ours/ref", "floor"]);
  const row = (label: string, pick: (e: EngineSessionResult) => number, fmt: (v: number) => string, floor = "", engine: EngineSessionResult = s.ours) =>
    t.add([label, fmt(pick(engine)), fmt(pick(s.ref)), ratioText(pick(engine), pick(s.ref)), floor]);
  // Not the same work: the reference's getTree() builds every node of the tree with its entry, Arbor's
  // open builds the tree index and the summaries of the first screen only (the rest as they scroll in).
  row(`open, tree drawable (ours: index + ${FIRST_SCREEN_ROWS} summaries; ref: whole getTree())`, (e) => e.openMs, ms, s.floor ? ms(s.floor.readParseMs) : "");
  row("  the same, reopen (ours from its index)", (e) => e.openMs, ms, "", s.oursReopen);
  t.add(["  ours: open + every entry's summary (like for like)", ms(s.ours.openMs + s.ours.allSummariesMs), ms(s.ref.openMs), ratioText(s.ours.openMs + s.ours.allSummariesMs, s.ref.openMs), ""]);
  row("peak RSS: open, contexts, checkouts (first)", (e) => e.maxRssMb, mb, s.floor ? mb(s.floor.maxRssMb) : "");
  row("peak RSS: open, contexts, checkouts (reopen)", (e) => e.maxRssMb, mb, "", s.oursReopen);
  row("  peak RSS right after open (first)", (e) => e.maxRssAfterOpenMb, mb);
  row("  heap after open (after gc)", (e) => e.heapAfterOpenMb, mb, s.floor ? mb(s.floor.heapMb) : "");
  t.add(["every entry's summary, after the open (ours only)", ms(s.ours.allSummariesMs), "", "", ""]);
  row("context of the leaf (first)", (e) => e.leafContextMs, ms);
  row("context of the leaf (repeat)", (e) => e.leafContextRepeatMs, ms);
  row(`checkout + context (median of ${s.targets})`, (e) => e.checkoutMs, ms);
  row("checkout + context (slowest target)", (e) => e.checkoutMaxMs, ms);
  row("append 1,000 messages", (e) => e.appendMs, ms);
  const runs = Math.max(s.ours.openRunsMs.length, s.ref.openRunsMs.length);
  const title = `${NUMBER.format(s.entries)} entries, ${(s.bytes / 1e6).toFixed(1)} MB: medians of ${runs} run${runs === 1 ? "" : "s"}, each in its own process (${loadText(load)})`;
  const notes: string[] = [];
  for (const [name, e] of [["ours", s.ours], ["ours reopen", s.oursReopen], ["ref", s.ref]] as const) {
    if (e.error) notes.push(`${name}: ${e.available ? "partly failed" : "not measured"}: ${e.error.split("\n")[0]}`);
  }
  const a = s.agreement;
  notes.push(`same results as ${a.against}: ${a.mismatches.length === 0 ? `yes, in all ${a.compared} runs of ours` : `NO (${a.mismatches.length} differences)`}`);
  notes.push(...a.mismatches.slice(0, 8).map((n) => `  ${n}`));
  return `== ${title}\n${t.render()}\n${notes.join("\n")}`;
}

function cliSection(c: CliBenchResult, load: MachineLoad | undefined): string {
  const t = new Table(["process", "wall", "peak RSS", "wall/ref", "RSS/ref"]);
  t.add([c.ref.label + (c.ref.available ? "" : " (cannot)"), ms(c.ref.wallMs), mb(c.ref.maxRssMb), "", ""]);
  for (const s of c.ours) t.add([s.label, ms(s.wallMs), mb(s.maxRssMb), ratioText(s.wallMs, c.ref.wallMs), ratioText(s.maxRssMb, c.ref.maxRssMb)]);
  const notes: string[] = [];
  if (!c.ref.available) notes.push(`the reference cannot open this file: ${c.ref.error ?? "?"}`);
  notes.push(`outputs checked against ${c.checkedAgainst}: ${c.mismatches.length === 0 ? "same in every run" : `NO (${c.mismatches.length} differences)`}`);
  notes.push(...c.mismatches.slice(0, 8).map((n) => `  ${n}`));
  return `== command line, ${NUMBER.format(c.entries)} entries (${(c.bytes / 1e6).toFixed(1)} MB), whole processes, medians (${loadText(load)})\n${t.render()}\n${notes.join("\n")}`;
}

function listingSection(l: ListingBenchResult, load: MachineLoad | undefined): string {
  const t = new Table(["metric", "ms", "vs ref list", "vs ref method, same fields"]);
  const both = (v: number) => [ms(v), ratioText(v, l.ref.ms), ratioText(v, l.refSameFields.ms)];
  t.add(["ref: SessionManager.list (also joins every message's text)", ms(l.ref.ms), "", ""]);
  t.add(["ref method, only the fields Arbor lists (bench code)", ms(l.refSameFields.ms), ratioText(l.refSameFields.ms, l.ref.ms), ""]);
  t.add(["ours: list, index reused", ...both(l.oursWarm.ms)]);
  t.add(["ours: list, no index yet", ...both(l.oursCold.ms)]);
  const notes: string[] = [];
  for (const [name, s] of [["ours cold", l.oursCold], ["ours warm", l.oursWarm], ["ref", l.ref], ["ref same fields", l.refSameFields]] as const) {
    if (s.error) notes.push(`${name}: not measured: ${s.error.split("\n")[0]}`);
  }
  if (l.agree !== undefined) notes.push(`same listing (ids, names, counts, first messages, modified, order) in every run: ${l.agree ? "yes" : "NO"}`);
  notes.push(...l.mismatches.slice(0, 8).map((n) => `  ${n}`));
  const title = `listing ${l.sessions} sessions (${NUMBER.format(l.entries)} entries, ${(l.bytes / 1e6).toFixed(1)} MB): ` +
    `medians of ${l.ref.runsMs.length} run${l.ref.runsMs.length === 1 ? "" : "s"}, each in a fresh process (${loadText(load)})`;
  return `== ${title}\n${t.render()}${notes.length ? `\n${notes.join("\n")}` : ""}`;
}

function verdictText(v: TargetVerdict): string {
  const value = !Number.isFinite(v.value) ? "-" : v.unit === "x" ? `${v.value < 0.1 ? v.value.toFixed(3) : v.value.toFixed(2)}x` : `${NUMBER.format(v.value)} ${v.unit}`;
  const limit = v.unit === "x" ? `${v.limit}x` : `${NUMBER.format(v.limit)} ${v.unit}`;
  return `  ${v.status.padEnd(6)} ${v.what}: ${value} (<= ${limit})`;
}

export interface ReportParts {
  sessions: readonly SessionBenchResult[];
  cli: readonly CliBenchResult[];
  listing: ListingBenchResult | undefined;
  verdicts: readonly TargetVerdict[];
  loads: Map<string, MachineLoad>;
}

export function renderReport(p: ReportParts): string {
  const parts = p.sessions.map((s) => sessionSection(s, p.loads.get(`session-${s.entries}`)));
  parts.push(...p.cli.map((c) => cliSection(c, p.loads.get(`cli-${c.entries}`))));
  if (p.listing) parts.push(listingSection(p.listing, p.loads.get("listing")));
  parts.push(`targets:\n${p.verdicts.map(verdictText).join("\n")}`);
  return parts.join("\n\n");
}

/** Every result that differed from the reference's (or, where it cannot run, from ours elsewhere). */
export function allMismatches(p: Pick<ReportParts, "sessions" | "cli" | "listing">): string[] {
  return [...p.sessions.flatMap((s) => s.agreement.mismatches), ...p.cli.flatMap((c) => c.mismatches), ...(p.listing?.mismatches ?? [])];
}
