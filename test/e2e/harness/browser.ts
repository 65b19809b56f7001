/** Debian's chromium driven by playwright-core: no browser download, nothing outside 127.0.0.1. */
import { Browser, chromium } from "playwright-core";
import { assertToolsInstalled, chromiumPath } from "./paths";
import { Sandbox } from "./sandbox";

/** Flags that keep chromium quiet, offline and happy in a container. */
export const chromiumFlags: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
  "--disable-features=Translate,MediaRouter,OptimizationHints",
  // The webviews' own hosts (<uuid>.arbor.localhost, see origin-proxy.ts) go to this machine's IPv4 loopback.
  "--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1",
];

/** Launches headless chromium with the sandbox's environment. Headed when ARBOR_HEADED=1. */
export async function launchChromium(sandbox: Sandbox): Promise<Browser> {
  assertToolsInstalled();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(sandbox.env)) if (value !== undefined) env[key] = value;
  return chromium.launch({
    executablePath: chromiumPath,
    headless: process.env.ARBOR_HEADED !== "1",
    args: [...chromiumFlags],
    env,
  });
}
