/**
 * A loopback proxy in front of code-server that gives every webview an origin of its own, as desktop
 * VS Code does (`vscode-webview://<id>`). code-server serves webviews from the workbench's origin,
 * where all of them share one service-worker scope and a view can stay blank for good (see
 * /work/shared/notes/real-vscode-testing.md). Through this proxy the workbench opens as
 * `http://arbor.localhost:PORT/` and its `webviewEndpoint` becomes `http://{{uuid}}.arbor.localhost:PORT/...`:
 * chromium sends every `*.localhost` name to this machine and treats it as a secure context, so each
 * webview's service worker lives on a host of its own. HTTP and WebSocket upgrades pass through.
 */
import * as http from "node:http";
import * as net from "node:net";

/** The proxy's own host name; each webview gets `<uuid>.` in front of it. */
export const proxyHost = "arbor.localhost";

export interface OriginProxy {
  readonly port: number;
  /** `http://arbor.localhost:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

/** The workbench page with its webviews sent to hosts of their own, and its CSP letting them in. */
function rewriteWorkbench(html: string, port: number, requestPath: string): string {
  return html.replace(/&quot;webviewEndpoint&quot;:&quot;(.*?)&quot;/, (_whole, endpoint: string) => {
    const path = new URL(endpoint.replace(/&amp;/g, "&"), `http://${proxyHost}:${port}${requestPath}`).pathname;
    return `&quot;webviewEndpoint&quot;:&quot;http://{{uuid}}.${proxyHost}:${port}${path}&quot;`;
  });
}

/** Starts the proxy for code-server on 127.0.0.1:`targetPort`. */
export async function startOriginProxy(targetPort: number): Promise<OriginProxy> {
  let port = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    // Plain bodies, so that the workbench page can be rewritten.
    delete headers["accept-encoding"];
    const upstream = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers }, (response) => {
      const type = String(response.headers["content-type"] ?? "");
      const outHeaders = { ...response.headers };
      const csp = outHeaders["content-security-policy"];
      if (typeof csp === "string") outHeaders["content-security-policy"] = csp.replace("frame-src 'self'", `frame-src 'self' http://*.${proxyHost}:${port}`);
      if (!type.includes("text/html")) {
        res.writeHead(response.statusCode ?? 502, outHeaders);
        response.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const html = Buffer.concat(chunks).toString("utf8");
        const body = html.includes("vscode-workbench-web-configuration") ? rewriteWorkbench(html, port, req.url ?? "/") : html;
        delete outHeaders["content-length"];
        res.writeHead(response.statusCode ?? 502, outHeaders);
        res.end(body);
      });
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(targetPort, "127.0.0.1", () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    sockets.add(socket).add(upstream);
    const end = () => {
      socket.destroy();
      upstream.destroy();
      sockets.delete(socket);
      sockets.delete(upstream);
    };
    socket.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  port = (server.address() as net.AddressInfo).port;
  return {
    port,
    origin: `http://${proxyHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
