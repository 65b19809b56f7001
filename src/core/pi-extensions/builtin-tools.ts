/**
 * Pi's tool factories for extensions (`createReadTool(cwd)`, `createBashTool(cwd)`, ...), made from
 * Arbor's own tools. An extension wraps or re-registers them (tool overrides, custom renderers); a
 * call runs Arbor's tool with Pi's calling convention: `execute(toolCallId, params, signal,
 * onUpdate)` resolves with `{ content, details }` and throws when the tool failed.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { spawn } from "node:child_process";
import { DEFAULT_OUTPUT_LIMITS } from "../agent/output/output-limits";
import {
  createBashTool as arborBash,
  createEditTool as arborEdit,
  createFindTool as arborFind,
  createGrepTool as arborGrep,
  createLsTool as arborLs,
  createReadTool as arborRead,
  createWriteTool as arborWrite,
} from "../agent/tools";
import type { AgentTool } from "../agent/tools/tool";
import type { BashOperations } from "../agent/hook-events";
import { currentToolScope } from "./tool-scope";

/** A tool in Pi's shape (what `registerTool` takes and the factories return). */
export interface PiTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  promptSnippet?: string;
  promptGuidelines?: string[];
  prepareArguments?: (args: unknown) => unknown;
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    onUpdate?: (partial: { content: { type: string; text?: string }[]; details?: unknown }) => void,
    ctx?: unknown,
  ): Promise<{ content: { type: string; text?: string }[]; details?: unknown; isError?: boolean }>;
  [key: string]: unknown;
}

/** Options Pi's factories take; Arbor honours the bash spawn hook and ignores operations it cannot swap. */
interface FactoryOptions {
  spawnHook?: (input: { command: string; cwd: string; env: NodeJS.ProcessEnv }) => { command: string; cwd: string; env: NodeJS.ProcessEnv };
  [key: string]: unknown;
}

/**
 * What a Pi-shaped tool made from one of Arbor's tools carries of its safety rules, under a symbol
 * so that an extension that spreads the tool into one of its own (`{ ...createWriteTool(cwd), name:
 * "save" }`) keeps them: its calls still ask as the built-in's do (see adaptPiTool). Only the marks
 * that make a call ask travel this way; read-only, which lets a tool run in Restricted Mode, does not.
 */
export const ARBOR_TOOL_SAFETY = Symbol.for("arbor.toolSafety");

/** The safety marks a Pi-shaped tool carries. */
export interface CarriedSafety {
  runsShell?: boolean;
  writesFile?: AgentTool["writesFile"];
}

/**
 * Pi-shaped wrapper over one of Arbor's tools. The folder is the one given, except that a tool
 * made with the extension host's `process.cwd()` (never the workspace in VS Code) works in the
 * folder of the session it runs for.
 */
function piShaped(tool: AgentTool, createdWith: string): PiTool {
  const hostCwd = process.cwd();
  const safety: CarriedSafety = { runsShell: tool.runsShell, writesFile: tool.writesFile };
  return {
    [ARBOR_TOOL_SAFETY]: safety,
    name: tool.definition.name,
    label: tool.definition.name,
    description: tool.definition.description,
    parameters: tool.definition.parameters,
    async execute(toolCallId, params, signal, onUpdate) {
      const scope = currentToolScope();
      const cwd = resolve(createdWith) === hostCwd && scope ? scope.cwd : createdWith;
      const outcome = await tool.execute(params ?? {}, {
        cwd,
        toolCallId,
        signal: signal ?? new AbortController().signal,
        limits: scope?.limits ?? DEFAULT_OUTPUT_LIMITS,
        // Outside a session's run there is no workspace trust to go by: no shell.
        allowShell: scope?.allowShell ?? false,
        outputDirectory: scope?.outputDirectory,
        processGroups: scope?.processGroups,
        commandTimeoutMs: scope?.commandTimeoutMs,
        readableRoots: scope?.readableRoots,
        ripgrep: scope?.ripgrep,
        onUpdate: onUpdate ? (text) => onUpdate({ content: [{ type: "text", text }] }) : undefined,
      });
      if (outcome.isError) {
        const text = outcome.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
        throw new Error(text || `The ${tool.definition.name} tool failed.`);
      }
      return { content: outcome.content, details: outcome.details };
    },
  };
}

export function createReadTool(cwd: string): PiTool {
  return piShaped(arborRead(), cwd);
}
export function createWriteTool(cwd: string): PiTool {
  return piShaped(arborWrite(), cwd);
}
export function createEditTool(cwd: string): PiTool {
  return piShaped(arborEdit(), cwd);
}
export function createGrepTool(cwd: string): PiTool {
  return piShaped(arborGrep(), cwd);
}
export function createFindTool(cwd: string): PiTool {
  return piShaped(arborFind(), cwd);
}
export function createLsTool(cwd: string): PiTool {
  return piShaped(arborLs(), cwd);
}

/** `bash`, with Pi's spawn hook (command, cwd and environment adjusted before each run). */
export function createBashTool(cwd: string, options: FactoryOptions = {}): PiTool {
  const tool = piShaped(arborBash(), cwd);
  const hook = options.spawnHook;
  if (!hook) return tool;
  const run = tool.execute;
  return {
    ...tool,
    execute: (id, params, signal, onUpdate, ctx) => {
      const scope = currentToolScope();
      const folder = scope?.cwd ?? cwd;
      const adjusted = hook({ command: String(params.command ?? ""), cwd: folder, env: { ...process.env } });
      // Arbor's shell takes no per-call folder or environment: the hook's changes become a prelude.
      const quote = (v: string): string => `'${v.replace(/'/g, "'\\''")}'`;
      const prelude = [
        ...(adjusted.cwd !== folder ? [`cd ${quote(adjusted.cwd)} || exit 1`] : []),
        ...Object.entries(adjusted.env)
          .filter(([k, v]) => v !== undefined && process.env[k] !== v && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
          .map(([k, v]) => `export ${k}=${quote(v!)}`),
      ];
      return run(id, { ...params, command: [...prelude, adjusted.command].join("\n") }, signal, onUpdate, ctx);
    },
  };
}

/** Pi's set of coding tools. */
export function createCodingTools(cwd: string): PiTool[] {
  return [createReadTool(cwd), createBashTool(cwd), createEditTool(cwd), createWriteTool(cwd)];
}

const fileQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` after every earlier mutation of the same file has finished (symlinked names of one
 * file share a queue), so tools that read, change and write a file never overwrite each other.
 */
export async function withFileMutationQueue<T>(filePath: string, work: () => Promise<T>): Promise<T> {
  const key = await realpath(filePath).catch(() => resolve(filePath));
  const before = fileQueues.get(key) ?? Promise.resolve();
  const mine = before.then(work, work);
  const tail = mine.catch(() => undefined);
  fileQueues.set(key, tail);
  try {
    return await mine;
  } finally {
    if (fileQueues.get(key) === tail) fileQueues.delete(key);
  }
}

/** Pi's local bash backend, for `user_bash` handlers that wrap it. */
export function createLocalBashOperations(): BashOperations {
  return {
    exec: (command, cwd, options) =>
      new Promise((resolveExit, reject) => {
        const child = spawn("/bin/sh", ["-c", command], { cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
        const stop = (): void => {
          try {
            process.kill(process.platform === "win32" ? child.pid! : -child.pid!, "SIGTERM");
          } catch {
            // already gone
          }
        };
        options.signal?.addEventListener("abort", stop, { once: true });
        const timer = options.timeout ? setTimeout(stop, options.timeout * 1000) : undefined;
        child.stdout.on("data", options.onData);
        child.stderr.on("data", options.onData);
        child.once("error", reject);
        child.once("close", (code) => {
          if (timer) clearTimeout(timer);
          options.signal?.removeEventListener("abort", stop);
          resolveExit({ exitCode: code });
        });
      }),
  };
}
