/**
 * Loads the reference implementation (`@mariozechner/pi-coding-agent@0.73.1`, ESM only) from our
 * CommonJS-compiled code.
 *
 * The benchmark imports the package's session-manager module file directly rather than the package
 * index: the index also loads the whole agent (terminal UI, providers, tools), which costs about
 * 80 MB of RSS that has nothing to do with sessions and would flatter our memory ratio. The class
 * is the same one the index re-exports (see `loadReferencePackage` for the check).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent" with { "resolution-mode": "import" };

export type RefSessionManagerClass = typeof PiSessionManager;
export type RefSessionManager = PiSessionManager;
export type RefSessionInfo = Awaited<ReturnType<RefSessionManagerClass["list"]>>[number];

const PACKAGE_NAME = "@mariozechner/pi-coding-agent";

/** The installed package's folder, found by walking up from here (its `exports` map hides deep paths from `require.resolve`). */
export function findReferencePackageDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", PACKAGE_NAME);
    if (fs.existsSync(path.join(candidate, "package.json"))) {
      return candidate;
    }
    if (path.dirname(dir) === dir) {
      throw new Error(`${PACKAGE_NAME} is not installed (looked in every node_modules above ${__dirname}); run npm install`);
    }
  }
}

/** The reference SessionManager class, from its own module file (light: no agent, no UI). */
export async function loadReferenceSessionManager(): Promise<RefSessionManagerClass> {
  const file = path.join(findReferencePackageDir(), "dist", "core", "session-manager.js");
  const mod = (await import(pathToFileURL(file).href)) as { SessionManager?: RefSessionManagerClass };
  if (typeof mod.SessionManager !== "function") {
    throw new Error(`${file} does not export SessionManager: is ${PACKAGE_NAME} still at 0.73.1?`);
  }
  return mod.SessionManager;
}

/** The SessionManager the package index exports; must be the very class `loadReferenceSessionManager` returns. */
export async function loadReferencePackage(): Promise<RefSessionManagerClass> {
  const pi = (await import(PACKAGE_NAME)) as { SessionManager: RefSessionManagerClass };
  const direct = await loadReferenceSessionManager();
  if (pi.SessionManager !== direct) {
    throw new Error(`${PACKAGE_NAME}: the index no longer re-exports dist/core/session-manager.js; fix test/bench/reference.ts`);
  }
  return pi.SessionManager;
}
