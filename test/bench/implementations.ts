/**
 * The two session engines behind one small interface, so that every measurement runs the same
 * steps on both: Arbor's SessionManager (src/core/session) and the reference package's.
 */
import type { SessionManager as ArborSessionManager } from "../../src/core/session/session-manager";
import type { SessionContext, StoredMessage } from "../../src/core/session/types";
import type { Implementation, NormalizedSessionInfo } from "./bench-protocol";
import { loadReferenceSessionManager, RefSessionManager } from "./reference";
import { openReferenceStreamed } from "./ref-streamed";

/** A session opened for reading with its tree built. */
export interface OpenedSession {
  /** Ours: how the reopen index was used. */
  indexUse?: string;
  /** Ours: makes every entry's summary (timed by the caller). */
  allSummaries?(): void;
  getLeafId(): string | null;
  branch(id: string): void;
  buildSessionContext(): SessionContext;
  /** Entry ids of the tree in pre-order, for comparing the two trees. */
  treeIdsInPreorder(): string[];
  treeRootCount(): number;
  close(): Promise<void>;
}

export interface WritableSession {
  appendMessage(message: StoredMessage): string;
  /** Resolves when every append is on disk (a no-op for the reference, which writes synchronously). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionEngine {
  readonly name: Implementation;
  /**
   * Opens `file` and builds the tree the UI needs to draw: ref, getTree() (it has no other way);
   * ours, open read-only + the tree index + the summaries of the first screen around the leaf.
   */
  openWithTree(file: string, indexDir?: string): Promise<OpenedSession>;
  openWritable(file: string): Promise<WritableSession>;
  list(cwd: string, dir: string): Promise<NormalizedSessionInfo[]>;
}

/** Rows of the first screen of the tree (summaries made before the tree counts as ready). */
export const FIRST_SCREEN_ROWS = 100;

/** Thrown when an engine (or one of its features) is not there yet: reported, not fatal. */
export class EngineUnavailable extends Error {}

function preorder<N>(roots: readonly N[], idOf: (node: N) => string, childrenOf: (node: N) => readonly N[]): string[] {
  const ids: string[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as N;
    ids.push(idOf(node));
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push(children[i]);
    }
  }
  return ids;
}

/** The fields both listings share, in one shape (`modified` as epoch ms). */
function normalizeInfo(info: Record<string, unknown>): NormalizedSessionInfo {
  const modified = info.modified;
  const file = String(info.path ?? info.file ?? "");
  return {
    file: file.slice(Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\")) + 1),
    id: String(info.id ?? ""),
    name: typeof info.name === "string" ? info.name : undefined,
    messageCount: Number(info.messageCount ?? -1),
    firstMessage: String(info.firstMessage ?? ""),
    modified: modified instanceof Date ? modified.getTime() : typeof modified === "string" ? Date.parse(modified) : Number(modified),
  };
}

export async function loadReferenceEngine(streamed = false): Promise<SessionEngine> {
  const SessionManager = await loadReferenceSessionManager();
  return {
    name: streamed ? "ref-streamed" : "ref",
    async openWithTree(file) {
      const sm: RefSessionManager = streamed ? await openReferenceStreamed(file) : SessionManager.open(file);
      const tree = sm.getTree();
      return {
        getLeafId: () => sm.getLeafId(),
        branch: (id) => sm.branch(id),
        buildSessionContext: () => sm.buildSessionContext() as SessionContext,
        treeIdsInPreorder: () => preorder(tree, (n) => n.entry.id, (n) => n.children),
        treeRootCount: () => tree.length,
        close: async () => undefined,
      };
    },
    async openWritable(file) {
      const sm = SessionManager.open(file);
      return {
        appendMessage: (message) => sm.appendMessage(message),
        flush: async () => undefined,
        close: async () => undefined,
      };
    },
    async list(cwd, dir) {
      const infos = await SessionManager.list(cwd, dir);
      return infos.map((info) => normalizeInfo(info as unknown as Record<string, unknown>));
    },
  };
}

type ArborModule = typeof import("../../src/core/session/session-manager");

function requireArbor(): ArborModule {
  try {
    // A runtime require (not an import) so that a missing or broken build is reported, not fatal.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("../../src/core/session/session-manager") as ArborModule;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new EngineUnavailable(
      `Arbor's SessionManager is not available (${reason}). It lives in src/core/session/session-manager.ts; run \`npm run compile-tests\` once it exists.`);
  }
}

export async function loadArborEngine(): Promise<SessionEngine> {
  const { SessionManager } = requireArbor();
  if (typeof SessionManager?.open !== "function") {
    throw new EngineUnavailable("src/core/session/session-manager.ts does not export SessionManager.open yet");
  }
  const close = async (sm: ArborSessionManager) => {
    await sm.close();
  };
  return {
    name: "ours",
    async openWithTree(file, indexDir) {
      const sm = await SessionManager.open(file, { readOnly: true, index: indexDir === undefined ? false : { dir: indexDir } });
      const tree = sm.getTreeIndex();
      const order = tree.preorder();
      // The first screen: the rows around the leaf, as a view that opens at the leaf draws them.
      const leaf = sm.getLeafId();
      const leafPos = leaf === null ? -1 : tree.positionOf(leaf);
      const at = Math.max(0, order.indexOf(leafPos) - FIRST_SCREEN_ROWS / 2);
      tree.summariesAt(order.subarray(at, at + FIRST_SCREEN_ROWS));
      return {
        indexUse: sm.getIndexUse(),
        allSummaries: () => void sm.getSummaries(),
        getLeafId: () => sm.getLeafId(),
        branch: (id) => sm.branch(id),
        buildSessionContext: () => sm.buildSessionContext(),
        treeIdsInPreorder: () => Array.from(order, (p) => tree.idAt(p)),
        treeRootCount: () => tree.roots().length,
        close: async () => {
          await sm.whenIndexSaved();
          await close(sm);
        },
      };
    },
    async openWritable(file) {
      const sm = await SessionManager.open(file);
      // The reopen index is saved in the background after an open: not part of what appends cost.
      await sm.whenIndexSaved();
      return {
        appendMessage: (message) => sm.appendMessage(message),
        flush: () => sm.flush(),
        close: () => close(sm),
      };
    },
    async list(cwd, dir) {
      if (typeof SessionManager.list !== "function") {
        throw new EngineUnavailable("SessionManager.list(cwd, { sessionDir }) is missing from src/core/session/session-manager.ts");
      }
      // The index goes to its default place ($XDG_CACHE_HOME/arbor); bench-list.ts points that into a sandbox.
      const infos = await SessionManager.list(cwd, { sessionDir: dir });
      return infos.map((info) => normalizeInfo(info as unknown as Record<string, unknown>));
    },
  };
}

export function loadEngine(name: Implementation): Promise<SessionEngine> {
  return name === "ours" ? loadArborEngine() : loadReferenceEngine(name === "ref-streamed");
}
