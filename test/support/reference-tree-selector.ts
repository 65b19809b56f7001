/**
 * The reference's own tree selector (Pi's `/tree` component from
 * `@mariozechner/pi-coding-agent@0.73.1`), driven headless: it is built with a session tree, a
 * leaf and a filter mode, given a search query, and asked which entries it shows and under which
 * shown parent. Nothing is drawn; the component decides its rows when it is built and when the
 * query changes, with its own code.
 *
 * The selector keeps its rows in fields that are private in its TypeScript declarations. They are
 * read here, and its query is set the way its key handler sets it (then its own filter runs): typing
 * the query key by key would turn some letters into its shortcuts instead.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionEntry } from "../../src/core/session/types";
import { referencePackageDir, type RefTreeNode } from "./reference";

/** The reference's filter modes. */
export type RefFilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";
export const REF_FILTER_MODES: readonly RefFilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

/** What the reference's selector shows: entry ids in its row order, and each one's shown parent. */
export interface RefSelection {
  ids: string[];
  visibleParent: Map<string, string | null>;
}

interface RefTreeList {
  filteredNodes: { node: RefTreeNode }[];
  searchQuery: string;
  visibleParentMap: Map<string, string | null>;
  applyFilter(): void;
  getSearchableText(node: RefTreeNode): string;
}

interface RefTreeSelector {
  getTreeList(): RefTreeList;
}

type RefTreeSelectorClass = new (
  tree: RefTreeNode[],
  currentLeafId: string | null,
  terminalHeight: number,
  onSelect: (id: string) => void,
  onCancel: () => void,
  onLabelChange?: (id: string, label: string | undefined) => void,
  initialSelectedId?: string,
  initialFilterMode?: RefFilterMode,
) => RefTreeSelector;

let selectorClass: Promise<RefTreeSelectorClass> | undefined;

/** Loads the selector once; its theme must be initialised before a selector can be built. */
function loadSelectorClass(): Promise<RefTreeSelectorClass> {
  selectorClass ??= (async () => {
    const interactive = join(referencePackageDir(), "dist", "modes", "interactive");
    const load = (relative: string): Promise<Record<string, unknown>> =>
      import(pathToFileURL(join(interactive, relative)).href) as Promise<Record<string, unknown>>;
    const theme = await load("theme/theme.js");
    (theme.initTheme as (name: string) => void)("dark");
    const selector = await load("components/tree-selector.js");
    return selector.TreeSelectorComponent as RefTreeSelectorClass;
  })();
  return selectorClass;
}

/** A reusable handle: one loaded selector class, many selections. */
export interface ReferenceTreeSelector {
  select(tree: RefTreeNode[], leafId: string | null, mode: RefFilterMode, query: string): RefSelection;
  /** The text the selector's search matches an entry against (as a node with this label), before lower-casing. */
  searchText(entry: SessionEntry, label?: string): string;
}

export async function loadReferenceTreeSelector(): Promise<ReferenceTreeSelector> {
  const Selector = await loadSelectorClass();
  const noop = (): void => undefined;
  let probe: RefTreeList | undefined;
  return {
    searchText(entry, label) {
      probe ??= new Selector([{ entry, children: [] }], null, 40, noop, noop).getTreeList();
      return probe.getSearchableText({ entry, children: [], label });
    },
    select(tree, leafId, mode, query) {
      const list = new Selector(tree, leafId, 40, noop, noop, undefined, undefined, mode).getTreeList();
      if (query !== "") {
        list.searchQuery = query;
        list.applyFilter();
      }
      const ids = list.filteredNodes.map((flat) => flat.node.entry.id);
      const visibleParent = new Map<string, string | null>();
      for (const id of ids) visibleParent.set(id, list.visibleParentMap.get(id) ?? null);
      return { ids, visibleParent };
    },
  };
}
