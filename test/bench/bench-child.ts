/**
 * One measurement in a fresh process (forked by bench.ts with --expose-gc): the task comes as
 * JSON in argv[2], the reply goes back over IPC. A fresh process per measurement keeps peak RSS
 * and JIT warm-up from leaking between implementations.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type {
  AppendResult,
  CheckoutMeasurement,
  ChildReply,
  ChildResult,
  ChildTask,
  FloorResult,
  ListResult,
  OpenResult,
  PrimeResult,
} from "./bench-protocol";
import { listSameFieldsTheReferenceWay } from "./list-same-fields";
import { assistantMessage, MODELS, toolCall, toolResult, userMessage } from "./content-messages";
import { EngineUnavailable, loadEngine } from "./implementations";
import { digestOf, snapshotMemory, timed, timedSync } from "./measure";
import { Rng } from "./rng";
import type { StoredMessage } from "../../src/core/session/types";

/** Results kept reachable until the process ends, so that memory snapshots see them alive. */
const keepAlive: unknown[] = [];

async function measureFloor(file: string): Promise<FloorResult> {
  const baseline = snapshotMemory();
  const { value: entries, ms } = await timed(async () => {
    const text = await fs.promises.readFile(file, "utf8");
    const parsed: unknown[] = [];
    for (const line of text.split("\n")) {
      if (line.length > 0) {
        parsed.push(JSON.parse(line));
      }
    }
    return parsed;
  });
  keepAlive.push(entries);
  return { kind: "floor", readParseMs: ms, lines: entries.length, baseline, afterParse: snapshotMemory() };
}

async function measureOpen(task: Extract<ChildTask, { kind: "open" }>): Promise<OpenResult> {
  const engine = await loadEngine(task.impl);
  const baseline = snapshotMemory();
  const { value: session, ms: openMs } = await timed(() => engine.openWithTree(task.file, task.indexDir));
  keepAlive.push(session);
  const afterOpen = snapshotMemory();

  const leafId = session.getLeafId();
  const leafFirst = timedSync(() => session.buildSessionContext());
  const leafRepeat = timedSync(() => session.buildSessionContext());
  const checkouts: CheckoutMeasurement[] = [];
  for (const id of task.targets) {
    const first = timedSync(() => {
      session.branch(id);
      return session.buildSessionContext();
    });
    const repeat = timedSync(() => {
      session.branch(id);
      return session.buildSessionContext();
    });
    checkouts.push({ id, ms: first.ms, repeatMs: repeat.ms, messages: first.value.messages.length, digest: digestOf(first.value) });
  }

  // The peak of the work both engines do (open, contexts, checkouts); ours' every-row summaries come after.
  const afterCheckouts = snapshotMemory();
  const ids = session.treeIdsInPreorder();
  const allSummariesMs = session.allSummaries ? timedSync(() => session.allSummaries!()).ms : undefined;
  const result: OpenResult = {
    kind: "open",
    openMs,
    indexUse: session.indexUse,
    allSummariesMs,
    treeNodes: ids.length,
    treeRoots: session.treeRootCount(),
    treeDigest: digestOf(ids.join(",")),
    baseline,
    afterOpen,
    afterCheckouts,
    leafContextMs: leafFirst.ms,
    leafContextRepeatMs: leafRepeat.ms,
    leafId,
    leafMessages: leafFirst.value.messages.length,
    leafDigest: digestOf(leafFirst.value),
    checkouts,
  };
  await session.close();
  return result;
}

/** `count` messages like a running agent appends them (prompt, tool rounds, answers), built before timing. */
function messagesToAppend(seed: number, count: number): StoredMessage[] {
  const rng = new Rng(seed);
  const model = MODELS[0];
  const messages: StoredMessage[] = [];
  let now = Date.UTC(2026, 0, 1);
  while (messages.length < count) {
    now += rng.int(1_000, 60_000);
    messages.push(userMessage(rng, now));
    for (let round = rng.int(0, 4); round > 0 && messages.length < count; round--) {
      const call = toolCall(rng);
      messages.push(assistantMessage(rng, { model, contextTokens: 40_000, timestamp: (now += 5_000), toolCalls: [call], stopReason: "toolUse" }));
      messages.push(toolResult(rng, call, (now += 800)));
    }
    messages.push(assistantMessage(rng, { model, contextTokens: 42_000, timestamp: (now += 9_000), toolCalls: [], stopReason: "stop" }));
  }
  return messages.slice(0, count);
}

function countLines(file: string): number {
  const buffer = fs.readFileSync(file);
  let lines = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) {
    lines++;
  }
  return lines;
}

async function measureAppend(task: Extract<ChildTask, { kind: "append" }>): Promise<AppendResult> {
  const engine = await loadEngine(task.impl);
  const messages = messagesToAppend(task.seed, task.count);
  const workDir = fs.mkdtempSync(path.join(path.dirname(task.file), `append-${task.impl}-`));
  const copy = path.join(workDir, path.basename(task.file));
  try {
    fs.copyFileSync(task.file, copy);
    const linesBefore = countLines(copy);
    const { value: session, ms: openMs } = await timed(() => engine.openWritable(copy));
    const { ms: appendMs } = await timed(async () => {
      for (const message of messages) {
        session.appendMessage(message);
      }
      await session.flush();
    });
    await session.close();
    return { kind: "append", openMs, appendMs, count: messages.length, linesAdded: countLines(copy) - linesBefore };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** Lists `dir` once; the parent decides whether an index may exist (see bench-list.ts). */
async function measureList(task: Extract<ChildTask, { kind: "list" }>): Promise<ListResult> {
  const engine = await loadEngine(task.impl);
  const { value, ms } = await timed(() => engine.list(task.cwd, task.dir));
  return { kind: "list", ms, sessions: value.length, digest: digestOf(value), sample: value.slice(0, 3) };
}

/** Opens once, untimed, so that the next open finds the reopen index. */
async function prime(task: Extract<ChildTask, { kind: "prime" }>): Promise<PrimeResult> {
  const engine = await loadEngine("ours");
  const session = await engine.openWithTree(task.file, task.indexDir);
  await session.close();
  return { kind: "prime", indexUse: session.indexUse ?? "?" };
}

async function measureListSameFields(task: Extract<ChildTask, { kind: "list-same-fields" }>): Promise<ListResult> {
  const { value, ms } = await timed(() => listSameFieldsTheReferenceWay(task.dir));
  return { kind: "list-same-fields", ms, sessions: value.length, digest: digestOf(value), sample: value.slice(0, 3) };
}

function run(task: ChildTask): Promise<ChildResult> {
  switch (task.kind) {
    case "floor": return measureFloor(task.file);
    case "open": return measureOpen(task);
    case "prime": return prime(task);
    case "append": return measureAppend(task);
    case "list": return measureList(task);
    case "list-same-fields": return measureListSameFields(task);
  }
}

async function main(): Promise<void> {
  let reply: ChildReply;
  try {
    reply = { ok: true, result: await run(JSON.parse(process.argv[2] ?? "null") as ChildTask) };
  } catch (error) {
    const unavailable = error instanceof EngineUnavailable;
    reply = { ok: false, unavailable, error: error instanceof Error ? (unavailable ? error.message : error.stack ?? error.message) : String(error) };
  }
  if (!process.send) {
    console.log(JSON.stringify(reply, null, 2));
    return;
  }
  process.send(reply, () => process.exit(0));
}

void main();
