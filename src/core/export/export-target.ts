/**
 * Where "Export Session" may write when the path comes from an argument (another extension, a
 * command URI, a task) rather than from the user's save dialog: only an .html/.htm/.md/.markdown
 * file inside the workspace folders or the sessions folders, links resolved (neither a linked
 * folder nor a link at the file itself can lead out), and nowhere at all in Restricted Mode.
 */
import { promises as fs } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { exportFormatOfPath } from "./index";

export class ExportTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportTargetError";
  }
}

export interface ExportTargetRules {
  /** Folders an export given by path may go into (and their subfolders): the workspace's and the sessions folders. */
  roots: readonly string[];
  /** false in Restricted Mode: then only the save dialog chooses where an export goes. */
  trusted: boolean;
}

async function real(path: string): Promise<string | undefined> {
  try {
    return await fs.realpath(path);
  } catch {
    return undefined;
  }
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Checks an export path given as an argument; returns it resolved (the file path to write).
 * Throws ExportTargetError with one clear line when the export must not go there.
 */
export async function assertExportTarget(path: string, rules: ExportTargetRules): Promise<string> {
  if (!rules.trusted) {
    throw new ExportTargetError(`Export Session: in Restricted Mode an export is written only where you choose in the save dialog; refused ${path}`);
  }
  if (!isAbsolute(path)) throw new ExportTargetError(`Export Session: the path must be absolute, not ${path}`);
  const file = resolve(path);
  if (!exportFormatOfPath(file)) throw new ExportTargetError(`Export Session writes only .html, .htm, .md or .markdown files; refused ${file}`);
  const where = rules.roots.length ? rules.roots.join(", ") : "none is open";
  const refuse = () =>
    new ExportTargetError(`Export Session writes a path it is given only inside the workspace or sessions folders (${where}); choose another place in the save dialog. Refused ${file}`);
  const folder = await real(dirname(file));
  if (folder === undefined) throw new ExportTargetError(`Export Session: the folder ${dirname(file)} does not exist`);
  const roots = (await Promise.all(rules.roots.map(real))).filter((r): r is string => r !== undefined);
  if (!roots.some((root) => within(root, folder))) throw refuse();
  const target = join(folder, basename(file));
  let st;
  try {
    st = await fs.lstat(target);
  } catch {
    return file; // a new file
  }
  // Writing follows a link: a link named like an export could point at any file of the user's.
  if (st.isSymbolicLink()) throw new ExportTargetError(`Export Session does not write through a symbolic link; refused ${file}`);
  if (!st.isFile()) throw new ExportTargetError(`Export Session: ${file} is not a regular file`);
  // A second name of a file elsewhere is the same file: writing it writes that one.
  if (st.nlink > 1) throw new ExportTargetError(`Export Session does not write over a file with more than one name (a hard link); refused ${file}`);
  return file;
}
