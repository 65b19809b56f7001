import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** How long an exported page stays served (long enough to open it, not to leave a server behind). */
export const PAGE_SERVE_MS = 10 * 60_000;

/** A page served on the loopback address for a while, at an address no one can guess. */
export interface ServedPage {
  /** `http://127.0.0.1:<port>/<token>/<name>`. */
  readonly url: string;
  /** Stops serving (also done when the time is up). */
  dispose(): Promise<void>;
}

/**
 * Serves one exported HTML page on 127.0.0.1, for a browser that cannot read the file where it is
 * (VS Code for the Web, a remote window): VS Code's `asExternalUri` then forwards the address to
 * the user's browser. Only GET of the one random path answers; the page is read by `read` on each
 * request, so that what is served is the file as it is now. The server stops after `lifetimeMs`.
 */
export async function servePage(name: string, read: () => Promise<Uint8Array>, lifetimeMs = PAGE_SERVE_MS): Promise<ServedPage> {
  const token = randomBytes(16).toString("hex");
  const path = `/${token}/${encodeURIComponent(name)}`;
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || req.url !== path) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found");
      return;
    }
    read().then(
      (body) => res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" }).end(body),
      () => res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("The exported page could not be read."),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  let closed: Promise<void> | undefined;
  const dispose = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  const timer = setTimeout(() => void dispose(), lifetimeMs);
  timer.unref();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, dispose };
}
