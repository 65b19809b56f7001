/**
 * VS Code for the Web sometimes shows a webview's frame and never loads the page into it, or loads the
 * page without its script and styles: the frame depends on its service worker, and when two webviews
 * load at once (a fresh browser opening Arbor's container, or a reload, shows the Conversation Tree and
 * the Chat together) one may wait forever or fetch its resources past the worker and fail. It is
 * VS Code's, not Arbor's (Arbor's host sees the view resolved and its HTML set; the product logs it and
 * tells the user to collapse and expand the view). A user who sees the blank pane collapses and expands
 * it, which makes VS Code build a new frame; this watcher does the same for a side-bar webview that has
 * shown no page for `afterMs`, once per frame, and prints each time it did, so a run shows how often.
 */
import type { Page } from "playwright-core";

interface FrameState {
  readonly name: string;
  readonly loaded: boolean;
  readonly x: number;
  readonly y: number;
  readonly height: number;
}

export function watchWebviewStalls(page: Page, report: (line: string) => void, afterMs = 12_000): { dispose(): void; readonly recovered: number } {
  const firstSeenBlank = new Map<string, number>();
  const handled = new Set<string>();
  let recovered = 0;
  let busy = false;
  let disposed = false;
  const check = async () => {
    if (busy || disposed) return;
    busy = true;
    try {
      const frames = await page.evaluate((): FrameState[] => {
        interface Doc {
          querySelector(s: string): unknown;
          getElementById(id: string): { contentDocument: { readyState: string; body: { innerText: string; querySelector(s: string): unknown } | null } | null } | null;
        }
        interface El {
          getAttribute(n: string): string | null;
          getBoundingClientRect(): { x: number; y: number; width: number; height: number };
          contentDocument: Doc | null;
        }
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } }).document;
        // Arbor's pages always draw something (a notice, an input); a blank one never ran its script.
        return Array.from(doc.querySelectorAll("iframe.webview.ready[src*='extensionId=arbor-dev.arbor']")).map((frame) => {
          const r = frame.getBoundingClientRect();
          let loaded = true;
          try {
            const inner = frame.contentDocument?.getElementById("active-frame")?.contentDocument;
            const body = inner?.readyState === "complete" ? inner.body : null;
            // No page at all, or a page whose script and styles never arrived (nothing drawn).
            loaded = body != null && (body.innerText.trim() !== "" || body.querySelector("input, textarea, button, [role]") != null);
          } catch {
            // another origin: not ours to judge
          }
          return { name: frame.getAttribute("name") ?? "", loaded, x: r.x + r.width / 2, y: r.y + r.height / 2, height: r.height };
        });
      });
      const now = Date.now();
      for (const frame of frames) {
        if (frame.loaded || frame.height === 0 || handled.has(frame.name)) {
          if (frame.loaded) firstSeenBlank.delete(frame.name);
          continue;
        }
        const since = firstSeenBlank.get(frame.name) ?? now;
        firstSeenBlank.set(frame.name, since);
        if (now - since < afterMs) continue;
        handled.add(frame.name);
        // The side-bar pane under the frame's centre.
        const panes = page.locator(".part.sidebar .pane");
        const count = await panes.count();
        for (let i = 0; i < count; i++) {
          const box = await panes.nth(i).boundingBox();
          if (!box || frame.y < box.y || frame.y > box.y + box.height || frame.x < box.x || frame.x > box.x + box.width) continue;
          const header = panes.nth(i).locator(".pane-header");
          const title = (await header.getAttribute("aria-label")) ?? "?";
          report(`[e2e] VS Code never loaded the page of the webview in "${title}" (blank for ${Math.round((now - since) / 1000)} s): collapsing and expanding that pane, as a user would`);
          await header.click();
          await header.and(page.locator("[aria-expanded='false']")).waitFor({ state: "attached", timeout: 5_000 }).catch(() => undefined);
          await header.click();
          recovered++;
          break;
        }
      }
    } catch {
      // the page is navigating or closing
    } finally {
      busy = false;
    }
  };
  const interval = setInterval(() => void check(), 1_000);
  return {
    dispose() {
      disposed = true;
      clearInterval(interval);
    },
    get recovered() {
      return recovered;
    },
  };
}
