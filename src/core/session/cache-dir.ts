import { homedir } from "node:os";
import { join } from "node:path";

/** Arbor's own cache folder (never Pi's): `$XDG_CACHE_HOME/arbor`, else `~/.cache/arbor`. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), ".cache");
  return join(base, "arbor");
}
