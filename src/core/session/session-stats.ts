/**
 * What `/session` reports, as Pi's Session Info does (file, id, messages by kind, tokens, cost),
 * summed along the current path and over the whole file: Arbor keeps the tree, so both. Made
 * from the session's usage ledger (each reply's body read once); the first count of a huge file
 * runs in slices. Pure core: no `vscode`.
 */
import type { SessionReader } from "./session-reader";
import type { CostLookup, SessionStats } from "./usage-totals";
import { runStepsInSlices } from "../util/steps";

export type { SessionStats } from "./usage-totals";

/** The stats of a session now (its ledger caught up first, in slices). */
export async function sessionStatsOf(sm: SessionReader, prices: CostLookup | undefined): Promise<SessionStats> {
  const ledger = sm.getUsageLedger();
  await runStepsInSlices(ledger.catchUpSteps());
  return {
    name: sm.getSessionName() ?? null,
    file: sm.getSessionFile() ?? null,
    id: sm.getSessionId(),
    path: ledger.totalsOf(sm.getPathIds(), prices),
    wholeFile: ledger.fileTotals(prices),
  };
}
