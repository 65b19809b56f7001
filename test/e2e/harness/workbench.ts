/** Page-level helpers for VS Code's web workbench: what a user does, expressed as selectors. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FrameLocator, Locator, Page } from "playwright-core";
import { testResultsDir } from "./paths";

/** How long UI waits may take by default; a cold workbench on a busy 2-core machine is slow. */
export const defaultUiTimeoutMs = 60_000;

/** Light and dark themes that ship with VS Code. */
export const colorThemes = { light: "Default Light Modern", dark: "Default Dark Modern" } as const;

/** The workbench in one browser page. */
export class Workbench {
  constructor(readonly page: Page) {}

  /** Waits for the workbench shell to render. */
  async waitForReady(timeoutMs = defaultUiTimeoutMs): Promise<void> {
    await this.page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: timeoutMs });
  }

  /** The activity-bar item of a view container, by its title. */
  activityBarItem(title: string): Locator {
    return this.page.locator(`.part.activitybar .action-item .action-label[aria-label^="${cssString(title)}"]`).first();
  }

  /**
   * Waits for a view container's activity-bar item. Commands only reach the palette once the remote
   * extension host has scanned the extensions, and this item is the visible sign of that.
   */
  async waitForActivityBarItem(title: string, timeoutMs = defaultUiTimeoutMs): Promise<Locator> {
    const item = this.activityBarItem(title);
    await item.waitFor({ state: "visible", timeout: timeoutMs });
    return item;
  }

  /** Opens a view container from the activity bar and waits for its side bar title. */
  async openViewContainer(title: string, timeoutMs = defaultUiTimeoutMs): Promise<Locator> {
    const item = await this.waitForActivityBarItem(title, timeoutMs);
    const sideBarTitle = this.page.locator(".part.sidebar .composite.title h2");
    if ((await sideBarTitle.textContent().catch(() => ""))?.trim().toLowerCase() !== title.toLowerCase()) await item.click();
    await this.page.locator(".part.sidebar .composite.title h2", { hasText: new RegExp(`^${escapeRegExp(title)}$`, "i") })
      .waitFor({ state: "visible", timeout: timeoutMs });
    return this.page.locator(".part.sidebar");
  }

  /** A view's pane header in the side bar, by the view's name. */
  viewPaneHeader(name: string): Locator {
    return this.page.locator(".part.sidebar .pane-header", { hasText: new RegExp(escapeRegExp(name), "i") }).first();
  }

  /** Runs a command from the palette by its label, as a user would: F1, type, Enter. */
  async runCommand(label: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    await this.page.keyboard.press("F1");
    await input.waitFor({ state: "visible", timeout: timeoutMs });
    await input.fill(`>${label}`);
    const row = this.page.locator(".quick-input-widget .monaco-list-row", { hasText: label }).first();
    await row.waitFor({ state: "visible", timeout: timeoutMs });
    await this.page.keyboard.press("Enter");
  }

  /**
   * The document of the active webview: VS Code nests it two frames deep. With several webviews open,
   * `index` picks one (in DOM order).
   */
  webview(index = 0): FrameLocator {
    return this.page.frameLocator("iframe.webview.ready").nth(index).frameLocator("#active-frame");
  }

  /** Waits for the workbench to show a color theme kind (after a `workbench.colorTheme` change). */
  async waitForThemeKind(kind: keyof typeof colorThemes, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    const selector = kind === "dark" ? ".monaco-workbench.vs-dark" : ".monaco-workbench.vs";
    await this.page.locator(selector).waitFor({ state: "attached", timeout: timeoutMs });
  }

  /** Saves a full-page screenshot to test-results/<name>.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(testResultsDir, { recursive: true });
    const path = join(testResultsDir, `${name.replace(/[^\w.-]+/g, "-")}.png`);
    await this.page.screenshot({ path });
    return path;
  }
}

function cssString(value: string): string {
  return value.replace(/["\\]/g, "\\$&");
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
