/**
 * Subscription logins through pi-ai's own OAuth helpers: Anthropic's real login flow (its PKCE, its
 * callback server on 127.0.0.1, its code exchange) run by OAuthLogins, with only the hosted token
 * endpoint answered here (no machine here can reach the provider); the credentials land in the
 * secret store as Pi's auth.json holds them, give the key of each call, are renewed once when they
 * expire, and go on logout. GitHub Copilot's base URL comes from its token. Pi's auth.json logins
 * are read for the import.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OAuthLogins, type OAuthSecretStore } from "../../src/core/models/oauth-logins";
import { readPiAuthFile } from "../../src/core/models/pi-auth-file";
import type { PiModel } from "../../src/core/models/pi-ai-modules";

class MemoryStore implements OAuthSecretStore {
  readonly values = new Map<string, string>();
  async get(provider: string) {
    return this.values.get(provider);
  }
  async set(provider: string, value: string) {
    if (value) this.values.set(provider, value);
    else this.values.delete(provider);
  }
  has(provider: string) {
    return this.values.has(provider);
  }
  list() {
    return [...this.values.keys()];
  }
}

interface TokenCall {
  url: string;
  body: Record<string, unknown>;
}

/** Answers pi-ai's POSTs to the hosted token endpoint; everything else fails. */
function stubTokenEndpoint(answer: (call: TokenCall) => { status: number; body: unknown }): { calls: TokenCall[]; restore(): void } {
  const original = globalThis.fetch;
  const calls: TokenCall[] = [];
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const body = JSON.parse(String(init?.body ?? "{}")) as Record<string, unknown>;
    const call = { url, body };
    calls.push(call);
    const reply = answer(call);
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { calls, restore: () => (globalThis.fetch = original) };
}

/** The browser's last step: the provider redirects to the local callback with the code. */
function followRedirect(authorizeUrl: string, code: string): Promise<number> {
  const params = new URL(authorizeUrl).searchParams;
  const redirect = new URL(params.get("redirect_uri")!);
  const target = `http://127.0.0.1:${redirect.port}${redirect.pathname}?code=${code}&state=${params.get("state")}`;
  return new Promise((resolve, reject) => {
    http.get(target, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    }).on("error", reject);
  });
}

describe("subscription logins (pi-ai's OAuth helpers)", function () {
  this.timeout(20_000);
  let stub: ReturnType<typeof stubTokenEndpoint> | undefined;
  afterEach(() => stub?.restore());

  it("logs in to Anthropic through the browser's callback, stores pi-ai's credentials and gives the key", async () => {
    let issued = 0;
    stub = stubTokenEndpoint(() => ({ status: 200, body: { access_token: `sk-ant-oat01-access-${++issued}`, refresh_token: `refresh-${issued}`, expires_in: 3600 } }));
    const store = new MemoryStore();
    const logins = new OAuthLogins(store);
    const names = (await logins.providers()).map((p) => p.id);
    assert.ok(names.includes("anthropic") && names.includes("github-copilot") && names.includes("openai-codex"), names.join(", "));
    let browser: Promise<number> | undefined;
    await logins.login("anthropic", {
      onAuth: (info) => {
        assert.match(info.url, /^https:\/\/claude\.ai\/oauth\/authorize\?/);
        browser = followRedirect(info.url, "the-code");
      },
      onPrompt: () => Promise.reject(new Error("no prompt expected")),
    });
    assert.equal(stub.calls.length, 1);
    assert.equal(stub.calls[0]!.body.grant_type, "authorization_code");
    assert.equal(stub.calls[0]!.body.code, "the-code");
    assert.equal(typeof stub.calls[0]!.body.code_verifier, "string");
    const stored = JSON.parse(store.values.get("anthropic")!) as Record<string, unknown>;
    assert.equal(stored.access, "sk-ant-oat01-access-1");
    assert.equal(stored.refresh, "refresh-1");
    assert.ok(typeof stored.expires === "number" && stored.expires > Date.now());
    assert.ok(logins.has("anthropic"));
    assert.equal(await logins.apiKey("anthropic"), "sk-ant-oat01-access-1");
    assert.equal(stub.calls.length, 1, "a fresh login is not renewed");
    const status = await browser!;
    assert.ok(status >= 200 && status < 400, `the callback page answered ${status}`);
  });

  it("renews expired credentials once for concurrent calls, stores the new ones, and says what to do when renewal fails", async () => {
    const store = new MemoryStore();
    await store.set("anthropic", JSON.stringify({ access: "sk-ant-oat01-old", refresh: "refresh-old", expires: Date.now() + 60_000 }));
    let now = Date.now();
    const logins = new OAuthLogins(store, undefined, () => now);
    stub = stubTokenEndpoint((call) => ({ status: 200, body: { access_token: `sk-ant-oat01-new-${String(call.body.refresh_token)}`, refresh_token: "refresh-new", expires_in: 3600 } }));
    assert.equal(await logins.apiKey("anthropic"), "sk-ant-oat01-old");
    now += 120_000;
    const keys = await Promise.all([logins.apiKey("anthropic"), logins.apiKey("anthropic"), logins.apiKey("anthropic")]);
    assert.deepEqual(keys, ["sk-ant-oat01-new-refresh-old", "sk-ant-oat01-new-refresh-old", "sk-ant-oat01-new-refresh-old"]);
    assert.equal(stub.calls.length, 1, "one renewal");
    assert.deepEqual([stub.calls[0]!.body.grant_type, stub.calls[0]!.body.refresh_token], ["refresh_token", "refresh-old"]);
    assert.equal((JSON.parse(store.values.get("anthropic")!) as { refresh: string }).refresh, "refresh-new");

    stub.restore();
    stub = stubTokenEndpoint(() => ({ status: 400, body: { error: "invalid_grant" } }));
    now += 10 * 3600_000;
    await assert.rejects(logins.apiKey("anthropic"), /login has expired and could not be renewed.*Log In/);
    assert.ok(logins.has("anthropic"), "a failed renewal keeps the login (the next call tries again)");
  });

  it("logs out, and unreadable or foreign credentials say so instead of sending them", async () => {
    const store = new MemoryStore();
    const logins = new OAuthLogins(store);
    assert.equal(await logins.import("anthropic", { access: "a", refresh: "r", expires: Date.now() + 3600_000, extra: 1 }), true);
    assert.equal(await logins.import("anthropic", { access: "a" }), false);
    assert.equal(await logins.apiKey("anthropic"), "a");
    await logins.logout("anthropic");
    assert.equal(logins.has("anthropic"), false);
    assert.equal(await logins.apiKey("anthropic"), undefined);
    await store.set("openai-codex", "{not json");
    await assert.rejects(logins.apiKey("openai-codex"), /unreadable.*Log In/);
    await assert.rejects(logins.login("no-such", { onAuth: () => undefined, onPrompt: async () => "" }), /no subscription login/);
  });

  it("calls GitHub Copilot at the endpoint its token names", async () => {
    const store = new MemoryStore();
    const logins = new OAuthLogins(store);
    await logins.import("github-copilot", { access: "tid=1;exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x", refresh: "gh", expires: Date.now() + 3600_000 });
    const model = { provider: "github-copilot", id: "gpt-4o", baseUrl: "https://api.individual.githubcopilot.com" } as PiModel;
    assert.equal((await logins.adjustModel(model)).baseUrl, "https://api.business.githubcopilot.com");
    const other = { provider: "anthropic", id: "x", baseUrl: "https://api.anthropic.com" } as PiModel;
    assert.equal(await logins.adjustModel(other), other);
  });

  it("reads Pi's auth.json logins for the import, with their credentials, beside its keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-auth-"));
    try {
      const file = join(dir, "auth.json");
      writeFileSync(
        file,
        JSON.stringify({
          anthropic: { type: "oauth", access: "sk-ant-oat01-x", refresh: "r", expires: 1_900_000_000_000 },
          "github-copilot": { type: "oauth", access: "t" },
          openai: { type: "api_key", key: "sk-plain" },
        }),
      );
      const entries = await readPiAuthFile(file, {});
      assert.deepEqual(entries, [
        { provider: "anthropic", importable: true, login: { access: "sk-ant-oat01-x", refresh: "r", expires: 1_900_000_000_000 } },
        { provider: "github-copilot", importable: false, reason: "an OAuth login without the credentials pi-ai writes" },
        { provider: "openai", importable: true, key: "sk-plain" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
