/**
 * How usage reads on screen, as compact as Pi's footer: `↑3.2k ↓154 R6.1k W2.9k $0.023`. Shared by
 * the chat's line under each reply, the status bar and `/session`. Pure: no Node, no DOM.
 */
import type { TokenCounts } from "./usage-totals";

/** A token count in Pi's footer style: 950, 3.2k, 48k, 1.2M, 12M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  return `${Math.round(n / 1_000_000)}M`;
}

/** Dollars: three decimals as Pi's footer has them, four below a cent (one reply often costs less). */
export function formatCost(dollars: number): string {
  return `$${dollars.toFixed(dollars > 0 && dollars < 0.01 ? 4 : 3)}`;
}

/**
 * The compact line: input, output, cache read and write (each only when not 0), then the cost
 * when it is known; undefined when nothing was used.
 */
export function usageLine(tokens: TokenCounts, cost: number | undefined): string | undefined {
  const parts: string[] = [];
  if (tokens.input) parts.push(`↑${formatTokens(tokens.input)}`);
  if (tokens.output) parts.push(`↓${formatTokens(tokens.output)}`);
  if (tokens.cacheRead) parts.push(`R${formatTokens(tokens.cacheRead)}`);
  if (tokens.cacheWrite) parts.push(`W${formatTokens(tokens.cacheWrite)}`);
  if (parts.length === 0) return undefined;
  if (cost !== undefined && cost > 0) parts.push(formatCost(cost));
  return parts.join(" ");
}

/** The breakdown for a tooltip: each count in full, and the cost (or why there is none). */
export function usageBreakdown(tokens: TokenCounts, cost: number | undefined, unpriced = 0): string {
  const n = (x: number): string => Math.round(x).toLocaleString("en-US");
  const lines = [
    `Input: ${n(tokens.input)} tokens`,
    `Output: ${n(tokens.output)} tokens`,
    `Cache read: ${n(tokens.cacheRead)} tokens`,
    `Cache write: ${n(tokens.cacheWrite)} tokens`,
    `Total: ${n(tokens.total)} tokens`,
  ];
  if (cost !== undefined && cost > 0) lines.push(`Cost: $${cost.toFixed(4)}${unpriced > 0 ? ` (and ${unpriced} ${unpriced === 1 ? "reply" : "replies"} whose model has no prices)` : ""}`);
  else if (tokens.total > 0) lines.push("Cost: unknown (the model has no prices)");
  return lines.join("\n");
}
