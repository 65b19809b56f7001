import { promises as fs } from "node:fs";
import * as path from "node:path";
import { CHECKPOINT_CUSTOM_TYPE, snapshotsInSessionText } from "./session-checkpoints";

/**
 * Every snapshot id that session files under `folders` refer to (`*.jsonl`, two levels deep: Pi's
 * per-workspace folders and a flat folder). A file that cannot be read keeps nothing alive, so the
 * caller should only prune when every folder was readable (`complete`).
 */
export async function referencedSnapshots(folders: readonly string[]): Promise<{ ids: Set<string>; complete: boolean }> {
  const ids = new Set<string>();
  let complete = true;
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") complete = false;
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < 2) await visit(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) {
        try {
          const text = await fs.readFile(full, "utf8");
          if (text.includes(CHECKPOINT_CUSTOM_TYPE)) for (const id of snapshotsInSessionText(text)) ids.add(id);
        } catch {
          complete = false;
        }
      }
    }
  };
  for (const folder of folders) await visit(folder, 0);
  return { ids, complete };
}
