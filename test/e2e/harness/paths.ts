/** Where the real-VS-Code test tooling finds things. Every path is absolute. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The repository root: the nearest folder above this file whose package.json is Arbor's. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "arbor") return dir;
    if (dirname(dir) === dir) throw new Error(`No Arbor package.json above ${start}.`);
  }
}

/** The repository root. */
export const repoRoot = findRepoRoot(__dirname);

/** code-server, installed by scripts/setup-vscode.mjs. */
export const codeServerDir = join(repoRoot, "test/vscode/node_modules/code-server");

/** code-server's own command-line entry. */
export const codeServerEntry = join(codeServerDir, "out/node/entry.js");

/** VS Code's server entry inside code-server (accepts --enable-smoke-test-driver). */
export const vscodeServerMain = join(codeServerDir, "lib/vscode/out/server-main.js");

/** The packaged extension, made by `npm run package`. */
export const vsixPath = join(repoRoot, "arbor.vsix");

/** Screenshots and failure artefacts. */
export const testResultsDir = join(repoRoot, "test-results");

/** Debian's chromium; ARBOR_CHROMIUM overrides it. */
export const chromiumPath = process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium";

/** Throws a clear error when the real VS Code or the browser is missing. */
export function assertToolsInstalled(): void {
  if (!existsSync(vscodeServerMain) || !existsSync(codeServerEntry)) {
    throw new Error(`code-server is not installed in ${codeServerDir}: run \`npm run setup:vscode\`.`);
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(`No chromium at ${chromiumPath}: apt-get install -y chromium (or set ARBOR_CHROMIUM).`);
  }
}
