/**
 * The "Get Started with Arbor" walkthrough in a real extension host: its contribution is one VS Code
 * accepts (it opens), every step has its image in the installed extension, every command a step's
 * button or completion event names exists, and each button's command runs: up to the quick pick it
 * opens (closed again, as a user who changed their mind), or to its result when it asks nothing.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { arborApi, findArbor, hooks, messagesShownBy, samples, until } from "./host-helpers";

interface Step {
  id: string;
  title: string;
  description: string;
  media: { svg?: string; image?: string; markdown?: string; altText?: string };
  completionEvents?: string[];
}
interface Walkthrough {
  id: string;
  title: string;
  steps: Step[];
}

const walkthrough = (): Walkthrough => {
  const all = (findArbor().packageJSON as { contributes: { walkthroughs?: Walkthrough[] } }).contributes.walkthroughs;
  assert.equal(all?.length, 1, "one walkthrough");
  return all[0]!;
};

/** The commands of a step's buttons (`command:` links in its description), in order. */
const buttonsOf = (step: Step): string[] => [...step.description.matchAll(/\]\(command:([\w.-]+)\)/g)].map((m) => m[1]!);

describe("the Get Started walkthrough", function () {
  this.timeout(60_000);

  it("is a walkthrough VS Code opens, with an image for every step and only commands that exist", async () => {
    const w = walkthrough();
    assert.equal(w.id, "arbor.getStarted");
    assert.deepEqual(w.steps.map((s) => s.id), ["openSession", "addModel", "checkOut", "forkAndLabel"]);
    await arborApi();
    const commands = new Set(await vscode.commands.getCommands(true));
    const root = findArbor().extensionPath;
    for (const step of w.steps) {
      const image = step.media.svg ?? step.media.image ?? step.media.markdown;
      assert.ok(image, `${step.id} has an image`);
      assert.ok(existsSync(join(root, image)), `${step.id}: ${image} is in the installed extension`);
      assert.ok(step.media.altText, `${step.id}'s image has a text alternative`);
      const buttons = buttonsOf(step);
      assert.ok(buttons.length > 0, `${step.id} has a button`);
      const named = [...buttons, ...(step.completionEvents ?? []).filter((e) => e.startsWith("onCommand:")).map((e) => e.slice("onCommand:".length))];
      for (const id of named) assert.ok(commands.has(id), `${step.id} names ${id}, which is registered`);
    }
    // The workbench resolves the walkthrough by extension and id; a contribution it rejected would not open.
    await vscode.commands.executeCommand("workbench.action.openWalkthrough", `${findArbor().id}#${w.id}`, false);
    await until(() => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes("Welcome") || t.label.includes("Walkthrough") || t.label.includes("Get Started"))), "the walkthrough's editor");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("runs each step's button command", async () => {
    const api = await arborApi();
    const h = hooks(api);
    const steps = walkthrough().steps;
    const buttons = steps.flatMap(buttonsOf);
    assert.deepEqual(buttons, ["arbor.resumeSession", "arbor.newSession", "arbor.addModel", "arbor.checkoutEntry", "arbor.labelEntry", "arbor.forkFromEntry"]);

    /** Runs `id` as the button does; the quick pick it opens is closed once shown. Returns the pick's title. */
    const runUntilPick = async (id: string): Promise<string> => {
      let title = "";
      const shown = await messagesShownBy(async () => {
        const run = Promise.resolve(vscode.commands.executeCommand(id));
        let settled = false;
        void run.then(() => (settled = true), () => (settled = true));
        await until(() => settled || h.quickPicks.current !== undefined, `${id} to open its quick pick`, 20_000);
        title = h.quickPicks.current?.title ?? "";
        await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
        await run;
      });
      assert.deepEqual(shown.errors, [], `${id} ran without an error`);
      return title;
    };

    // Open a session: New Session starts one at once; Resume Session offers the sessions to pick from.
    const before = h.currentSession;
    const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.newSession"));
    assert.deepEqual(shown.errors, []);
    await until(() => h.currentSession !== undefined && h.currentSession !== before, "the new session");
    assert.equal(h.currentSession!.getEntries().length, 0, "a new session is empty");
    assert.equal(await runUntilPick("arbor.resumeSession"), "Resume Session");

    // The later steps act on entries: a session with a history, as a user would have by then.
    const main = samples().mainFile;
    await vscode.commands.executeCommand("arbor.resumeSession", main);
    await until(() => h.currentSession?.getSessionFile() === main, "the sample session");

    assert.match(await runUntilPick("arbor.addModel"), /Add a Model/);
    for (const id of ["arbor.checkoutEntry", "arbor.labelEntry", "arbor.forkFromEntry"]) {
      assert.ok(await runUntilPick(id), `${id} opened its picker of entries`);
    }
    // Closing the pickers changed nothing: the same session, not a fork of it.
    assert.equal(h.currentSession?.getSessionFile(), main);
  });
});
