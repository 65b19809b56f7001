/**
 * Resizing parts of the workbench by dragging their sashes, as a user would (VS Code keeps no
 * setting for the side bar's width or a pane's height).
 */
import { Locator, Page } from "playwright-core";
import { defaultUiTimeoutMs, Workbench } from "./workbench";

/** The enabled sash of `selector` whose centre is nearest to (x, y), within `slack` pixels. */
async function sashNear(page: Page, selector: string, x: number, y: number, slack = 8): Promise<Locator> {
  const sashes = page.locator(`${selector}:not(.disabled)`);
  for (const sash of await sashes.all()) {
    const box = await sash.boundingBox();
    if (!box || box.width === 0 || box.height === 0) continue;
    const horizontal = box.width > box.height;
    const near = horizontal
      ? Math.abs(box.y + box.height / 2 - y) <= slack && x >= box.x && x <= box.x + box.width
      : Math.abs(box.x + box.width / 2 - x) <= slack && y >= box.y && y <= box.y + box.height;
    if (near) return sash;
  }
  throw new Error(`No enabled sash (${selector}) at ${Math.round(x)},${Math.round(y)}.`);
}

/** Drags a sash by (dx, dy) with the mouse, in small steps so that the workbench follows. */
async function dragSash(page: Page, sash: Locator, dx: number, dy: number): Promise<void> {
  const box = await sash.boundingBox();
  if (!box) throw new Error("The sash is not on screen.");
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y + dy, { steps: 8 });
  await page.mouse.up();
}

/** Sets the side bar's width (in CSS pixels) by dragging the sash on its right edge. */
export async function resizeSideBar(page: Page, width: number): Promise<void> {
  const sideBar = page.locator(".part.sidebar");
  await sideBar.waitFor({ state: "visible", timeout: defaultUiTimeoutMs });
  const box = await sideBar.boundingBox();
  if (!box) throw new Error("The side bar is not on screen.");
  const right = box.x + box.width;
  const sash = await sashNear(page, ".monaco-sash.vertical", right, box.y + box.height / 2);
  await dragSash(page, sash, width - box.width, 0);
}

/**
 * Makes the view pane that follows `paneAbove` in the side bar taller by making `paneAbove`
 * `height` pixels tall (its header included), dragging the sash between them.
 */
export async function resizeViewPane(page: Page, paneAbove: Locator, height: number): Promise<void> {
  const box = await paneAbove.boundingBox();
  if (!box) throw new Error("The view pane is not on screen.");
  const sash = await sashNear(page, ".part.sidebar .monaco-sash.horizontal", box.x + box.width / 2, box.y + box.height);
  await dragSash(page, sash, 0, height - box.height);
}

/** Sets the panel's height (in CSS pixels) by dragging the sash on its top edge. */
export async function resizePanel(page: Page, height: number): Promise<void> {
  const panel = page.locator(".part.panel");
  await panel.waitFor({ state: "visible", timeout: defaultUiTimeoutMs });
  const box = await panel.boundingBox();
  if (!box) throw new Error("The panel is not on screen.");
  const sash = await sashNear(page, ".monaco-sash.horizontal", box.x + box.width / 2, box.y);
  await dragSash(page, sash, 0, box.height - height);
}

/** Sets the width of a panel on the right (View: Move Panel Right) by dragging the sash on its left edge. */
export async function resizePanelWidth(page: Page, width: number): Promise<void> {
  const panel = page.locator(".part.panel.right");
  await panel.waitFor({ state: "visible", timeout: defaultUiTimeoutMs });
  const box = await panel.boundingBox();
  if (!box) throw new Error("The panel is not on screen.");
  const sash = await sashNear(page, ".monaco-sash.vertical", box.x, box.y + box.height / 2);
  await dragSash(page, sash, box.width - width, 0);
}

/** The panel's tab of the Conversation Tree's own view container, while it is the one shown. */
export function shownTreePanelTab(page: Page): Locator {
  return page.locator(".part.panel .composite.title .action-item.checked", { hasText: /Conversation Tree/i });
}

/**
 * A roomy layout for looking at (and photographing) the Conversation Tree: the Arbor side bar open,
 * the tree in the panel (where it lives by default), the panel `panelHeight` pixels tall. Shows the
 * panel with "Arbor: Show Conversation Tree" if it is not shown (which selects the leaf). Returns the
 * panel.
 */
export async function showConversationTreeLarge(page: Page, workbench: Workbench, options: { panelHeight?: number } = {}): Promise<Locator> {
  await workbench.openViewContainer("Arbor");
  const tab = shownTreePanelTab(page);
  if (!(await tab.isVisible())) await workbench.runCommand("Arbor: Show Conversation Tree");
  await tab.waitFor({ state: "visible", timeout: defaultUiTimeoutMs });
  await resizePanel(page, options.panelHeight ?? 420);
  return page.locator(".part.panel");
}
