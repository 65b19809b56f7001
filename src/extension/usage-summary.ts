/**
 * The session's usage as the status bar shows it: the whole file's total in Pi's footer style,
 * and a tooltip with the breakdown for the file and for the current path. A huge file's first
 * count (every reply's body read once) runs in slices, so that opening it never holds the
 * extension host; the caller is told when it is done. No `vscode` here.
 */
import { pricesNow } from "../core/models/model-prices";
import type { SessionManager } from "../core/session/session-manager";
import { usageBreakdown, usageLine } from "../core/session/usage-format";
import type { UsageLedger, UsageTotals } from "../core/session/usage-totals";
import { runStepsInSlices } from "../core/util/steps";

/** Entries counted at once; a longer backlog is counted in slices. */
const COUNT_AT_ONCE = 20_000;

export interface SessionUsage {
  file: UsageTotals;
  path: UsageTotals;
  /** The compact total ("↑12k ↓3.4k R40k $0.123"), or undefined when no reply used anything. */
  fileLine: string | undefined;
  tooltip: string;
}

const counting = new WeakSet<UsageLedger>();

function describe(title: string, totals: UsageTotals): string {
  return `${title}\n${usageBreakdown(totals.tokens, totals.cost, totals.unpriced)}`;
}

/**
 * The totals of `sm` now; undefined when the ledger has a long backlog, which is then counted in
 * slices and `whenCounted` called at the end (or on failure: a file changed under its index).
 */
export function sessionUsage(sm: SessionManager, whenCounted: () => void): SessionUsage | undefined {
  let ledger: UsageLedger;
  try {
    ledger = sm.getUsageLedger();
    if (ledger.pending > COUNT_AT_ONCE) {
      if (!counting.has(ledger)) {
        counting.add(ledger);
        void runStepsInSlices(ledger.catchUpSteps())
          .catch(() => undefined)
          .finally(() => {
            counting.delete(ledger);
            whenCounted();
          });
      }
      return undefined;
    }
    if (counting.has(ledger)) return undefined;
    const prices = pricesNow();
    const file = ledger.fileTotals(prices);
    const path = ledger.totalsOf(sm.getPathIds(), prices);
    const fileLine = usageLine(file.tokens, file.cost);
    const tooltip = [describe("Used by this session (whole file):", file), describe("Along the current path:", path)].join("\n\n");
    return { file, path, fileLine, tooltip };
  } catch {
    // A body that cannot be read: the rest of the status bar still shows.
    return undefined;
  }
}
