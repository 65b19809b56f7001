/** Page-level helpers for VS Code's web workbench: what a user does, expressed as selectors. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FrameLocator, Locator, Page } from "playwright-core";
import { testResultsDir } from "./paths";

/** How long UI waits may take by default; a cold workbench on a busy 2-core machine is slow. */
export const defaultUiTimeoutMs = 60_000;

/** Light and dark themes that ship with VS Code, by their `workbench.colorTheme` ids. */
export const colorThemes = { light: "Default Light Modern", dark: "Default Dark Modern" } as const;

/** The same themes as the theme picker labels them. */
const colorThemeLabels = { light: "Light Modern", dark: "Dark Modern" } as const;

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
    // A container with a single view titles itself "<container>: <view>".
    const titlePattern = new RegExp(`^\\s*${escapeRegExp(title)}(:|\\s*$)`, "i");
    if (!titlePattern.test((await sideBarTitle.textContent().catch(() => "")) ?? "")) await item.click();
    await this.page.locator(".part.sidebar .composite.title h2", { hasText: titlePattern }).waitFor({ state: "visible", timeout: timeoutMs });
    return this.page.locator(".part.sidebar");
  }

  /**
   * A view's pane in the side bar, by the view's name. Its header is hidden when it is the container's
   * only view (the container title then reads "<container>: <view>"), so wait for it to be attached.
   */
  viewPane(name: string): Locator {
    return this.page.locator(".part.sidebar .pane", { has: this.page.locator(`.pane-header[aria-label^="${cssString(name)} "]`) }).first();
  }

  /** Runs a command from the palette by its label, as a user would: F1, type, pick the exact entry. */
  async runCommand(label: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    await this.page.keyboard.press("F1");
    await this.pickQuickInput(`>${label}`, label, timeoutMs);
  }

  /** Opens a workspace file with Quick Open (Ctrl+P), as a user would. */
  async openFile(name: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    await this.page.keyboard.press("Control+P");
    await this.pickQuickInput(name, name, timeoutMs);
    await this.page.locator(".part.editor .tab.active", { hasText: name }).waitFor({ state: "visible", timeout: timeoutMs });
  }

  /**
   * Types `filter` into the open quick input and picks the row whose label is exactly `label`
   * (a prefix match could pick "Browse Color Themes" for "Color Theme").
   */
  async pickQuickInput(filter: string, label: string, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: timeoutMs });
    await input.fill(filter);
    const row = this.page.locator(".quick-input-widget .monaco-list-row", {
      has: this.page.locator(".label-name", { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }),
    }).first();
    await row.waitFor({ state: "visible", timeout: timeoutMs });
    await row.click();
  }

  /**
   * Switches the color theme with the theme picker, as a user would (the picker saves it to the user
   * settings), and waits until the workbench shows it. Editing settings.json behind the workbench's
   * back is not picked up live by code-server, so the starting theme goes in the settings instead.
   */
  async switchColorTheme(kind: keyof typeof colorThemes, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    await this.runCommand("Preferences: Color Theme", timeoutMs);
    await this.pickQuickInput(colorThemeLabels[kind], colorThemeLabels[kind], timeoutMs);
    await this.waitForThemeKind(kind, timeoutMs);
  }

  /**
   * The document of a webview: VS Code nests it two frames deep. `extensionId` picks the webviews of
   * one extension (the outer frame's URL names it), `title` the one whose document has that title,
   * `index` one of several (in DOM order).
   */
  webview(options: { readonly extensionId?: string; readonly index?: number; readonly title?: string } = {}): FrameLocator {
    const owner = options.extensionId ? `[src*="extensionId=${encodeURIComponent(options.extensionId)}"]` : "";
    // The page tags each webview frame with its document's title (see tagWebviewFrames in session.ts).
    const titled = options.title ? `[data-webview-title="${cssString(options.title)}"]` : "";
    return this.page.frameLocator(`iframe.webview.ready${owner}${titled}`).nth(options.index ?? 0).frameLocator("#active-frame");
  }

  /** Waits for the workbench to show one of {@link colorThemes}. */
  async waitForThemeKind(kind: keyof typeof colorThemes, timeoutMs = defaultUiTimeoutMs): Promise<void> {
    // The theme's own class appears once its colours are applied (the kind class is there earlier).
    const themeClass = kind === "dark" ? "dark_modern" : "light_modern";
    await this.page.locator(`.monaco-workbench.${kind === "dark" ? "vs-dark" : "vs"}[class*="${themeClass}"]`)
      .waitFor({ state: "attached", timeout: timeoutMs });
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
