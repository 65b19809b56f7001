/**
 * The host side of the webview harness: the real TreeHub, fed a session of entry summaries the way
 * the extension feeds it a SessionManager, and connected to the page in Chromium. Messages to the
 * page go through `__arbor.deliver` in order; the page's messages arrive through a binding. A
 * checkout behaves as the extension's does: Pi's semantics, a checkout marker appended under the
 * new leaf, then the leaf revealed.
 */
import { performance } from "node:perf_hooks";
import type { Page } from "playwright-core";
import type { SessionData } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { isWebviewToHostMessage } from "../../src/protocol/guards";
import type { EntryDetails, HostToWebviewMessage, ReadOnlyNotice } from "../../src/protocol/messages";
import { TreeHub, type TreeViewPort } from "../../src/protocol/tree-host";

/** Characters of a message's JSON carried into the page per debugger-protocol call (see `deliver`). */
const TRANSPORT_SLICE = 65_536;

export interface HarnessSession {
  sessionId: string;
  name: string | null;
  entries: EntrySummary[];
  labels: { targetId: string; label: string }[];
  leafId: string | null;
}

/** A delivered host message with the page's clock at arrival, after handling, and after the frame that painted it. */
export interface DeliveryTiming {
  id: number;
  type: string;
  start: number;
  handled: number;
  raf: number;
  painted: number;
  /** The page's time of the last click before it. */
  click: number;
}

export class HarnessHost {
  hub: TreeHub;
  /** Every message the page posted (valid or not). */
  readonly posted: unknown[] = [];
  /** What the tree asked the extension to do: "checkout a1", "label a1", ... */
  readonly actions: string[] = [];
  /** Answer checkouts by moving the leaf (as the extension does). */
  autoCheckout = true;
  /** Details answered for entries (by id); others get their preview as text. */
  details = new Map<string, EntryDetails>();
  private port: TreeViewPort | undefined;
  private session: HarnessSession | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private lastDelivery = 0;
  private markerSerial = 0;
  /** Messages that could not be delivered because the page was reloading. */
  dropped = 0;
  lastError: unknown;

  constructor(private readonly page: Page) {
    this.hub = this.newHub();
  }

  /** Starts over with a fresh hub: what a restarted extension host has (nothing but the webview's saved state). */
  restart(): void {
    this.handling.clear();
    this.actions.length = 0;
    this.posted.length = 0;
    this.details.clear();
    this.autoCheckout = true;
    this.port?.dispose();
    this.port = undefined;
    this.hub = this.newHub();
  }

  private newHub(): TreeHub {
    return new TreeHub({
      checkout: (id) => this.checkout(id),
      fork: (id) => void this.actions.push(`fork ${id}`),
      label: (id) => void this.actions.push(`label ${id}`),
      copyText: (id) => void this.actions.push(`copyText ${id}`),
      forkReadOnly: () => void this.actions.push("forkSession"),
      details: (id) => {
        const details = this.details.get(id) ?? this.previewDetails(id);
        return details ? { ok: true, details } : undefined;
      },
      log: (level, message) => void this.actions.push(`log ${level} ${message}`),
    });
  }

  /** Installs the binding the page posts through (before the page loads). */
  async install(): Promise<void> {
    await this.page.exposeBinding("__arborToHost", (_source, json: string) => this.receive(JSON.parse(json) as unknown));
  }

  /** Shows a session (the extension's onDidChangeSession). */
  show(session: HarnessSession | null, readOnly: ReadOnlyNotice | null = null): void {
    this.session = session ? { ...session, entries: [...session.entries] } : null;
    const data: SessionData | null = this.session ? { ...this.session, entries: this.session.entries } : null;
    this.hub.showSession(data, session ? (session.name ?? "Untitled session") : "", readOnly);
  }

  /** Entries appended to the session (by this window or another process). */
  append(entries: EntrySummary[], leafId: string | null): void {
    if (this.session) this.session.leafId = leafId;
    this.hub.append(entries, leafId);
  }

  /** Waits until every message sent so far is delivered, and returns the last delivery's id. */
  async idle(): Promise<number> {
    // A round trip first: bindings the page called before it have reached Node by then.
    await this.page.evaluate("0");
    let seen: Promise<unknown> | undefined;
    while (seen !== this.chain) {
      seen = this.chain;
      await seen;
    }
    return this.lastDelivery;
  }

  /** Waits for the last delivery's frame and returns its timing. */
  async painted(): Promise<DeliveryTiming> {
    const id = await this.idle();
    return (await this.page.evaluate((i) => (globalThis as unknown as { __arbor: { paintedOf(i: number): Promise<DeliveryTiming> } }).__arbor.paintedOf(i), id)) as DeliveryTiming;
  }

  /** Host time (ms) spent on each message from the page, by type (the benchmark reads it). */
  readonly handling = new Map<string, number[]>();

  private receive(message: unknown): void {
    const start = performance.now();
    this.receiveNow(message);
    const type = typeof (message as { type?: unknown })?.type === "string" ? (message as { type: string }).type : "?";
    const times = this.handling.get(type) ?? [];
    if (times.length < 10_000) times.push(performance.now() - start);
    this.handling.set(type, times);
  }

  private receiveNow(message: unknown): void {
    this.posted.push(message);
    if (isWebviewToHostMessage(message) && message.type === "ready") {
      // A (re)loaded page: a new webview, as VS Code makes one per load.
      this.port?.dispose();
      this.port = this.hub.connect((m) => this.deliver(m));
    }
    this.port?.receive(message);
  }

  private deliver(message: HostToWebviewMessage): void {
    // As JSON text, decoded in the page inside the delivery's task, as VS Code's own transport does
    // (the host's message is serialised, carried by IPC off the page's thread, and decoded in the
    // webview). The debugger protocol carries text on the page's main thread, at a cost no real
    // webview pays (about 25 ms of CPU for a window of a few hundred rows under load, in one task):
    // it is carried in slices, each its own shorter task, and only the last one delivers.
    const json = JSON.stringify(message);
    this.chain = this.chain.then(async () => {
      try {
        for (let at = 0; at + TRANSPORT_SLICE < json.length; at += TRANSPORT_SLICE) {
          await this.page.evaluate((part) => (globalThis as unknown as { __arbor: { receivePart(p: string): void } }).__arbor.receivePart(part), json.slice(at, at + TRANSPORT_SLICE));
        }
        const last = json.slice(Math.floor((json.length - 1) / TRANSPORT_SLICE) * TRANSPORT_SLICE);
        this.lastDelivery = (await this.page.evaluate(
          (m) => (globalThis as unknown as { __arbor: { deliver(m: unknown): number } }).__arbor.deliver(m),
          last,
        )) as number;
      } catch (err) {
        // The page went away (a reload: a hide/show) with messages for it in flight; VS Code drops those too.
        this.dropped++;
        this.lastError = err;
      }
    });
  }

  private find(id: string): EntrySummary | undefined {
    const entries = this.session?.entries ?? [];
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i].id === id) return entries[i];
    return undefined;
  }

  private previewDetails(id: string): EntryDetails | undefined {
    const e = this.find(id);
    return e ? { kind: "text", text: e.preview } : undefined;
  }

  /** Pi's checkout: on a user message (or custom message) the leaf goes to its parent; a marker records it. */
  private checkout(id: string): void {
    this.actions.push(`checkout ${id}`);
    if (!this.autoCheckout || !this.session) return;
    const e = this.find(id);
    if (!e) return;
    const toParent = (e.type === "message" && e.role === "user") || e.type === "custom_message";
    const target = toParent ? e.parentId : e.id;
    const marker: EntrySummary = {
      id: `mk${(++this.markerSerial).toString(16).padStart(6, "0")}`,
      parentId: target,
      type: "custom",
      customType: "arbor.checkout",
      checkoutMarker: true,
      timestamp: new Date().toISOString(),
      line: 0,
      preview: "arbor.checkout",
    };
    this.session.entries.push(marker);
    this.hub.append([marker], marker.id);
    if (target) this.hub.reveal(target);
  }
}

/** The harness session for a fixture. */
export function harnessSession(fixture: { sessionId: string; name: string | null; entries: EntrySummary[]; labels: { targetId: string; label: string }[]; leafId: string | null }): HarnessSession {
  return { sessionId: fixture.sessionId, name: fixture.name, entries: [...fixture.entries], labels: fixture.labels, leafId: fixture.leafId };
}
