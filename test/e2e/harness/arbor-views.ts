/**
 * Arbor's own surfaces in the workbench, as a user reaches them: rows of the Sessions view and their
 * inline actions, the Conversation Tree webview and its (virtualised) rows, the workbench's context
 * menu over a webview, and the input box. Also a polling wait for conditions outside the browser.
 */
import { FrameLocator, Locator, Page } from "playwright-core";
import { defaultUiTimeoutMs, Workbench } from "./workbench";

/** `publisher.name` of the packaged extension: the webview frames carry it in their URL. */
export const arborExtensionId = "arbor-dev.arbor";

/** The Conversation Tree's document (two frames deep). */
export function conversationTree(workbench: Workbench): FrameLocator {
  return workbench.webview({ extensionId: arborExtensionId, title: "Conversation Tree" });
}

/** The Chat's document (the side view; the editor tab has the same title). */
export function chatView(workbench: Workbench): FrameLocator {
  return workbench.webview({ extensionId: arborExtensionId, title: "Arbor Chat" });
}

/**
 * The drawn row of an entry. The list reuses a small pool of row elements and hides the spare ones
 * without clearing them, so a hidden element may still name an entry it no longer shows.
 */
export function treeRow(tree: FrameLocator, entryId: string): Locator {
  return tree.locator(`[role="treeitem"]:not([hidden])[data-vscode-context*='"entryId":"${entryId}"']`);
}

/** The drawn rows whose text contains `text`. */
export function treeRowsWithText(tree: FrameLocator, text: string): Locator {
  return tree.locator('[role="treeitem"]:not([hidden])', { has: tree.locator(".text", { hasText: text }) });
}

/** Waits until the tree shows the session called `name` (the line under the toolbar). */
export async function waitForTreeSession(tree: FrameLocator, name: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  await tree.locator(".session-name", { hasText: new RegExp(`^${escapeRegExp(name)}$`) }).waitFor({ state: "visible", timeout: timeoutMs });
}

/** The minimal DOM surface the scrolling helper uses (the test code compiles without the DOM lib). */
interface ScrollList {
  scrollTop: number;
  readonly scrollHeight: number;
  readonly clientHeight: number;
  readonly dataset: { rowHeight?: string };
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}

/**
 * Scrolls the virtualised tree until the row of `entryId` is drawn, then centres it, and returns it.
 * Only rows near the viewport exist in the DOM, and the extension host sends the rows of each
 * scroll position as it is reached (placeholders stand in until they arrive), so a row far away
 * cannot be found by waiting alone. Fails with a clear message when no scroll position draws it.
 */
export async function revealTreeRow(tree: FrameLocator, entryId: string, timeoutMs = defaultUiTimeoutMs): Promise<Locator> {
  return revealTreeRowMatching(tree, `[role="treeitem"]:not([hidden])[data-vscode-context*='"entryId":"${entryId}"']`, `entry ${entryId}`, timeoutMs);
}

/** Scrolls the row that carries the leaf mark (the leaf, or its nearest drawn ancestor) into the middle of the tree. */
export async function revealLeafRow(tree: FrameLocator, timeoutMs = defaultUiTimeoutMs): Promise<Locator> {
  return revealTreeRowMatching(tree, '[role="treeitem"]:not([hidden]):is(.leaf, .leaf-inside)', "the leaf", timeoutMs);
}

/** Whether a drawn row lies wholly inside the tree's scrolled box (on screen, not merely in the DOM). */
export async function rowInView(row: Locator): Promise<boolean> {
  return row.evaluate((element: unknown) => {
    type Box = { top: number; bottom: number };
    const el = element as { getBoundingClientRect(): Box; closest(s: string): { getBoundingClientRect(): Box } | null };
    const list = el.closest(".tree");
    if (!list) return false;
    const r = el.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    return r.bottom > r.top && r.top >= l.top - 0.5 && r.bottom <= l.bottom + 0.5;
  });
}

async function revealTreeRowMatching(tree: FrameLocator, selector: string, what: string, timeoutMs: number): Promise<Locator> {
  const row = tree.locator(selector).first();
  const list = tree.locator(".tree");
  await list.waitFor({ state: "visible", timeout: timeoutMs });
  const found = await list.evaluate(async (element: unknown, args: { selector: string }) => {
    const scroller = element as ScrollList;
    const rowHeight = Number(scroller.dataset.rowHeight);
    const raf = (globalThis as unknown as { requestAnimationFrame(callback: () => void): number }).requestAnimationFrame;
    // Two frames: the list draws on the scroll event, which the browser dispatches in the next frame.
    // Then until the host's rows have replaced the placeholders (bounded: a lost answer is a bug to see).
    const settle = async () => {
      await new Promise<void>((resolve) => raf(() => raf(() => resolve())));
      for (let frames = 0; frames < 300 && scroller.querySelector(".row.placeholder:not([hidden])"); frames++) {
        await new Promise<void>((resolve) => raf(() => resolve()));
      }
    };
    const centre = async (index: number) => {
      // At a whole row, as the tree centres a row itself (no row cut in half at the top).
      scroller.scrollTop = Math.max(0, Math.round(index - (Math.floor(scroller.clientHeight / rowHeight) - 1) / 2)) * rowHeight;
      await settle();
    };
    const drawn = scroller.querySelector(args.selector);
    if (drawn) {
      await centre(Number(drawn.getAttribute("data-index")));
      return true;
    }
    const step = Math.max(rowHeight, scroller.clientHeight - 2 * rowHeight);
    for (let top = 0; top <= scroller.scrollHeight; top += step) {
      scroller.scrollTop = top;
      await settle();
      const row = scroller.querySelector(args.selector);
      if (row) {
        await centre(Number(row.getAttribute("data-index")));
        return true;
      }
    }
    return false;
  }, { selector });
  if (!found) throw new Error(`The Conversation Tree draws no row for ${what} at any scroll position.`);
  await row.waitFor({ state: "visible", timeout: timeoutMs });
  return row;
}

/**
 * Selects an entry's row with the arrow keys, as a keyboard user would (a click would check it out).
 * Returns the row once it is the selected one.
 */
export async function selectTreeRowWithKeys(page: Page, tree: FrameLocator, entryId: string, timeoutMs = defaultUiTimeoutMs): Promise<Locator> {
  const row = await revealTreeRow(tree, entryId, timeoutMs);
  const target = Number(await row.getAttribute("data-index"));
  const list = tree.locator(".tree");
  await list.focus();
  const selected = tree.locator('[role="treeitem"]:not([hidden])[aria-selected="true"]');
  // Nothing selected yet: the first key press selects the first row.
  if ((await selected.count()) === 0) await page.keyboard.press("Home");
  const from = Number(await selected.getAttribute("data-index", { timeout: timeoutMs }));
  const key = target < from ? "ArrowUp" : "ArrowDown";
  for (let i = 0; i < Math.abs(target - from); i++) await page.keyboard.press(key);
  await tree.locator(`[role="treeitem"]:not([hidden])[aria-selected="true"][data-vscode-context*='"entryId":"${entryId}"']`).waitFor({ state: "visible", timeout: timeoutMs });
  return row;
}

/** The tree's status line ("18 of 24 entries · Default ..."), parsed. */
export async function treeStatus(tree: FrameLocator): Promise<{ shown: number; total: number; text: string }> {
  const text = ((await tree.locator(".status").textContent()) ?? "").trim();
  const match = /^([\d,]+) of ([\d,]+) entries/.exec(text);
  if (!match) throw new Error(`Unexpected Conversation Tree status line: ${JSON.stringify(text)}`);
  const count = (digits: string) => Number(digits.replace(/,/g, ""));
  return { shown: count(match[1]!), total: count(match[2]!), text };
}

/** A row of the Sessions view whose title contains `title`. */
export function sessionRow(workbench: Workbench, title: string): Locator {
  return workbench.viewPane("Sessions").locator(".monaco-list-row", { hasText: title }).first();
}

/** Waits until the Sessions view marks `title` as the session open in this window (its icon). */
export async function waitForCurrentSessionRow(workbench: Workbench, title: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  await sessionRow(workbench, title).locator(".codicon-comment-discussion").waitFor({ state: "visible", timeout: timeoutMs });
}

/**
 * Resumes a session by clicking its row in the Sessions view once, as a user does, and waits until
 * the Conversation Tree shows it and the list marks it as open.
 */
/**
 * Waits until the Sessions view has stopped changing under `row`: as many rows, and the row at the
 * same place, for 500 ms (a row's text may go on changing: its message count follows appends). A session file that an earlier step wrote (a fork) is listed a moment later,
 * and a click made while that row is inserted lands on the row below the one it named.
 */
async function waitForSettledList(workbench: Workbench, row: Locator, timeoutMs: number): Promise<void> {
  await row.waitFor({ state: "visible", timeout: timeoutMs });
  const rows = workbench.viewPane("Sessions").locator(".monaco-list-row");
  const look = async () => JSON.stringify([await rows.count(), await row.boundingBox()]);
  const end = Date.now() + timeoutMs;
  let last = await look();
  let since = Date.now();
  while (Date.now() - since < 500) {
    if (Date.now() > end) throw new Error(`the Sessions view kept changing for ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await look();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
}

export async function resumeSessionFromList(workbench: Workbench, title: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  await waitForSettledList(workbench, sessionRow(workbench, title), timeoutMs);
  await sessionRow(workbench, title).click({ timeout: timeoutMs });
  await waitForResumed(workbench, title, timeoutMs);
}

/** Resumes a session with its row's inline Resume action (shown on hover), clicked once; waits as above. */
export async function resumeSessionInline(workbench: Workbench, title: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  await clickSessionInlineAction(workbench, title, "Resume", timeoutMs);
  await waitForResumed(workbench, title, timeoutMs);
}

/** Waits until the tree shows the session `title` and the Sessions view marks it as open. */
async function waitForResumed(workbench: Workbench, title: string, timeoutMs: number): Promise<void> {
  await waitForTreeSession(conversationTree(workbench), title, timeoutMs);
  await waitForCurrentSessionRow(workbench, title, timeoutMs);
}

/**
 * Runs one of a Sessions view row's inline actions (Resume, Rename, Fork, Delete): they only show
 * while the pointer is over the row, as for a user.
 */
export async function clickSessionInlineAction(workbench: Workbench, title: string, action: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  const row = sessionRow(workbench, title);
  await row.waitFor({ state: "visible", timeout: timeoutMs });
  await row.hover();
  const button = row.locator(".actions").getByRole("button", { name: action, exact: true });
  await button.waitFor({ state: "visible", timeout: timeoutMs });
  await button.click();
}

/**
 * Right-clicks `target` (an element inside a webview) and picks `item` from the context menu that
 * the workbench draws for it (from the element's `data-vscode-context` and `webview/context`).
 */
export async function pickWebviewContextMenuItem(page: Page, target: Locator, item: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  await target.click({ button: "right" });
  const menuItem = page.locator(".context-view .monaco-menu").getByRole("menuitem", { name: item, exact: true });
  await menuItem.waitFor({ state: "visible", timeout: timeoutMs });
  // A press and release in the same instant does not trigger the workbench's menu items here (the
  // menu stays open); a press held about as long as a person's does.
  await menuItem.click({ delay: 100 });
  await menuItem.waitFor({ state: "hidden", timeout: timeoutMs });
}

/** Types into the open input box (showInputBox) and accepts it with Enter. */
export async function answerInputBox(page: Page, text: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: timeoutMs });
  await input.fill(text);
  await input.press("Enter");
  await input.waitFor({ state: "hidden", timeout: timeoutMs });
}

/**
 * Polls `check` until it returns a value other than undefined/false and returns that value; fails
 * with `what` and the last error after `timeoutMs`. For conditions outside the page (files on disk).
 */
export async function waitUntil<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The Conversation Tree laid out for the side bar ("view") or for an editor tab ("editor", opened
 * with "Arbor: Open Conversation Tree in Editor"), when both may be open. Waits until it is there.
 */
export async function conversationTreeIn(workbench: Workbench, layout: "view" | "editor", timeoutMs = defaultUiTimeoutMs): Promise<FrameLocator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (let index = 0; index < 4; index++) {
      const frame = workbench.webview({ extensionId: arborExtensionId, title: "Conversation Tree", index });
      if ((await frame.locator(`body[data-layout="${layout}"]`).count().catch(() => 0)) > 0) return frame;
    }
    if (Date.now() > deadline) throw new Error(`No Conversation Tree laid out for ${layout === "view" ? "the side bar" : "an editor tab"}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** For each drawn row: whether its kind (tag) shows, and how many characters of its text are on screen. */
export async function readableRows(tree: FrameLocator): Promise<{ id: string; level: number; tagShown: boolean; visible: number; total: number; depthMarker: boolean }[]> {
  return tree.locator(".tree").evaluate((element: unknown) => {
    type Box = { left: number; right: number; top: number; bottom: number; width: number };
    type Node = { nodeType: number; textContent: string | null; childNodes: ArrayLike<Node> };
    type Row = Node & { hidden: boolean; classList: { contains(c: string): boolean }; getAttribute(n: string): string | null; getBoundingClientRect(): Box; querySelector(s: string): (Row & Node) | null };
    const list = element as { querySelectorAll(s: string): ArrayLike<Row>; ownerDocument: { createRange(): { setStart(n: Node, o: number): void; setEnd(n: Node, o: number): void; getClientRects(): ArrayLike<Box> } } };
    const range = list.ownerDocument.createRange();
    const out: { id: string; level: number; tagShown: boolean; visible: number; total: number; depthMarker: boolean }[] = [];
    for (const row of Array.from(list.querySelectorAll(".row"))) {
      if (row.hidden || row.classList.contains("placeholder")) continue;
      const box = row.getBoundingClientRect();
      const text = row.querySelector(".text")!;
      const tag = row.querySelector(".tag")!.getBoundingClientRect();
      let visible = 0;
      const walk = (node: Node) => {
        if (node.nodeType === 3) {
          const s = node.textContent ?? "";
          for (let i = 0; i < s.length && visible < 120; i++) {
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            if (Array.from(range.getClientRects()).some((r) => r.width > 0 && r.left >= box.left && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5)) visible++;
          }
        } else for (const child of Array.from(node.childNodes)) walk(child);
      };
      walk(text);
      const context = JSON.parse(row.getAttribute("data-vscode-context") ?? "{}") as { entryId?: string };
      out.push({
        id: context.entryId ?? "",
        level: Number(row.getAttribute("aria-level")),
        tagShown: tag.width > 0 && tag.left >= box.left && tag.right <= box.right,
        visible,
        total: (text.textContent ?? "").length,
        depthMarker: row.querySelector(".guide.depth") !== null,
      });
    }
    return out;
  });
}

/** Puts a prompt in the chat's input and sends it with Enter, as a user would. */
export async function sendInChat(workbench: Workbench, text: string): Promise<void> {
  const input = chatView(workbench).locator("textarea.input");
  await input.waitFor({ state: "visible", timeout: 60_000 });
  await input.click();
  await input.fill(text);
  await input.press("Enter");
}
