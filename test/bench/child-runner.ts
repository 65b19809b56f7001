/** Starts bench child processes (measurements and generation) and collects what they report. */
import { fork } from "node:child_process";
import * as path from "node:path";
import type { ChildReply, ChildResult, ChildTask } from "./bench-protocol";

/** A measurement that could not run; `unavailable` means a missing engine or feature, not a crash. */
export class MeasurementFailed extends Error {
  constructor(message: string, readonly unavailable: boolean) {
    super(message);
  }
}

/** Environment overrides that point HOME, the Pi agent dir and the cache dir into `home`. */
export function sandboxEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    PI_CODING_AGENT_DIR: path.join(home, ".pi", "agent"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
  };
}

/** Runs one task in a fresh `node --expose-gc` process and returns its result. */
export function runChild<K extends ChildResult["kind"]>(
  task: ChildTask & { kind: K },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Extract<ChildResult, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "bench-child.js"), [JSON.stringify(task)], {
      // The streamed reference holds every entry of a file over 1 GB as objects: give it room.
      execArgv: ["--expose-gc", ...("impl" in task && task.impl === "ref-streamed" ? ["--max-old-space-size=16384"] : [])],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env,
    });
    let reply: ChildReply | undefined;
    child.on("message", (message) => {
      reply = message as ChildReply;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (reply === undefined) {
        reject(new MeasurementFailed(`bench child for ${task.kind} exited (${signal ?? `code ${code}`}) without a result`, false));
      } else if (!reply.ok) {
        reject(new MeasurementFailed(reply.error, reply.unavailable));
      } else if (reply.result.kind !== task.kind) {
        reject(new MeasurementFailed(`bench child answered ${reply.result.kind} to a ${task.kind} task`, false));
      } else {
        resolve(reply.result as Extract<ChildResult, { kind: K }>);
      }
    });
  });
}

/** Runs the generator script in its own process (it holds a whole session in memory while writing). */
export function runGenerator(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "generate.js"), args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) {
        resolve();
      } else {
        reject(new Error(`generate.js ${args.join(" ")} failed (${signal ?? `code ${code}`})`));
      }
    });
  });
}
