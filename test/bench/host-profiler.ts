/**
 * CPU profiles of VS Code's extension host during a benchmark step (the bench's `--profile` flag).
 * The host is found among this machine's processes by a marker in its environment, asked to open
 * its inspector (SIGUSR1, as `node inspect -p` does), and driven over the DevTools protocol. The
 * profile is written as a .cpuprofile (Chrome DevTools and VS Code open it), with the heaviest
 * functions printed.
 */
import * as fs from "node:fs";

/** Node's WebSocket (global from Node 22; Node 20 needs --experimental-websocket). */
interface Socket {
  send(data: string): void;
  close(): void;
  addEventListener(type: "open" | "error", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}
type SocketClass = new (url: string) => Socket;

interface CdpAnswer {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

export class HostProfiler {
  private next = 1;
  private readonly waiting = new Map<number, (answer: CdpAnswer) => void>();

  private constructor(private readonly socket: Socket) {
    socket.addEventListener("message", (event) => {
      const answer = JSON.parse(String(event.data)) as CdpAnswer;
      if (answer.id !== undefined) this.waiting.get(answer.id)?.(answer);
    });
  }

  /**
   * Opens the inspector of the extension host whose environment holds `marker` (a `NAME=value`
   * line) and connects to it on Node's default inspector port.
   */
  static async attach(marker: string, timeoutMs = 60_000): Promise<HostProfiler> {
    const WebSocketClass = (globalThis as { WebSocket?: SocketClass }).WebSocket;
    if (!WebSocketClass) throw new Error("--profile needs Node's WebSocket: run with node --experimental-websocket (Node 20) or Node 22");
    const deadline = Date.now() + timeoutMs;
    let pid: number | undefined;
    while (pid === undefined) {
      for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try {
          const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
          if (!cmdline.includes("--type=extensionHost")) continue;
          if (fs.readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(marker)) pid = Number(name);
        } catch {
          // gone, or not ours to read
        }
      }
      if (pid === undefined) {
        if (Date.now() > deadline) throw new Error(`no extension host with ${marker} in its environment`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    process.kill(pid, "SIGUSR1");
    const port = 9229;
    for (;;) {
      try {
        const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
        if (targets[0]) {
          const socket = new WebSocketClass(targets[0].webSocketDebuggerUrl);
          await new Promise<void>((resolve, reject) => {
            socket.addEventListener("open", () => resolve());
            socket.addEventListener("error", () => reject(new Error("the inspector refused the connection")));
          });
          const profiler = new HostProfiler(socket);
          // Another process may hold the port (an earlier run's host): profile only this one.
          const answer = (await profiler.send("Runtime.evaluate", { expression: "process.pid" })) as { result: { value: unknown } };
          if (answer.result.value !== pid) {
            socket.close();
            throw new Error(`port ${port} is held by process ${String(answer.result.value)}, not the extension host ${pid}`);
          }
          await profiler.send("Profiler.enable");
          await profiler.send("Profiler.setSamplingInterval", { interval: 500 });
          return profiler;
        }
      } catch (err) {
        if (err instanceof Error && err.message.startsWith("port ")) throw err;
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`no extension host inspector on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (answer) => {
        this.waiting.delete(id);
        if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
        else resolve(answer.result);
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  start(): Promise<unknown> {
    return this.send("Profiler.start");
  }

  /** Stops, writes the profile to `file` and returns its heaviest functions by self time, as lines. */
  async stop(file: string, top = 25): Promise<string[]> {
    const { profile } = (await this.send("Profiler.stop")) as { profile: CpuProfile };
    fs.writeFileSync(file, JSON.stringify(profile));
    const counts = new Map<number, number>();
    for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
    const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    for (const [id, count] of counts) {
      const f = byNode.get(id)!.callFrame;
      const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + count);
    }
    const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
    return [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, c]) => `${(c * msPerSample).toFixed(0).padStart(6)} ms  ${k}`);
  }

  close(): void {
    this.socket.close();
  }
}
