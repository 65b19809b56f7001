import { constants, promises as fs } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";

async function sameContent(a: string, b: string): Promise<boolean> {
  try {
    const [x, y] = await Promise.all([fs.readFile(a), fs.readFile(b)]);
    return x.equals(y);
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return fs.stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Where an imported session file goes in `dir`: the file itself when it is already there, its own
 * name when free (or holding the same bytes), else the name with a numbered suffix. An import never
 * overwrites a different session that happens to share the name.
 */
export async function chooseImportDestination(source: string, dir: string): Promise<string> {
  const from = resolve(source);
  if (dirname(from) === resolve(dir)) return from;
  const ext = extname(from);
  const stem = basename(from, ext);
  for (let n = 0; n < 1000; n++) {
    const candidate = join(dir, n === 0 ? `${stem}${ext}` : `${stem}-imported-${n}${ext}`);
    if (!(await exists(candidate)) || (await sameContent(from, candidate))) return candidate;
  }
  throw new Error(`Could not find a free file name in ${dir} for ${basename(from)}.`);
}

/** Copies the source to the chosen destination unless it is already there; never overwrites. */
export async function copyForImport(source: string, destination: string): Promise<void> {
  if (resolve(source) === resolve(destination)) return;
  await fs.mkdir(dirname(destination), { recursive: true });
  if (await exists(destination)) return; // same bytes, as chooseImportDestination checked
  await fs.copyFile(source, destination, constants.COPYFILE_EXCL);
}
