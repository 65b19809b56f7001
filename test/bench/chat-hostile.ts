/**
 * Hostile messages for the chat benchmark: texts crafted against the markdown parser and the code
 * highlighter, each up to a given size, drawn by the real chat bundle as a recorded reply and as a
 * reply that streams in. What is measured is the longest main-thread task while the page draws it
 * (the browser's own long-task and long-animation-frame entries, from the delivery until the page
 * has been still for a while): the target is that none is over 50 ms. The machine the bench runs on
 * is often shared, so each case runs several times: the table shows the best and the worst run.
 */
import type { Page } from "playwright-core";
import { chatState, replyItem, userItem } from "../support/chat-fixtures";
import type { PageGlobals } from "../support/webview-harness";

/** One hostile text of about `size` characters. */
export interface HostileCase {
  name: string;
  make(size: number): string;
}

const repeatTo = (unit: string, size: number): string => unit.repeat(Math.max(1, Math.floor(size / unit.length)));

export const HOSTILE_CASES: HostileCase[] = [
  // The noise floor: what the page and the machine cost for a message that takes no work.
  { name: "control: a short reply", make: () => "Just a short reply." },
  { name: "nested quotes (`>` × N)", make: (n) => `${repeatTo(">", n - 2)} x` },
  {
    name: "deep list (each line one level deeper)",
    make: (n) => {
      const lines: string[] = [];
      let size = 0;
      for (let i = 0; size < n; i++) {
        const line = `${" ".repeat((i % 2000) * 2)}- a`;
        lines.push(line);
        size += line.length + 1;
      }
      return lines.join("\n");
    },
  },
  { name: "`_a` × N (one paragraph)", make: (n) => repeatTo("_a", n) },
  { name: "`*a` × N over lines of 80", make: (n) => repeatTo(`${"*a".repeat(40)}\n`, n) },
  { name: "code fence (TypeScript lines)", make: (n) => `\`\`\`ts\n${repeatTo('const value = compute(1, "s"); // note\n', n - 10)}\`\`\`` },
  { name: "code fence, one long token", make: (n) => `\`\`\`java\n${"a".repeat(n - 12)}\n\`\`\`` },
  { name: "one long line", make: (n) => "a".repeat(n) },
  { name: "many links", make: (n) => repeatTo("[a link](https://example.com/a?b=1) ", n) },
  { name: "many short paragraphs", make: (n) => repeatTo("Some **bold** text and `code`.\n\n", n) },
  { name: "long table", make: (n) => `| a | b |\n| - | - |\n${repeatTo("| cell | `x` |\n", n - 20)}` },
];

export interface HostileRun {
  /** Longest long task (ms; 0 when none was over 50 ms) and how many there were. */
  recordedLongest: number;
  recordedCount: number;
  /** Longest long animation frame (rendering included), when the browser reports them. */
  recordedFrame: number;
  streamedLongest: number;
  streamedCount: number;
  streamedFrame: number;
  /** Characters on screen once drawn (a check that the case was drawn at all). */
  shown: number;
}

export interface HostileResult {
  name: string;
  size: number;
  runs: HostileRun[];
  /** The run whose worse longest task (recorded or streamed) is the smallest, and the largest. */
  best: HostileRun;
  worst: HostileRun;
}

const worstTask = (r: HostileRun): number => Math.max(r.recordedLongest, r.streamedLongest);

/**
 * Starts collecting long tasks in the page; the returned function waits until the page has been
 * still (no DOM change) for `quietMs` and reports what was collected.
 */
const START_OBSERVING = `(() => {
  const tasks = [];
  const frames = [];
  const observers = [];
  for (const [type, into] of [["longtask", tasks], ["long-animation-frame", frames]]) {
    try {
      const o = new PerformanceObserver((list) => { for (const e of list.getEntries()) into.push(e.duration); });
      o.observe({ type, buffered: false });
      observers.push(o);
    } catch {}
  }
  let changed = performance.now();
  const mo = new MutationObserver(() => (changed = performance.now()));
  mo.observe(document.body, { subtree: true, childList: true, characterData: true });
  window.__hostileDone = (quietMs) => new Promise((resolve) => {
    const check = () => {
      if (performance.now() - changed >= quietMs) {
        // Entries of the last frames arrive a little after the frame: let one more task run first.
        setTimeout(() => {
          for (const o of observers) o.disconnect();
          mo.disconnect();
          resolve({ tasks, frames });
        }, 100);
      } else setTimeout(check, 50);
    };
    check();
  });
})()`;

async function observe(page: Page, act: () => Promise<void>): Promise<{ longest: number; count: number; frame: number }> {
  await page.evaluate(START_OBSERVING);
  await act();
  const r = (await page.evaluate("window.__hostileDone(500)")) as { tasks: number[]; frames: number[] };
  return { longest: Math.max(0, ...r.tasks), count: r.tasks.length, frame: Math.max(0, ...r.frames) };
}

/** Draws each hostile case as a recorded reply, then streams it in 16 KB deltas, `runs` times. `load` reloads the page. */
export async function runHostileCases(page: Page, load: () => Promise<void>, size: number, runs: number, only?: string): Promise<HostileResult[]> {
  const results: HostileResult[] = [];
  const send = (m: unknown): Promise<unknown> => page.evaluate((msg) => (globalThis as unknown as PageGlobals).__arbor.post(msg), m);
  for (const c of HOSTILE_CASES) {
    if (only && !c.name.includes(only)) continue;
    const text = c.make(size);
    const done: HostileRun[] = [];
    for (let run = 0; run < runs; run++) {
      await load();
      // The message is handed to the page first and posted from there: what is measured is the
      // chat's work on it, not the test driver moving a megabyte into the page.
      await page.evaluate((m) => ((globalThis as unknown as { __hostileState: unknown }).__hostileState = m), chatState([userItem("u1", "Show me."), replyItem("a1", text)]));
      const recorded = await observe(page, async () => {
        await page.evaluate(() => {
          const g = globalThis as unknown as PageGlobals & { __hostileState: unknown };
          return g.__arbor.post(g.__hostileState);
        });
      });
      const shown = (await page.evaluate("document.querySelector('.item-assistant .md')?.textContent.length ?? 0")) as number;
      await load();
      await send(chatState([userItem("u1", "Show me.")]));
      const streamed = await observe(page, async () => {
        await send({ type: "replyStart", provider: "bench", model: "bench-model" });
        for (let i = 0; i < text.length; i += 16_384) {
          await send({ type: "replyDelta", index: 0, part: "text", delta: text.slice(i, i + 16_384) });
          await page.evaluate(() => (globalThis as unknown as PageGlobals).__arbor.nextPaint());
        }
      });
      done.push({ recordedLongest: recorded.longest, recordedCount: recorded.count, recordedFrame: recorded.frame, streamedLongest: streamed.longest, streamedCount: streamed.count, streamedFrame: streamed.frame, shown });
    }
    const sorted = [...done].sort((a, b) => worstTask(a) - worstTask(b));
    results.push({ name: c.name, size: text.length, runs: done, best: sorted[0]!, worst: sorted[sorted.length - 1]! });
  }
  return results;
}
