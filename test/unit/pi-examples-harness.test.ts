/**
 * Shared set-up for the Pi extension tests (no tests of its own): a runtime whose sessions load
 * extension files (the reference package's examples, unchanged, or files a test writes) through
 * Arbor's loader, with a headless UI, over the scripted model server.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentSessionConfig } from "../../src/core/agent/agent-session";
import { discoverExtensions } from "../../src/core/pi-extensions/discovery";
import { PiExtensionSet } from "../../src/core/pi-extensions/pi-extension-set";
import type { AgentSessionRuntime } from "../../src/core/runtime/agent-session-runtime";
import { ExtensionHost } from "../../src/core/runtime/extension-host";
import { HeadlessUi } from "../support/headless-ui";
import { startRuntime, type AgentKit } from "./agent-harness.test";

/** The reference package's example extensions (loaded from node_modules, never copied into the repo). */
export const EXAMPLES_DIR = join(__dirname, "../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

export interface PiKit {
  runtime: AgentSessionRuntime;
  set: PiExtensionSet;
  ui: HeadlessUi;
  extensions: ExtensionHost;
  agentDir: string;
  /** Errors reported by extensions, as "extension/event: message". */
  reports: string[];
}

/** Copies example files (unchanged) into a fresh agent directory's extensions/ and starts a runtime that loads them. */
export async function startWithExamples(
  kit: AgentKit,
  examples: string[],
  options: { timeoutMs?: number; extraFiles?: Record<string, string>; /** Extra session configuration (a tool policy...). */ session?: AgentSessionConfig } = {},
): Promise<PiKit> {
  const agentDir = join(kit.root, "agent");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  for (const name of examples) copyFileSync(join(EXAMPLES_DIR, name), join(agentDir, "extensions", name));
  const { writeFileSync } = await import("node:fs");
  for (const [name, text] of Object.entries(options.extraFiles ?? {})) writeFileSync(join(agentDir, "extensions", name), text);
  const extensions = new ExtensionHost(options.timeoutMs);
  const reports: string[] = [];
  extensions.onDidReportError((r) => reports.push(`${r.extension}/${r.event}: ${r.error.message}`));
  const ui = new HeadlessUi();
  const set = new PiExtensionSet({
    extensions,
    discover: (cwd) => discoverExtensions({ agentDir, cwd, trusted: true }),
    ui,
    agentDir: () => agentDir,
    cacheDir: false,
    requestShutdown: () => undefined,
  });
  const runtime = await startRuntime(kit, { extensions, sessionExtensions: set, ...(options.session ? { configureSession: () => kit.config(options.session) } : {}) });
  return { runtime, set, ui, extensions, agentDir, reports };
}
