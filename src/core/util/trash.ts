import { promises as fs } from "node:fs";
import { homedir, platform } from "node:os";
import { basename, join } from "node:path";

/**
 * Moves a file to the user's trash the way the desktop does it (the freedesktop.org trash on
 * Linux, ~/.Trash on macOS), so it can be restored from the file manager. Used where VS Code's own
 * trash support is unavailable (a remote or web extension host). Throws on other platforms.
 */
export async function moveToTrash(path: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<string> {
  const os = platform();
  if (os === "darwin") return moveUnique(path, join(homedir(), ".Trash"));
  if (os !== "linux" && os !== "freebsd" && os !== "openbsd") throw new Error(`No trash available on ${os}`);
  const dataHome = env.XDG_DATA_HOME?.trim() || join(homedir(), ".local", "share");
  const trash = join(dataHome, "Trash");
  await fs.mkdir(join(trash, "files"), { recursive: true });
  await fs.mkdir(join(trash, "info"), { recursive: true });
  const name = await uniqueName(join(trash, "files"), basename(path));
  const stamp = new Date().toISOString().slice(0, 19);
  const info = `[Trash Info]\nPath=${encodeURI(path)}\nDeletionDate=${stamp}\n`;
  await fs.writeFile(join(trash, "info", `${name}.trashinfo`), info, { flag: "wx" });
  try {
    await moveFile(path, join(trash, "files", name));
  } catch (err) {
    await fs.rm(join(trash, "info", `${name}.trashinfo`), { force: true });
    throw err;
  }
  return join(trash, "files", name);
}

async function uniqueName(dir: string, name: string): Promise<string> {
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : `${name}.${i}`;
    try {
      await fs.access(join(dir, candidate));
    } catch {
      return candidate;
    }
  }
}

async function moveUnique(path: string, dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const target = join(dir, await uniqueName(dir, basename(path)));
  await moveFile(path, target);
  return target;
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    await fs.copyFile(from, to);
    await fs.rm(from);
  }
}
