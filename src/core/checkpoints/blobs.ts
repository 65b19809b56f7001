import type { Git } from "./git";

/**
 * Reads many blobs with one `git cat-file --batch` run. Each answer is "<id> <type> <size>\n",
 * the bytes and a newline ("<id> missing\n" for an unknown id).
 */
export async function readBlobs(git: Git, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return blobs;
  const out = (await git.run(["cat-file", "--batch"], { input: `${unique.join("\n")}\n` })).stdout;
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const header = out.subarray(at, eol).toString("utf8").split(" ");
    at = eol + 1;
    if (header[1] === "missing" || header.length < 3) continue;
    const size = Number(header[2]);
    blobs.set(header[0], out.subarray(at, at + size));
    at += size + 1;
  }
  return blobs;
}
