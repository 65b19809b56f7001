/**
 * Runs last (the file name sorts last): it deactivates Arbor the way VS Code does when the window
 * closes or reloads, and checks that every handler got session_shutdown and that the session file
 * was flushed and closed before the promise `deactivate` returns settled.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import type { SampleSessions } from "../../support/sample-sessions";

interface Ctx {
  appendEntry(customType: string, data?: unknown): string;
}
interface Api {
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: { reason: string }, ctx: Ctx) => unknown> }): vscode.Disposable;
}

describe("closing the window (deactivate)", function () {
  this.timeout(60_000);

  it("delivers session_shutdown to every handler and waits until the session file is flushed and closed", async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    const arbor = (await ext.activate()) as Api;
    const s = JSON.parse(readFileSync(process.env.ARBOR_SAMPLE_SESSIONS!, "utf8")) as SampleSessions;
    const file = join(dirname(s.mainFile), `quit-${basename(s.mainFile)}`);
    copyFileSync(s.mainFile, file);
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    const reasons: string[] = [];
    for (const name of ["first", "second"]) {
      arbor.registerSessionExtension({
        name,
        handlers: {
          session_shutdown: async (event, ctx) => {
            await new Promise((resolve) => setTimeout(resolve, 100));
            ctx.appendEntry(`${name}.goodbye`, { reason: event.reason });
            reasons.push(`${name}:${event.reason}`);
          },
        },
      });
    }
    // The module VS Code loaded (same process, same module cache): call what VS Code calls.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the very module instance VS Code holds, not a fresh import
    const main = require(join(ext.extensionPath, "dist", "extension.js")) as { deactivate(): Promise<void> | undefined };
    await main.deactivate();
    assert.deepEqual(reasons, ["first:quit", "second:quit"]);
    const text = readFileSync(file, "utf8");
    assert.match(text, /"customType":"first\.goodbye"/);
    assert.match(text, /"customType":"second\.goodbye"/);
    assert.equal(existsSync(`${file}.lock`), false, "the file was closed (its lock released)");
  });
});
