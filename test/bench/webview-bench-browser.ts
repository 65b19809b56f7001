/**
 * The browser half of the Conversation Tree benchmark: the built bundle (dist/tree.js) in headless
 * Chromium, driven by the real host side (TreeHub) in this process, as the extension drives it.
 * Every time is measured from the host's side of the boundary: "first paint" starts when the host
 * is asked to show the session and ends when the frame with its rows has been painted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { Page } from "playwright-core";
import type { SessionData } from "../../src/core/tree/tree-model";
import type { TreeFixture } from "../support/webview-harness.fixtures";
import { DARK_THEME, startHarness, waitForPage, type Harness } from "../support/webview-harness";
import { harnessSession, type DeliveryTiming } from "../support/webview-harness-host";

export interface Stats {
  n: number;
  median: number;
  p95: number;
  max: number;
}

export function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: values.length, median: round(at(0.5)), p95: round(at(0.95)), max: round(sorted[sorted.length - 1] ?? 0) };
}

export const round = (x: number): number => Math.round(x * 100) / 100;

/** Main-thread tasks of the renderer in a Chrome trace: count, how many ran over 50 ms by wall and by CPU time. */
function mainThreadTasks(trace: Buffer): { count: number; overWall: number; overCpu: number; maxCpu: number } {
  interface TraceEvent {
    name: string;
    pid: number;
    tid: number;
    dur?: number;
    tdur?: number;
  }
  const parsed = JSON.parse(trace.toString("utf8")) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const frame = events.find((e) => e.name === "FireAnimationFrame");
  if (!frame) return { count: 0, overWall: 0, overCpu: 0, maxCpu: 0 };
  const tasks = events.filter((e) => e.name === "RunTask" && e.pid === frame.pid && e.tid === frame.tid && e.dur !== undefined);
  const cpu = tasks.map((t) => (t.tdur ?? t.dur ?? 0) / 1000);
  return {
    count: tasks.length,
    overWall: tasks.filter((t) => (t.dur ?? 0) > 50_000).length,
    overCpu: cpu.filter((c) => c > 50).length,
    maxCpu: Math.round(Math.max(0, ...cpu) * 10) / 10,
  };
}

/** Work of one delivered message: its JavaScript plus the frame's rendering, without the idle wait for vsync. */
const work = (t: DeliveryTiming): number => t.handled - t.start + (t.painted - t.raf);

/** A process that keeps one core busy (the machine's "other core"), until killed. */
function burnCore(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

async function pageHeapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  const usage = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
  await cdp.detach();
  return round(usage.usedSize / 1e6);
}

function gcNode(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** First paint, three times: from the host's request to show the session to the painted frame. */
async function firstPaints(harness: Harness, fixture: TreeFixture): Promise<Record<string, unknown>> {
  const total: number[] = [];
  const host: number[] = [];
  const hostCpu: number[] = [];
  const page: number[] = [];
  const render: number[] = [];
  const transfer: number[] = [];
  let messageBytes = 0;
  for (let run = 0; run < 3; run++) {
    harness.host.restart();
    await harness.load();
    const session = harnessSession(fixture);
    gcNode();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    harness.host.show(session);
    const hostDone = performance.now();
    const cpu = process.cpuUsage(cpu0);
    // CPU time of the host's work: what it costs on a quiet machine, beside the wall time a shared one gives.
    hostCpu.push((cpu.user + cpu.system) / 1000);
    const timing = await harness.host.painted();
    const t1 = performance.now();
    total.push(t1 - t0);
    host.push(hostDone - t0);
    page.push(timing.handled - timing.start);
    render.push(timing.painted - timing.raf);
    transfer.push(t1 - t0 - (hostDone - t0) - (timing.painted - timing.start));
    if (run === 0) {
      const first = harness.host.hub.messageFor(true, null, 0, 0);
      messageBytes = JSON.stringify({ ...first, window: { ...first.window, rows: [] } }).length;
    }
  }
  const rowsSent = ((await harness.page.evaluate("__arbor.rows().length")) as number) ?? 0;
  return {
    hostRequestToPaintedMs: stats(total),
    hostWorkMs: stats(host),
    hostCpuMs: stats(hostCpu),
    pageHandlingMs: stats(page),
    renderMs: stats(render),
    transferAndWaitsMs: stats(transfer),
    rowsDrawn: rowsSent,
    headerBytes: messageBytes,
  };
}

async function checkouts(harness: Harness, count: number): Promise<Record<string, unknown>> {
  const page = harness.page;
  const model = harness.host.hub.model;
  const rows = model.rows;
  const targets: string[] = [];
  for (let r = 0; r < rows.count && targets.length < count; r += Math.max(1, Math.floor(rows.count / (count * 1.3)))) {
    const i = rows.nodeAt(r);
    const e = model.index.summary(i);
    if (!model.isOnPath(i) && e.type === "message" && e.role !== "user") targets.push(e.id);
  }
  const updates: number[] = [];
  const clickToPainted: number[] = [];
  for (const id of targets) {
    harness.host.hub.reveal(id);
    await harness.host.idle();
    await waitForPage(page, `__arbor.rowPoint(${JSON.stringify(id)}) !== null`);
    const point = (await page.evaluate(`__arbor.rowPoint(${JSON.stringify(id)})`)) as { x: number; y: number };
    const before = (await page.evaluate("__arbor.deliveries.length")) as number;
    await page.mouse.click(point.x, point.y);
    await harness.host.painted();
    await waitForPage(page, `__arbor.deliveries.slice(${before}).every((d) => d.painted > 0)`);
    const after = (await page.evaluate(`__arbor.deliveries.slice(${before})`)) as DeliveryTiming[];
    if (after.length === 0) throw new Error(`the checkout of ${id} reached no webview`);
    // The first message moves the leaf (the checkout marker's append); a reveal may follow.
    updates.push(work(after[0]));
    clickToPainted.push(Math.max(...after.map((t) => t.painted)) - after[0].click);
    if (model.leafId === null || model.index.resolve(model.leafId) !== model.index.positionOf(id)) throw new Error(`checkout of ${id} did not move the leaf`);
  }
  return { checkouts: targets.length, updateWorkMs: stats(updates), clickToPaintedMs: stats(clickToPainted) };
}

interface ScrollPass {
  frames: number[];
  scrollCosts: number[];
  longTasks: number[];
  blankFrames: number;
  /** The positions (indices) shown by frames with rows not sent yet. */
  blankAt: number[];
  drawn: number;
}

/** Positions of a scroll pass: a steady scroll (120 px a frame, a fast wheel), then jumps (a dragged scrollbar thumb). */
const STEADY_POSITIONS = 240;
const JUMP_POSITIONS = 240;

async function scrolling(harness: Harness, busy: boolean): Promise<Record<string, unknown>> {
  const page = harness.page;
  const geometry = (await page.evaluate("({ h: document.querySelector('.tree').scrollHeight, c: document.querySelector('.tree').clientHeight })")) as { h: number; c: number };
  const max = Math.max(0, geometry.h - geometry.c);
  const positions: number[] = [];
  const start = Math.floor(max / 3);
  for (let i = 0; i < STEADY_POSITIONS; i++) positions.push(Math.min(max, start + i * 120));
  for (let i = 0; i < JUMP_POSITIONS; i++) positions.push(Math.floor((((i * 7_919) % 1000) / 1000) * max));
  const burner = busy ? burnCore() : undefined;
  const handlingBefore = harness.host.handling.get("viewport")?.length ?? 0;
  try {
    // Three passes: on a shared machine one pass can catch another process's burst. A trace gives
    // each main-thread task's CPU time besides its wall time: a task that waited for a core is
    // long by the clock without having worked long.
    const passes: ScrollPass[] = [];
    await harness.browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline"] });
    for (let pass = 0; pass < 3; pass++) {
      passes.push((await page.evaluate((p) => (globalThis as unknown as { __arbor: { scrollBench(p: number[]): Promise<ScrollPass> } }).__arbor.scrollBench(p), positions)) as ScrollPass);
    }
    const tasks = mainThreadTasks(await harness.browser.stopTracing());
    await harness.host.idle();
    const hostViewport = (harness.host.handling.get("viewport") ?? []).slice(handlingBefore);
    const frames = passes.flatMap((p) => p.frames);
    const longTasks = passes.flatMap((p) => p.longTasks);
    return {
      frames: frames.length,
      frameIntervalMs: stats(frames),
      scrollHandlerMs: stats(passes.flatMap((p) => p.scrollCosts)),
      longTasks: longTasks.length,
      longTasksPerPass: passes.map((p) => p.longTasks.length),
      longestTaskMs: round(Math.max(0, ...longTasks)),
      tracedTasks: tasks.count,
      tracedTasksOver50msWall: tasks.overWall,
      tracedTasksOver50msCpu: tasks.overCpu,
      longestTaskCpuMs: tasks.maxCpu,
      framesWithRowsNotYetSent: passes.reduce((n, p) => n + p.blankFrames, 0),
      // A steady scroll can find its rows held (asked for ahead); a jump waits for one round trip.
      // Position 0 of each pass is itself a jump (from where the last pass ended).
      steadyFrames: passes.length * (STEADY_POSITIONS - 1),
      steadyFramesWithRowsNotYetSent: passes.reduce((n, p) => n + p.blankAt.filter((i) => i >= 1 && i < STEADY_POSITIONS).length, 0),
      jumpFramesWithRowsNotYetSent: passes.reduce((n, p) => n + p.blankAt.filter((i) => i === 0 || i >= STEADY_POSITIONS).length, 0),
      viewportRequests: hostViewport.length,
      hostPerViewportRequestMs: stats(hostViewport),
      drawnRows: passes[passes.length - 1].drawn,
    };
  } finally {
    burner?.kill();
  }
}

async function appends(harness: Harness): Promise<Record<string, unknown>> {
  const model = harness.host.hub.model;
  await harness.page.evaluate("document.querySelector('.tree').scrollTop = 1e9");
  await harness.host.idle();
  let leaf = model.leafId ?? "";
  const host: number[] = [];
  const update: number[] = [];
  for (let i = 0; i < 100; i++) {
    const e = { id: `b${i.toString(16).padStart(7, "0")}`, parentId: leaf, type: "message", role: i % 2 ? "assistant" : "user", timestamp: new Date(Date.UTC(2031, 0, 1) + i * 1000).toISOString(), line: 0, preview: `appended entry ${i}` };
    const t0 = performance.now();
    harness.host.append([e], e.id);
    host.push(performance.now() - t0);
    update.push(work(await harness.host.painted()));
    leaf = e.id;
  }
  const t0 = performance.now();
  harness.host.hub.setFilter("no-tools");
  const filterHost = performance.now() - t0;
  const filterPaint = await harness.host.painted();
  const t1 = performance.now();
  harness.host.hub.model.setQuery("parser tree");
  const searchHost = performance.now() - t1;
  harness.host.hub.setFilter("default");
  await harness.host.idle();
  return {
    appendAtLeafHostMs: stats(host),
    appendAtLeafUpdateWorkMs: stats(update),
    fastAppends: model.stats.fastAppends,
    filterSwitchHostMs: round(filterHost),
    filterSwitchPageWorkMs: round(work(filterPaint)),
    firstSearchHostMs: round(searchHost),
  };
}

/** A session file opened for one timed run (see benchSessionFile). */
export interface OpenedForPaint {
  readonly data: SessionData;
  readonly title: string;
  close(): Promise<void>;
}

/**
 * First paint of a real session file through the extension's own path, everything the host does
 * included: the file opened by SessionManager (with its reopen index, as when a user opens a
 * session again), its store-backed tree source, and the model built in slices by
 * TreeHub.showSessionInSlices, as the extension shows a session. Timed from the request to open
 * the file to the painted frame (the webview's page itself is already loaded, as the side view's
 * is); the open alone is reported beside it. The longest gap between two event-loop turns of the
 * host meanwhile is the longest task the extension host would have run.
 */
export async function benchSessionFile(open: () => Promise<OpenedForPaint>, bundle: string, runs: number): Promise<Record<string, unknown>> {
  const harness = await startHarness({ bundlePath: bundle, width: 420, height: 900, theme: DARK_THEME });
  try {
    const total: number[] = [];
    const host: number[] = [];
    const opens: number[] = [];
    const longest: number[] = [];
    for (let run = 0; run < runs; run++) {
      harness.host.restart();
      await harness.load();
      gcNode();
      let last = performance.now();
      let worst = 0;
      let ticking = true;
      const tick = (): void => {
        const now = performance.now();
        worst = Math.max(worst, now - last);
        last = now;
        if (ticking) setImmediate(tick);
      };
      const t0 = performance.now();
      setImmediate(tick);
      const opened = await open();
      const openDone = performance.now();
      await harness.host.hub.showSessionInSlices(opened.data, opened.title, null);
      const hostDone = performance.now();
      const timing = await harness.host.painted();
      ticking = false;
      const t1 = performance.now();
      total.push(t1 - t0);
      opens.push(openDone - t0);
      host.push(hostDone - t0);
      longest.push(worst);
      void timing;
      await opened.close();
    }
    const rowsSent = ((await harness.page.evaluate("__arbor.rows().length")) as number) ?? 0;
    return { openRequestToPaintedMs: stats(total), openMs: stats(opens), hostWorkMs: stats(host), longestHostTaskMs: stats(longest), rowsSent, pageHeapAfterFirstPaintMb: await pageHeapMb(harness.page) };
  } finally {
    await harness.close();
  }
}

/** Everything the browser part measures for one session. */
export async function benchBrowser(fixture: TreeFixture, bundle: string, options: { width: number; height: number }): Promise<Record<string, unknown>> {
  const harness = await startHarness({ bundlePath: bundle, width: options.width, height: options.height, theme: DARK_THEME });
  try {
    const firstPaint = await firstPaints(harness, fixture);
    const heapMb = await pageHeapMb(harness.page);
    const checkout = await checkouts(harness, 25);
    const scroll = await scrolling(harness, false);
    const scrollBusy = await scrolling(harness, true);
    const append = await appends(harness);
    const rowHeight = Number(await harness.page.evaluate("document.querySelector('.tree').dataset.rowHeight"));
    return { rowHeight, firstPaint, pageHeapAfterFirstPaintMb: heapMb, checkout, scroll, scrollWithOtherCoreBusy: scrollBusy, append, cspViolations: await harness.page.evaluate("__arbor.violations") };
  } finally {
    await harness.close();
  }
}

/** A deeply branched session in a 300 px side bar: depth, first paint, and how much of each row's text shows. */
export async function benchDeep(fixture: TreeFixture, bundle: string): Promise<Record<string, unknown>> {
  const harness = await startHarness({ bundlePath: bundle, width: 300, height: 800, theme: DARK_THEME });
  try {
    const paint = await firstPaints(harness, fixture);
    const model = harness.host.hub.model;
    let maxLevel = 0;
    for (let r = 0; r < model.rows.count; r++) maxLevel = Math.max(maxLevel, model.rows.level(model.rows.nodeAt(r)));
    const shown = (await harness.page.evaluate(`Array.from(document.querySelectorAll('.tree .row:not([hidden]):not(.placeholder)')).map((row) => {
      const box = row.getBoundingClientRect();
      const text = row.querySelector('.text');
      const tag = row.querySelector('.tag').getBoundingClientRect();
      const range = document.createRange();
      let visible = 0;
      const node = text.firstChild;
      const length = node && node.nodeType === 3 ? node.textContent.length : 0;
      for (let i = 0; i < length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        if (r && r.width > 0 && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5) visible++;
      }
      return { visible, total: length, tagShown: tag.width > 0 && tag.right <= box.right, textLeft: Math.round(text.getBoundingClientRect().left - box.left) };
    })`)) as { visible: number; total: number; tagShown: boolean; textLeft: number }[];
    return {
      entries: fixture.entries.length,
      maxLevel,
      firstPaint: paint.hostRequestToPaintedMs,
      rowsChecked: shown.length,
      rowsShowingTheirKind: shown.filter((s) => s.tagShown).length,
      fewestCharactersShown: Math.min(...shown.map((s) => Math.min(s.visible, s.total))),
      medianCharactersShown: stats(shown.map((s) => s.visible)).median,
      furthestTextStartPx: Math.max(...shown.map((s) => s.textLeft)),
    };
  } finally {
    await harness.close();
  }
}
