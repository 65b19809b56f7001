/** Small measuring helpers shared by the bench's child processes and its report. */
import { createHash } from "node:crypto";
import type { MemorySnapshot } from "./bench-protocol";

const MB = 1024 * 1024;

export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs `work` and returns its result with the elapsed milliseconds. */
export async function timed<T>(work: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

export function timedSync<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

/** Collects garbage if the process runs with --expose-gc (the children always do). */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    throw new Error("The bench needs node --expose-gc (run it through `npm run bench`)");
  }
  gc();
  gc();
}

/** Peak RSS so far and the heap retained after a full collection. */
export function snapshotMemory(): MemorySnapshot {
  collectGarbage();
  const usage = process.memoryUsage();
  return {
    // resourceUsage().maxRSS is in kilobytes.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    heapMb: usage.heapUsed / MB,
    externalMb: usage.external / MB,
  };
}

export function digestOf(value: unknown): string {
  return createHash("sha1").update(typeof value === "string" ? value : JSON.stringify(value)).digest("hex").slice(0, 16);
}
