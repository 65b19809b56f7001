/**
 * Checkpoints in the session: a snapshot before each prompt and when the leaf leaves an entry,
 * recorded as `arbor.checkpoint` custom entries that Pi reads past. Two turns over the scripted
 * model server (the write tool, then bash), a checkout between them with the files, and back.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CheckpointStore, referencedSnapshots } from "../../src/core/checkpoints";
import { CHECKPOINT_CUSTOM_TYPE, SessionCheckpoints, checkpointOf, filesAt, snapshotsInSessionText } from "../../src/core/checkpoints/session-checkpoints";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference } from "../support/reference";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, makeKit, makeSession, type AgentKit } from "./agent-harness.test";

/** The file without its checkpoint entries (their children hang from their parents): the session as it would be without checkpoints. */
function withoutCheckpoints(text: string): string {
  const lines = text.split("\n").filter((l) => l !== "");
  const parentOf = new Map<string, string | null>();
  const kept: Record<string, unknown>[] = [];
  for (const line of lines) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.type === "custom" && entry.customType === CHECKPOINT_CUSTOM_TYPE) {
      parentOf.set(entry.id as string, entry.parentId as string | null);
      continue;
    }
    kept.push(entry);
  }
  const resolve = (id: string | null): string | null => (id !== null && parentOf.has(id) ? resolve(parentOf.get(id)!) : id);
  for (const entry of kept) if ("parentId" in entry) entry.parentId = resolve(entry.parentId as string | null);
  return `${kept.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

describe("checkpoints: in the session", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("two turns, a checkout with the files between them and back; Pi reads the file as without the checkpoints", async () => {
    writeFileSync(join(kit.cwd, "a.txt"), "one\n");
    const store = await CheckpointStore.open({ gitPath: "git", storageDir: join(kit.root, "storage"), workspace: kit.cwd });
    const { sm, session } = await makeSession(kit, {
      checkpoints: (m) => new SessionCheckpoints(store, m),
      toolPolicy: { autoApprove: "commands" },
    });
    kit.server.script(
      reply.toolCall({ id: "w", name: "write", arguments: { path: "notes.txt", content: "v1\n" } }),
      reply.text("written"),
      reply.toolCall({ id: "b", name: "bash", arguments: { command: "echo v2 > notes.txt && rm a.txt" } }),
      reply.text("changed by bash"),
    );
    await session.prompt("write the notes");
    assert.equal(readFileSync(join(kit.cwd, "notes.txt"), "utf8"), "v1\n");
    await session.prompt("change them with bash");
    assert.equal(readFileSync(join(kit.cwd, "notes.txt"), "utf8"), "v2\n");
    assert.equal(existsSync(join(kit.cwd, "a.txt")), false);

    const checkpoints = () => sm.getEntries().filter((e) => checkpointOf(e) !== undefined);
    const user2 = sm.getEntries().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message).includes("bash"))!;
    const before2 = sm.getEntry(user2.parentId!)!;
    assert.ok(checkpointOf(before2), "the second prompt's checkpoint is its user message's parent");
    assert.deepEqual(checkpointOf(before2)!.added, ["notes.txt"], "it lists what the first turn changed");
    const answer2 = sm.getLeafId()!;
    assert.equal(checkpoints().length, 2);

    // Check out the second user message: the leaf goes to its parent, the checkpoint; its files are the first turn's.
    await session.navigateTree(user2.id);
    assert.equal(checkpoints().length, 3, "leaving the last answer recorded the files it was left with");
    const left = checkpoints()[2]!;
    assert.equal(left.parentId, answer2);
    assert.deepEqual(checkpointOf(left)!.deleted, ["a.txt"]);
    const at = filesAt(sm, sm.getLeafId())!;
    assert.equal(at.exact, true);
    let report = await store.apply(await store.plan(at.snapshot));
    assert.equal(report.ok, true);
    assert.equal(readFileSync(join(kit.cwd, "notes.txt"), "utf8"), "v1\n");
    assert.equal(readFileSync(join(kit.cwd, "a.txt"), "utf8"), "one\n");

    // And back to the last answer: its files come back, and the unchanged files recorded nothing new.
    await session.navigateTree(answer2);
    assert.equal(checkpoints().length, 3);
    report = await store.apply(await store.plan(filesAt(sm, answer2)!.snapshot));
    assert.equal(report.ok, true);
    assert.equal(readFileSync(join(kit.cwd, "notes.txt"), "utf8"), "v2\n");
    assert.equal(existsSync(join(kit.cwd, "a.txt")), false);

    await sm.flush();
    const file = sm.getSessionFile()!;
    await assertPiReadsSame(file, sm.buildSessionContext());
    // Differential: Pi builds the same context at every entry with the checkpoints as without them.
    const pi = await loadReference();
    const plainFile = join(kit.root, "plain.jsonl");
    mkdirSync(kit.root, { recursive: true });
    writeFileSync(plainFile, withoutCheckpoints(readFileSync(file, "utf8")));
    const withThem = pi.SessionManager.open(file);
    const without = pi.SessionManager.open(plainFile);
    assert.deepEqual(JSON.parse(JSON.stringify(withThem.buildSessionContext())), JSON.parse(JSON.stringify(without.buildSessionContext())), "resumed: same context");
    for (const entry of (without as unknown as { getEntries(): SessionEntry[] }).getEntries()) {
      withThem.branch(entry.id);
      without.branch(entry.id);
      assert.deepEqual(JSON.parse(JSON.stringify(withThem.buildSessionContext())), JSON.parse(JSON.stringify(without.buildSessionContext())), `context at ${entry.type} ${entry.id}`);
    }
    const ids = snapshotsInSessionText(readFileSync(file, "utf8"));
    assert.equal(ids.length, 3);
    const referenced = await referencedSnapshots([kit.sessionDir]);
    assert.deepEqual([...referenced.ids].sort(), [...new Set(ids)].sort());
    assert.equal(referenced.complete, true);
    // Pruning with what the sessions refer to keeps every snapshot they name.
    await store.prune(referenced.ids);
    for (const id of ids) assert.equal(await store.has(id), true);
    await session.close();
    await sm.close();
  });

  it("records nothing when the files are those the leaf already resolves to", async () => {
    const store = await CheckpointStore.open({ gitPath: "git", storageDir: join(kit.root, "storage"), workspace: kit.cwd });
    const { sm, session } = await makeSession(kit, { checkpoints: (m) => new SessionCheckpoints(store, m) });
    kit.server.script(reply.text("one"), reply.text("two"));
    await session.prompt("first");
    const count = sm.getEntries().filter((e) => checkpointOf(e)).length;
    const recorder = new SessionCheckpoints(store, sm);
    await recorder.record("leave");
    assert.equal(sm.getEntries().filter((e) => checkpointOf(e)).length, count, "the turn changed nothing: the checkpoint above still says it");
    writeFileSync(join(kit.cwd, "edited.txt"), "by the user\n");
    await recorder.record("leave");
    await recorder.record("leave");
    assert.equal(sm.getEntries().filter((e) => checkpointOf(e)).length, count + 1, "one for the user's edit, then none");
    assert.deepEqual(checkpointOf(sm.getLeafEntry())!.added, ["edited.txt"]);
    await session.close();
    await sm.close();
  });
});
