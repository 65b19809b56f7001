/** A page entry for the markdown tests: exposes the shared renderer on `window.__md`. */
import { imageElement, markdownToSafeHtml, renderMarkdown } from "../../webview/shared/markdown";
import { slicesSettled } from "../../webview/shared/slices";

(window as unknown as Record<string, unknown>).__md = { markdownToSafeHtml, renderMarkdown, imageElement, slicesSettled };
