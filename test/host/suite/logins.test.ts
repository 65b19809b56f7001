/**
 * Subscription logins in the real extension host: "Arbor: Log In..." runs pi-ai's Anthropic login
 * (the browser is the test following the provider's redirect to Arbor's local callback; only the
 * hosted token endpoint is answered here), the login lands in SecretStorage and the provider's
 * models say they use it; "Arbor: Log Out..." removes it; "Import Pi Credentials" takes Pi's
 * `/login` from auth.json after the confirmation.
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import { join } from "node:path";
import * as vscode from "vscode";
import { modelApi, until } from "./model-helpers";

type Fn = (...args: unknown[]) => unknown;

/** Replaces `name` on `holder` while `run` runs. */
async function replacing<T>(holder: object, name: string, stand: Fn, run: () => Thenable<T> | Promise<T>): Promise<T> {
  const h = holder as Record<string, Fn>;
  const original = h[name]!;
  h[name] = stand;
  try {
    return await run();
  } finally {
    h[name] = original;
  }
}

const TOKEN_URL = "https://platform.claude.com/v1/oauth/token";

describe("subscription logins in the extension host", function () {
  this.timeout(60_000);
  const originalFetch = globalThis.fetch;
  const tokenCalls: Record<string, unknown>[] = [];

  before(() => {
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url !== TOKEN_URL) return originalFetch(input, init);
      tokenCalls.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return new Response(JSON.stringify({ access_token: "sk-ant-oat01-host", refresh_token: "refresh-host", expires_in: 3600 }), { status: 200, headers: { "content-type": "application/json" } });
    }) as typeof fetch;
  });
  after(() => {
    globalThis.fetch = originalFetch;
  });

  const anthropicEntry = async () => {
    const arbor = await modelApi();
    return arbor.models.entries().find((e) => e.provider === "anthropic" && !e.keyMissing);
  };

  it("Log In opens the provider's page, takes the browser's callback, and the provider's models use the login; Log Out removes it", async () => {
    const arbor = await modelApi();
    const opened: string[] = [];
    const browser: Promise<number>[] = [];
    const follow = (target: unknown): Thenable<boolean> => {
      const url = String(target);
      opened.push(url);
      const params = new URL(url).searchParams;
      const redirect = new URL(params.get("redirect_uri")!);
      const callback = `http://127.0.0.1:${redirect.port}${redirect.pathname}?code=host-code&state=${params.get("state")}`;
      browser.push(new Promise((resolve, reject) => http.get(callback, (res) => (res.resume(), res.on("end", () => resolve(res.statusCode ?? 0)))).on("error", reject)));
      return Promise.resolve(true);
    };
    const ok = await replacing(vscode.env, "openExternal", follow, () => vscode.commands.executeCommand<boolean>("arbor.logIn", "anthropic"));
    assert.equal(ok, true);
    assert.equal(opened.length, 1);
    assert.match(opened[0]!, /^https:\/\/claude\.ai\/oauth\/authorize\?.*code_challenge=/, "the provider's URL, byte for byte");
    assert.equal(await browser[0], 200);
    assert.equal(tokenCalls.at(-1)!.code, "host-code");
    assert.equal(arbor.models.credentials.isLogin("anthropic"), true);
    await until(async () => (await anthropicEntry())?.keyFrom === "a subscription login", "Anthropic's models to use the login");

    assert.equal(await vscode.commands.executeCommand<boolean>("arbor.logOut", "anthropic"), true);
    assert.equal(arbor.models.credentials.isLogin("anthropic"), false);
    await until(async () => (await anthropicEntry())?.keyFrom !== "a subscription login", "the login to be gone from the models");
  });

  it("Import Pi Credentials takes Pi's /login from auth.json after the confirmation that names the file", async () => {
    const arbor = await modelApi();
    const authFile = join(process.env.PI_CODING_AGENT_DIR!, "auth.json");
    const saved = existsSync(authFile) ? readFileSync(authFile, "utf8") : undefined;
    try {
      writeFileSync(authFile, JSON.stringify({ anthropic: { type: "oauth", access: "sk-ant-oat01-pi", refresh: "r", expires: Date.now() + 3600_000 } }));
      const asked: string[] = [];
      const count = await replacing(
        vscode.window,
        "showWarningMessage",
        (message: unknown) => (asked.push(String(message)), Promise.resolve("Import")),
        () => vscode.commands.executeCommand<number>("arbor.importPiCredentials"),
      );
      assert.deepEqual(asked, [`Import 1 login from ${authFile}?`]);
      assert.equal(count, 1);
      assert.equal(arbor.models.credentials.isLogin("anthropic"), true);
    } finally {
      await arbor.models.credentials.logins.logout("anthropic");
      if (saved === undefined) rmSync(authFile, { force: true });
      else writeFileSync(authFile, saved);
    }
  });
});
