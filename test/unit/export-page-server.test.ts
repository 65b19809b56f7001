import * as assert from "node:assert/strict";
import { servePage } from "../../src/extension/export-page-server";

describe("exported page served for a browser elsewhere", () => {
  it("answers only GET of its random path on 127.0.0.1, with the page as it is now, until disposed", async () => {
    let text = "<!doctype html><title>one</title>";
    const page = await servePage("session export.html", async () => Buffer.from(text, "utf8"));
    try {
      const url = new URL(page.url);
      assert.equal(url.hostname, "127.0.0.1");
      assert.match(url.pathname, /^\/[0-9a-f]{32}\/session%20export\.html$/);
      const ok = await fetch(page.url);
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get("content-type") ?? "", /^text\/html/);
      assert.equal(await ok.text(), text);
      text = "<!doctype html><title>two</title>";
      assert.equal(await (await fetch(page.url)).text(), text, "read again on each request");
      assert.equal((await fetch(`${url.origin}/session%20export.html`)).status, 404, "not without the token");
      assert.equal((await fetch(`${url.origin}/${"0".repeat(32)}/session%20export.html`)).status, 404, "not with another token");
      assert.equal((await fetch(page.url, { method: "POST", body: "x" })).status, 404);
    } finally {
      await page.dispose();
    }
    await assert.rejects(fetch(page.url), "nothing answers once disposed");
  });

  it("stops by itself when its time is up", async () => {
    const page = await servePage("a.html", async () => Buffer.from("x"), 100);
    const answers = async (): Promise<boolean> => fetch(page.url).then(() => true, () => false);
    while (await answers()) await new Promise((resolve) => setTimeout(resolve, 20));
    await page.dispose(); // once more: nothing happens
    assert.equal(await answers(), false);
  });
});
