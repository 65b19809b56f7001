/**
 * Files from writers other than the reference: keys in any order, white space between tokens,
 * escaped characters in keys and values, a key given twice (the last one wins), CRLF line ends.
 * The fast open reads the reference's own layout from the bytes and must fall back to a full
 * parse for everything else, so that every read still equals the reference's on the same file.
 */
import * as assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import { createRng, generateReferenceSession, type Rng } from "../support/random-session";
import { referenceFixture } from "../support/reference";

function space(rng: Rng): string {
  const roll = rng.int(20);
  return roll < 14 ? "" : roll < 19 ? " " : "\t";
}

/** A JSON string literal with some ASCII letters written as \u escapes. */
function quote(text: string, rng: Rng, escapeRate: number): string {
  const plain = JSON.stringify(text);
  if (escapeRate === 0) return plain;
  let out = '"';
  for (let i = 1; i < plain.length - 1; i++) {
    const c = plain[i]!;
    if (c === "\\") {
      out += plain.slice(i, i + 2);
      i++;
    } else if (/[a-z]/.test(c) && rng.chance(escapeRate)) out += `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
    else out += c;
  }
  return `${out}"`;
}

/** Another writer's rendering of the same value. */
function write(value: unknown, rng: Rng, style: { shuffle: boolean; escapes: number; spaces: boolean }, top = false): string {
  if (value === null || typeof value !== "object") return typeof value === "string" ? quote(value, rng, style.escapes) : JSON.stringify(value);
  const sp = () => (style.spaces ? space(rng) : "");
  if (Array.isArray(value)) return `[${sp()}${value.map((v) => write(v, rng, style)).join(`${sp()},${sp()}`)}${sp()}]`;
  const keys = Object.keys(value);
  if (style.shuffle) for (let i = keys.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  const parts = keys.map((k) => `${quote(k, rng, style.escapes)}${sp()}:${sp()}${write((value as Record<string, unknown>)[k], rng, style)}`);
  // A key given twice: JSON.parse keeps the last one, so an earlier decoy must change nothing.
  if (top && rng.chance(0.1)) parts.unshift(`"${rng.pick(["id", "parentId", "type", "timestamp", "message"])}":"decoy"`);
  return `{${sp()}${parts.join(`${sp()},${sp()}`)}${sp()}}`;
}

describe("session files from other writers", () => {
  const fx = referenceFixture();

  it("reads them exactly as the reference does", async () => {
    for (let seed = 1; seed <= 24; seed++) {
      const rng = createRng(seed * 31);
      const { file } = generateReferenceSession(fx.pi, { seed, entries: 40 + seed * 3, persistDir: join(fx.tmp.dir, `s${seed}`), unknownRoles: true });
      if (!file) continue;
      const style = { shuffle: seed % 2 === 0, escapes: seed % 3 === 0 ? 0.05 : 0, spaces: seed % 4 < 2 };
      const original = readFileSync(file, "utf8").split("\n").filter(Boolean);
      const rewritten = original.map((line, i) => (i === 0 || rng.chance(0.7) ? write(JSON.parse(line), rng, style, true) : line));
      const target = join(fx.tmp.dir, `other-${seed}.jsonl`);
      writeFileSync(target, rewritten.join(seed % 5 === 0 ? "\r\n" : "\n") + "\n");

      const ref = fx.pi.SessionManager.open(target);
      const ours = await SessionManager.open(target, { readOnly: true });
      const label = `seed ${seed} ${JSON.stringify(style)}`;
      const refEntries = ref.getEntries();
      assert.deepEqual(ours.getEntries(), refEntries, `entries, ${label}`);
      assert.deepEqual(ours.getTree(), ref.getTree(), `tree, ${label}`);
      assert.equal(ours.getLeafId(), ref.getLeafId(), `leaf, ${label}`);
      assert.equal(ours.getSessionName(), ref.getSessionName(), `name, ${label}`);
      assert.deepEqual(ours.buildSessionContext(), ref.buildSessionContext(), `context at the leaf, ${label}`);
      for (const e of refEntries) {
        assert.equal(ours.getLabel(e.id), ref.getLabel(e.id));
        assert.deepEqual(ours.buildSessionContext(e.id), fx.pi.buildSessionContext(refEntries, e.id), `context at ${e.id}, ${label}`);
      }
      assert.deepEqual(ours.getSummaries().map((s) => s.id), refEntries.map((e) => e.id));
      assert.deepEqual(ours.getProblems(), []);
      await ours.close();
    }
  });
});
