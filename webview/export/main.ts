/**
 * Entry of the exported page's script (dist/export.js, inlined into every HTML export and allowed
 * by its hash). Reads the session JSON from its data element, checks it, and draws the page.
 */
import { EXPORT_APP_ELEMENT_ID, EXPORT_DATA_ELEMENT_ID, parseExportPageData } from "../../src/core/export/page-data";
import { el } from "../shared/dom";
import { ExportPage } from "./page";

function fail(root: HTMLElement, message: string): void {
  root.replaceChildren(el("p", "load-error", `This export cannot be shown: ${message}.`));
}

function start(): void {
  const root = document.getElementById(EXPORT_APP_ELEMENT_ID) ?? document.body;
  const source = document.getElementById(EXPORT_DATA_ELEMENT_ID)?.textContent;
  if (!source) return fail(root, "the session data is missing");
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (err) {
    return fail(root, `the session data is not valid JSON (${(err as Error).message})`);
  }
  const data = parseExportPageData(raw);
  if (typeof data === "string") return fail(root, data);
  ExportPage.mount(root, data);
}

start();
