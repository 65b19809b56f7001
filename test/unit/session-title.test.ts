/**
 * One title rule: the title of a listed session (Sessions view, quick picks) and of the same
 * session open (tree header, status bar, chat) are one and the same, on random sessions the
 * reference wrote and on the edge cases of the rule.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import { NO_MESSAGES } from "../../src/core/session/session-list";
import { forkNotice, openSessionTitle, sessionTitle, TITLE_LIMIT, UNTITLED_SESSION } from "../../src/core/session/title";
import { generateReferenceSession } from "../support/random-session";
import { referenceFixture } from "../support/reference";

describe("session title", () => {
  const fx = referenceFixture();

  it("is the name, else the first message on one line, cut at the limit; else New session", () => {
    assert.equal(sessionTitle({ name: "  My  work ", firstMessage: "hello" }), "My work");
    assert.equal(sessionTitle({ name: "   ", firstMessage: "fix\n\tthe  parser" }), "fix the parser");
    assert.equal(sessionTitle({ firstMessage: NO_MESSAGES }), UNTITLED_SESSION);
    assert.equal(sessionTitle({}), UNTITLED_SESSION);
    const long = sessionTitle({ firstMessage: "x".repeat(200) });
    assert.equal(long.length, TITLE_LIMIT);
    assert.ok(long.endsWith("…"));
  });

  it("is the same for a listed session and the same session open, on random reference sessions", async () => {
    const dir = join(fx.tmp.dir, "random");
    let named = 0;
    let unnamed = 0;
    for (let seed = 1; seed <= 30; seed++) generateReferenceSession(fx.pi, { seed, entries: 10 + ((seed * 13) % 60), persistDir: dir });
    const listed = await SessionManager.list("/", { sessionDir: dir, indexDir: false });
    assert.ok(listed.length > 10, `only ${listed.length} sessions were written`);
    for (const info of listed) {
      const sm = await SessionManager.open(info.path, { readOnly: true });
      try {
        assert.equal(openSessionTitle(sm), sessionTitle(info), info.path);
        if (sm.getSessionName() === undefined) unnamed++;
        else named++;
      } finally {
        await sm.close();
      }
    }
    assert.ok(named > 0 && unnamed > 0, `named ${named}, unnamed ${unnamed}: both kinds are compared`);
  });

  it("skips a first user message without text, as the listing does, and follows appends", async () => {
    const dir = join(fx.tmp.dir, "edge");
    const file = join(dir, "s.jsonl");
    const header = { type: "session", version: 3, id: "sess", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" };
    const message = (id: string, parentId: string | null, content: unknown) => ({
      type: "message", id, parentId, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content, timestamp: 1 },
    });
    const lines = [header, message("a1", null, [{ type: "image", data: "AAAA", mimeType: "image/png" }]), message("a2", "a1", [{ type: "text", text: "second\nmessage" }])];
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const [info] = await SessionManager.list("/", { sessionDir: dir, indexDir: false });
    assert.equal(sessionTitle(info), "second message");
    const sm = await SessionManager.open(file);
    try {
      assert.equal(openSessionTitle(sm), "second message");
      sm.appendSessionInfo("Named now");
      assert.equal(openSessionTitle(sm), "Named now");
    } finally {
      await sm.close();
    }
    assert.equal(readdirSync(dir).length, 1);
  });
});

describe("fork notice", () => {
  it("names the new session by its title, never by its file", () => {
    assert.equal(forkNotice("Fix the parser"), "Forked into a new session, \u201cFix the parser\u201d, open now; the original is unchanged.");
    assert.doesNotMatch(forkNotice(UNTITLED_SESSION), /jsonl|New session/);
  });
});
