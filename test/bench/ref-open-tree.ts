/**
 * The reference's side of the command-line case, as one process: open a session and build its
 * tree (what the reference does before it can show anything). Then, untimed, the digests the
 * bench compares with Arbor's output: the tree in drawing order and the leaf's context.
 *
 * The peak memory counted for the reference is its peak when the tree is ready (the digests after
 * it are bench work). With --stream (a file the reference cannot read itself) the entries come
 * from a bench line reader into the reference's own tree and context code: results only.
 *
 *   node out/test/bench/ref-open-tree.js FILE [--stream]
 */
import { digestOf } from "./measure";
import { loadReferenceSessionManager, type RefSessionManager } from "./reference";
import { openReferenceStreamed } from "./ref-streamed";

interface Node {
  entry: { id: string };
  children: Node[];
}

async function main(file: string, streamed: boolean): Promise<void> {
  const SessionManager = await loadReferenceSessionManager();
  const sm: RefSessionManager = streamed ? await openReferenceStreamed(file) : SessionManager.open(file);
  const roots = sm.getTree() as unknown as Node[];
  const ready = performance.now();
  const readyRssKb = process.resourceUsage().maxRSS;
  const ids: string[] = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    ids.push(n.entry.id);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  const context = sm.buildSessionContext();
  const result = {
    entries: ids.length,
    leafId: sm.getLeafId(),
    treeDigest: digestOf(ids.join(",")),
    leafDigest: digestOf({ messages: context.messages, model: context.model, thinkingLevel: context.thinkingLevel }),
    // How long the digests took: not part of what the reference needs to open and draw.
    afterReadyMs: performance.now() - ready,
    readyRssKb,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv[2] ?? "", process.argv.includes("--stream")).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
