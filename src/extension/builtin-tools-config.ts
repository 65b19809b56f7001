import { join } from "node:path";
import * as vscode from "vscode";
import { BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS, ripgrepLocator, type RipgrepLocator } from "../core/agent/tools";
import { SECTION } from "./settings";

/**
 * Where VS Code keeps the ripgrep it ships (its search uses it): under the application root, in
 * `node_modules` or, in packaged builds, `node_modules.asar.unpacked`; older builds named the
 * package `vscode-ripgrep`.
 */
export function vscodeRipgrepCandidates(appRoot: string = vscode.env.appRoot, platform = process.platform): string[] {
  const binary = platform === "win32" ? "rg.exe" : "rg";
  return ["node_modules", "node_modules.asar.unpacked"].flatMap((modules) => [
    join(appRoot, modules, "@vscode", "ripgrep", "bin", binary),
    join(appRoot, modules, "vscode-ripgrep", "bin", binary),
  ]);
}

/** ripgrep for the `grep` and `find` tools: VS Code's own copy, else `rg` on the PATH. */
export function vscodeRipgrep(): RipgrepLocator {
  return ripgrepLocator(() => vscodeRipgrepCandidates());
}

/**
 * The built-in tools `arbor.tools.active` leaves out (as Pi's `--tools` chooses its built-in tools).
 * Extension tools are not affected. A value that is not a list of names means the default.
 */
export function inactiveBuiltinTools(): string[] {
  const value = vscode.workspace.getConfiguration(SECTION).get<unknown>("tools.active");
  const active = Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : DEFAULT_ACTIVE_TOOLS;
  return BUILTIN_TOOL_NAMES.filter((name) => !active.includes(name));
}
