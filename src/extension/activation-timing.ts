/**
 * What Arbor's activation costs the window: the evaluation of dist/extension.js (its banner and footer,
 * written by scripts/build.mjs, take the time before and after the bundle's code runs) and the call to
 * `activate`. Logged once per activation; `npm run bench:vscode` reads the line from Arbor's log.
 */

declare const __arborModuleStart: number | undefined;
declare const __arborModuleEnd: number | undefined;
declare const __arborModuleCpu: NodeJS.CpuUsage | undefined;

/**
 * Milliseconds, rounded to 0.1 ms; the module's times are undefined outside the bundle (unit tests).
 * Both steps run synchronously on the extension host's thread, so the process's CPU time over each is
 * theirs (plus the garbage collector's helpers): on a busy machine the wall time also counts the time
 * spent waiting for a core, and the CPU time says what Arbor itself cost.
 */
export interface ActivationTiming {
  readonly moduleEvaluationMs: number | undefined;
  readonly moduleEvaluationCpuMs: number | undefined;
  readonly activateMs: number;
  readonly activateCpuMs: number;
}

/** The log line's prefix, which the bench looks for. */
export const ACTIVATION_LOG_PREFIX = "activation timing:";

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** Starts timing `activate`; the returned function ends it and says what both took. */
export function startActivationTiming(now: () => number = () => performance.now(), cpu: (since?: NodeJS.CpuUsage) => NodeJS.CpuUsage = (since) => process.cpuUsage(since)): () => ActivationTiming {
  const started = now();
  const cpuStarted = cpu();
  return () => {
    const inBundle = typeof __arborModuleStart === "number" && typeof __arborModuleEnd === "number" && typeof __arborModuleCpu === "object";
    const spent = cpu(cpuStarted);
    return {
      moduleEvaluationMs: inBundle ? round(__arborModuleEnd - __arborModuleStart) : undefined,
      moduleEvaluationCpuMs: inBundle ? round(cpuMs(__arborModuleCpu)) : undefined,
      activateMs: round(now() - started),
      activateCpuMs: round(cpuMs(spent)),
    };
  };
}

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** The line written to Arbor's log: `activation timing: {"moduleEvaluationMs":…,"activateMs":…}`. */
export function activationLogLine(timing: ActivationTiming): string {
  return `${ACTIVATION_LOG_PREFIX} ${JSON.stringify(timing)}`;
}
