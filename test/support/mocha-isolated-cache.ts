/**
 * Loaded by mocha before any test (see .mocharc.json): Arbor's cache (listing and reopen indexes)
 * goes to a fresh folder for this run, never to the user's own cache, and is removed afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const cache = mkdtempSync(join(tmpdir(), "arbor-test-cache-"));
process.env.XDG_CACHE_HOME = cache;
process.on("exit", () => rmSync(cache, { recursive: true, force: true }));
