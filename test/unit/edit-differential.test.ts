/**
 * The edit tool against the reference's (`createEditTool` of @mariozechner/pi-coding-agent): random
 * files (BOM or not, LF or CRLF, trailing spaces, typographic quotes and dashes, special spaces,
 * compatibility characters) and random edits (exact, copied the way models copy, missing, repeated,
 * overlapping, several at once) run through both on copies of the same temp file. Both must fail
 * or both succeed; then the files must be byte for byte the same and so must the recorded diff.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_OUTPUT_LIMITS } from "../../src/core/agent/output/output-limits";
import { applyEdits, createEditTool } from "../../src/core/agent/tools";
import { lenientForm } from "../../src/core/agent/tools/edit-matching";

interface RefTool {
  prepareArguments?: (args: unknown) => unknown;
  execute(id: string, params: unknown, signal?: AbortSignal): Promise<{ content: { type: string; text?: string }[]; details?: { diff?: string; firstChangedLine?: number } }>;
}

/** A small seeded generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "beta", "gamma", "const", "x", "=", "1;", "return", "it's", "“quoted”", "‘single’", "a—b", "c–d", "minus−2", "non\u00a0break", "ﬁle", "Ｆull", "é", "e\u0301", "tab\t", "{", "}", "(", ")", "beta"];

function makeFile(rand: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(rand() * 14);
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: Math.floor(rand() * 6) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
    let line = words.join(" ");
    if (rand() < 0.25) line += rand() < 0.5 ? "  " : "\t";
    lines.push(line);
  }
  const ending = rand() < 0.3 ? "\r\n" : "\n";
  let text = lines.join(ending);
  if (rand() < 0.6) text += ending;
  return (rand() < 0.2 ? "\uFEFF" : "") + text;
}

/** Text copied from the file the way a model may copy it: plain quotes and dashes, no trailing spaces, LF. */
function sloppy(text: string, rand: () => number): string {
  let out = text.replace(/\r\n/g, "\n");
  if (rand() < 0.5) out = out.replace(/[“”]/g, '"').replace(/[‘’]/g, "'");
  if (rand() < 0.5) out = out.replace(/[—–−]/g, "-");
  if (rand() < 0.5) out = out.replace(/\u00a0/g, " ");
  if (rand() < 0.5) out = out.replace(/[ \t]+\n/g, "\n");
  if (rand() < 0.3) out = out.normalize("NFKC");
  return out;
}

function pickOldText(content: string, rand: () => number): string {
  const body = content.replace(/^\uFEFF/, "");
  const roll = rand();
  if (roll < 0.1 || body.length === 0) return WORDS[Math.floor(rand() * WORDS.length)]! + (rand() < 0.5 ? " missing" : "");
  if (roll < 0.15) return "";
  if (roll < 0.2) return "   ";
  const start = Math.floor(rand() * body.length);
  const length = 1 + Math.floor(rand() * Math.min(40, body.length - start));
  const piece = body.slice(start, start + length);
  return roll < 0.6 ? piece : sloppy(piece, rand);
}

function makeEdits(content: string, rand: () => number): { oldText: string; newText: string }[] {
  const count = rand() < 0.7 ? 1 : 2 + Math.floor(rand() * 2);
  return Array.from({ length: count }, () => ({
    oldText: pickOldText(content, rand),
    newText: rand() < 0.1 ? "" : `${WORDS[Math.floor(rand() * WORDS.length)]!}${rand() < 0.3 ? "\nnew line" : ""}${rand() < 0.1 ? "\r\n" : ""}`,
  }));
}

describe("edit tool: differential against the reference", function () {
  this.timeout(120_000);
  let dir: string;
  let reference: RefTool;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "arbor-edit-diff-"));
    const pi = (await import("@mariozechner/pi-coding-agent")) as unknown as { createEditTool(cwd: string): RefTool };
    reference = pi.createEditTool(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const ours = createEditTool();
  const context = () => ({ cwd: dir, toolCallId: "t", signal: new AbortController().signal, limits: DEFAULT_OUTPUT_LIMITS, allowShell: false });

  async function runReference(args: Record<string, unknown>): Promise<{ ok: boolean; diff?: string; firstChangedLine?: number; message?: string }> {
    try {
      const params = reference.prepareArguments ? reference.prepareArguments(structuredClone(args)) : args;
      const result = await reference.execute("t", params);
      return { ok: true, diff: result.details?.diff, firstChangedLine: result.details?.firstChangedLine };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  }

  it("fails where the reference fails, and otherwise writes the same bytes and records the same diff (600 random edits)", async () => {
    let succeeded = 0;
    let lenient = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const rand = random(seed);
      const content = makeFile(rand);
      const edits = makeEdits(content, rand);
      const args: Record<string, unknown> = rand() < 0.1 && edits.length === 1 ? { path: "ref.txt", ...edits[0] } : { path: "ref.txt", edits };
      const where = `seed ${seed}: ${JSON.stringify({ content, args })}`;
      writeFileSync(join(dir, "ref.txt"), content);
      writeFileSync(join(dir, "ours.txt"), content);
      const ref = await runReference(args);
      const mine = await ours.execute({ ...args, path: "ours.txt" }, context()).then(
        (outcome) => ({ ok: true, details: outcome.details as { diff: string; firstChangedLine?: number } }),
        (error: Error) => ({ ok: false, message: error.message, details: undefined }),
      );
      assert.equal(mine.ok, ref.ok, `${where}\nreference: ${ref.message ?? "ok"}\nours: ${"message" in mine ? mine.message : "ok"}`);
      assert.equal(readFileSync(join(dir, "ours.txt"), "utf8"), readFileSync(join(dir, "ref.txt"), "utf8"), where);
      if (!ref.ok) continue;
      succeeded++;
      if (edits.some((e) => !content.replace(/\r\n/g, "\n").includes(e.oldText.replace(/\r\n/g, "\n")))) lenient++;
      assert.equal(mine.details!.diff, ref.diff, where);
      assert.equal(mine.details!.firstChangedLine, ref.firstChangedLine, where);
    }
    // The random cases must cover both outcomes and the lenient match, or the comparison proves little.
    assert.ok(succeeded > 150 && succeeded < 550, `successes: ${succeeded}`);
    assert.ok(lenient > 30, `lenient matches: ${lenient}`);
  });

  it("keeps the BOM and CRLF endings, takes LF in the edit, and forgives typographic marks and trailing spaces", () => {
    assert.equal(applyEdits("\uFEFFone\r\ntwo\r\nthree\r\n", [{ oldText: "one\ntwo", newText: "1\n2" }]), "\uFEFF1\r\n2\r\nthree\r\n");
    assert.equal(applyEdits("say “hi” — now  \nend\n", [{ oldText: 'say "hi" - now\nend', newText: "bye" }]), "bye\n");
    assert.equal(lenientForm("ﬁ\u00a0‘x’ a–b  \n"), "fi 'x' a-b\n");
    assert.throws(() => applyEdits("a\na\n", [{ oldText: "a", newText: "b" }]), /occurs 2 times/);
    assert.throws(() => applyEdits("same\n", [{ oldText: "same", newText: "same" }]), /unchanged/);
  });
});
