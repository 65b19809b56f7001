/**
 * Typed access to the reference implementation (`@mariozechner/pi-coding-agent@0.73.1`) for
 * differential tests. The package is ESM-only, so it is loaded with a real dynamic `import()`
 * and cached. The types below are written by hand in terms of Arbor's own session types (the
 * package's own types pull in its whole dependency tree): they describe only what tests use.
 *
 * Some functions we compare against are not exported from the package root (its `exports`
 * map allows only "."), so {@link loadReferenceInternals} imports those modules by file URL.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeTempDir } from "./temp-dir";
import type {
  AgentMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  ImageContent,
  LlmMessage,
  SessionContext,
  SessionEntry,
  SessionHeader,
  StoredMessage,
  TextContent,
  Usage,
} from "../../src/core/session/types";

export const REFERENCE_PACKAGE = "@mariozechner/pi-coding-agent";

/** A node of the reference's `getTree()`. */
export interface RefTreeNode {
  entry: SessionEntry;
  children: RefTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

/** The reference's session list item (`SessionManager.list`). */
export interface RefSessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
}

/** An instance of the reference's SessionManager (the public methods tests use). */
export interface RefSessionManager {
  appendMessage(message: StoredMessage): string;
  appendThinkingLevelChange(thinkingLevel: string): string;
  appendModelChange(provider: string, modelId: string): string;
  appendCompaction(summary: string, firstKeptEntryId: string, tokensBefore: number, details?: unknown, fromHook?: boolean): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendSessionInfo(name: string): string;
  appendCustomMessageEntry(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: unknown,
  ): string;
  /** Throws when the target is unknown. `undefined` or "" clears. */
  appendLabelChange(targetId: string, label: string | undefined): string;
  /** Moves the leaf; throws when the id is unknown. */
  branch(branchFromId: string): void;
  resetLeaf(): void;
  branchWithSummary(branchFromId: string | null, summary: string, details?: unknown, fromHook?: boolean): string;
  createBranchedSession(leafId: string): string | undefined;
  newSession(options?: { id?: string; parentSession?: string }): string | undefined;
  setSessionFile(sessionFile: string): void;
  getLeafId(): string | null;
  getLeafEntry(): SessionEntry | undefined;
  getEntry(id: string): SessionEntry | undefined;
  getChildren(parentId: string): SessionEntry[];
  getLabel(id: string): string | undefined;
  getBranch(fromId?: string): SessionEntry[];
  buildSessionContext(): SessionContext;
  getHeader(): SessionHeader | null;
  getEntries(): SessionEntry[];
  getTree(): RefTreeNode[];
  getSessionName(): string | undefined;
  getSessionFile(): string | undefined;
  getSessionId(): string;
  getSessionDir(): string;
  getCwd(): string;
  isPersisted(): boolean;
}

/** The reference's SessionManager factories. */
export interface RefSessionManagerClass {
  create(cwd: string, sessionDir?: string): RefSessionManager;
  open(path: string, sessionDir?: string, cwdOverride?: string): RefSessionManager;
  inMemory(cwd?: string): RefSessionManager;
  continueRecent(cwd: string, sessionDir?: string): RefSessionManager;
  forkFrom(sourcePath: string, targetCwd: string, sessionDir?: string): RefSessionManager;
  list(cwd: string, sessionDir?: string): Promise<RefSessionInfo[]>;
}

export interface RefCompactionSettings {
  enabled: boolean;
  reserveTokens: number;
  keepRecentTokens: number;
}

export interface RefFileOps {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export interface RefCutPointResult {
  firstKeptEntryIndex: number;
  turnStartIndex: number;
  isSplitTurn: boolean;
}

/** What the package root exports (the part tests use). */
export interface PiReference {
  CURRENT_SESSION_VERSION: number;
  SessionManager: RefSessionManagerClass;
  buildSessionContext(entries: SessionEntry[], leafId?: string | null, byId?: Map<string, SessionEntry>): SessionContext;
  convertToLlm(messages: AgentMessage[]): LlmMessage[];
  parseSessionEntries(content: string): (SessionEntry | SessionHeader)[];
  migrateSessionEntries(entries: (SessionEntry | SessionHeader)[]): void;
  getLatestCompactionEntry(entries: SessionEntry[]): SessionEntry | null;
  DEFAULT_COMPACTION_SETTINGS: RefCompactionSettings;
  estimateTokens(message: AgentMessage): number;
  calculateContextTokens(usage: Usage): number;
  shouldCompact(contextTokens: number, contextWindow: number, settings: RefCompactionSettings): boolean;
  getLastAssistantUsage(entries: SessionEntry[]): Usage | undefined;
  findTurnStartIndex(entries: SessionEntry[], entryIndex: number, startIndex: number): number;
  findCutPoint(entries: SessionEntry[], startIndex: number, endIndex: number, keepRecentTokens: number): RefCutPointResult;
  collectEntriesForBranchSummary(
    session: { getBranch(id: string): SessionEntry[]; getEntry(id: string): SessionEntry | undefined },
    oldLeafId: string | null,
    targetId: string,
  ): { entries: SessionEntry[]; commonAncestorId: string | null };
  prepareBranchEntries(
    entries: SessionEntry[],
    tokenBudget?: number,
  ): { messages: AgentMessage[]; fileOps: RefFileOps; totalTokens: number };
  serializeConversation(messages: LlmMessage[]): string;
}

/** Reference functions not exported from the package root. */
export interface PiInternals {
  prepareCompaction(
    pathEntries: SessionEntry[],
    settings: RefCompactionSettings,
  ):
    | {
        firstKeptEntryId: string;
        messagesToSummarize: AgentMessage[];
        turnPrefixMessages: AgentMessage[];
        isSplitTurn: boolean;
        tokensBefore: number;
        previousSummary?: string;
        fileOps: RefFileOps;
        settings: RefCompactionSettings;
      }
    | undefined;
  estimateContextTokens(messages: AgentMessage[]): {
    tokens: number;
    usageTokens: number;
    trailingTokens: number;
    lastUsageIndex: number | null;
  };
  createFileOps(): RefFileOps;
  extractFileOpsFromMessage(message: AgentMessage, fileOps: RefFileOps): void;
  computeFileLists(fileOps: RefFileOps): { readFiles: string[]; modifiedFiles: string[] };
  formatFileOperations(readFiles: string[], modifiedFiles: string[]): string;
  bashExecutionToText(message: BashExecutionMessage): string;
  createCustomMessage(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details: unknown,
    timestamp: string,
  ): CustomMessage;
  createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryMessage;
  createCompactionSummaryMessage(summary: string, tokensBefore: number, timestamp: string): CompactionSummaryMessage;
}

let rootModule: Promise<PiReference> | undefined;
let internalModules: Promise<PiInternals> | undefined;

/** The reference package root, loaded once. */
export function loadReference(): Promise<PiReference> {
  rootModule ??= import(REFERENCE_PACKAGE).then((module: unknown) => module as PiReference);
  return rootModule;
}

/** The reference's unexported compaction and message helpers, loaded once. */
export function loadReferenceInternals(): Promise<PiInternals> {
  internalModules ??= (async () => {
    const dist = join(referencePackageDir(), "dist", "core");
    const load = (relative: string): Promise<Record<string, unknown>> =>
      import(pathToFileURL(join(dist, relative)).href) as Promise<Record<string, unknown>>;
    const [compaction, utils, messages] = await Promise.all([
      load("compaction/compaction.js"),
      load("compaction/utils.js"),
      load("messages.js"),
    ]);
    return { ...messages, ...utils, ...compaction } as unknown as PiInternals;
  })();
  return internalModules;
}

/** The installed package's folder, found the way Node looks up packages (the exports map hides its files). */
export function referencePackageDir(): string {
  for (const base of require.resolve.paths(REFERENCE_PACKAGE) ?? []) {
    const dir = join(base, ...REFERENCE_PACKAGE.split("/"));
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`${REFERENCE_PACKAGE} is not installed: run npm install`);
}

/**
 * For a mocha `describe` comparing against the reference: the reference loaded and a temporary folder
 * made before its tests (both read through the returned object), the folder removed after them.
 */
export function referenceFixture(): { readonly pi: PiReference; readonly tmp: { dir: string; cleanup(): void } } {
  let pi: PiReference | undefined;
  let tmp: { dir: string; cleanup(): void } | undefined;
  before(async () => {
    pi = await loadReference();
    tmp = makeTempDir();
  });
  after(() => tmp?.cleanup());
  return {
    get pi() {
      if (!pi) throw new Error("the reference is loaded in before()");
      return pi;
    },
    get tmp() {
      if (!tmp) throw new Error("the temporary folder is made in before()");
      return tmp;
    },
  };
}
