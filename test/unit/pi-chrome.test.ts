/**
 * What Pi extensions show in the chat's chrome (widgets, title, working message and indicator,
 * thinking label): the core's ExtensionChrome, then the reference's own examples that use it,
 * loaded unchanged through Arbor's loader over a real runtime.
 */
import * as assert from "node:assert/strict";
import { CHROME_LIMITS, ExtensionChrome, plainText, type ExtensionUiState } from "../../src/core/pi-extensions/chrome";
import { isHostToChatMessage } from "../../src/protocol/chat-guards";
import { makeKit, type AgentKit } from "./agent-harness.test";
import { startWithExamples } from "./pi-examples-harness.test";

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("Pi extensions' chat chrome", () => {
  describe("ExtensionChrome", () => {
    it("keeps plain text: colours, titles, links and control characters of a terminal are removed", () => {
      assert.equal(plainText("\x1b[38;2;155;86;63mWorking... (custom)\x1b[39m"), "Working... (custom)");
      assert.equal(plainText("\x1b]0;window title\x07after \x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\"), "after link");
      assert.equal(plainText("a\x00b\x07c\td\x1bMe"), "abc\tde");
      assert.equal(plainText(undefined), "");
      assert.equal(plainText("x".repeat(5_000)).length, CHROME_LIMITS.lineLength);
    });

    it("stacks widgets in the order first set, by extension and key, above or below; undefined removes one", async () => {
      const states: ExtensionUiState[] = [];
      const chrome = new ExtensionChrome((s) => states.push(s));
      chrome.setWidget("a", "one", ["first", "\x1b[1mbold\x1b[22m"], "above");
      chrome.setWidget("b", "one", ["other extension, same key"], "below");
      chrome.setWidget("a", "two", ["line 1\nline 2"], "above");
      chrome.setWidget("a", "one", ["replaced"], "above");
      await settled();
      assert.equal(states.length, 1, "one notification per burst of changes");
      assert.deepEqual(states[0]!.widgets, [
        { extension: "a", key: "one", placement: "above", lines: ["replaced"] },
        { extension: "b", key: "one", placement: "below", lines: ["other extension, same key"] },
        { extension: "a", key: "two", placement: "above", lines: ["line 1", "line 2"] },
      ]);
      chrome.setWidget("b", "one", undefined, "above");
      await settled();
      assert.deepEqual(states[1]!.widgets.map((w) => `${w.extension}/${w.key}`), ["a/one", "a/two"]);
      // The snapshot handed out is a copy: later changes do not reach it.
      chrome.setWidget("a", "two", ["changed"], "above");
      await settled();
      assert.deepEqual(states[1]!.widgets[1]!.lines, ["line 1", "line 2"]);
    });

    it("caps what an extension can put there, so every state passes the chat protocol's guard", async () => {
      let last: ExtensionUiState | undefined;
      const chrome = new ExtensionChrome((s) => (last = s));
      const lines = Array.from({ length: CHROME_LIMITS.lines + 5 }, () => "y".repeat(CHROME_LIMITS.lineLength + 100));
      for (let i = 0; i < CHROME_LIMITS.widgets + 2; i++) chrome.setWidget("flood", `k${i}`, i === 0 ? lines : ["z"], "above");
      chrome.setWorkingIndicator({ frames: Array.from({ length: 500 }, (_, i) => `\x1b[3${i % 8}m${"z".repeat(100)}`), intervalMs: -5 });
      chrome.setTitle("t".repeat(10_000));
      await settled();
      assert.equal(last!.widgets.length, CHROME_LIMITS.widgets);
      assert.equal(last!.widgets[0]!.lines.length, CHROME_LIMITS.lines);
      assert.equal(last!.widgets[0]!.lines[0]!.length, CHROME_LIMITS.lineLength);
      assert.equal(last!.workingIndicator!.frames.length, CHROME_LIMITS.frames);
      assert.equal(last!.workingIndicator!.intervalMs, 80, "a bad interval falls back to the default");
      assert.equal(isHostToChatMessage({ type: "extensionUi", ui: last }), true);
      assert.equal(isHostToChatMessage({ type: "extensionUi", ui: { ...last!, widgets: [{ extension: "x", key: "k", placement: "left", lines: [] }] } }), false);
      assert.equal(isHostToChatMessage({ type: "extensionUi", ui: { ...last!, workingVisible: "no" } }), false);
    });

    it("working message, visibility, indicator and thinking label reset with undefined; clear() ends everything", async () => {
      let last: ExtensionUiState | undefined;
      const chrome = new ExtensionChrome((s) => (last = s));
      chrome.setWorkingMessage("Cooking");
      chrome.setWorkingVisible(false);
      chrome.setWorkingIndicator({ frames: [] });
      chrome.setHiddenThinkingLabel("Pondering...");
      chrome.setTitle("pi - demo");
      await settled();
      assert.deepEqual({ ...last!, widgets: undefined }, { widgets: undefined, title: "pi - demo", workingMessage: "Cooking", workingVisible: false, workingIndicator: { frames: [], intervalMs: 80 }, thinkingLabel: "Pondering..." });
      chrome.setWorkingMessage(undefined);
      chrome.setWorkingIndicator(undefined);
      chrome.setHiddenThinkingLabel(undefined);
      await settled();
      assert.equal(last!.workingMessage, null);
      assert.equal(last!.workingIndicator, null);
      assert.equal(last!.thinkingLabel, null);
      chrome.setWidget("a", "k", ["x"], "below");
      chrome.clear();
      await settled();
      assert.deepEqual(last, { widgets: [], title: null, workingMessage: null, workingVisible: true, workingIndicator: null, thinkingLabel: null });
    });
  });

  describe("the reference's examples (unchanged)", () => {
    let kit: AgentKit;
    beforeEach(async () => (kit = await makeKit()));
    afterEach(async () => kit.cleanup());

    it("widget-placement.ts and rpc-demo.ts: widgets above and below the input, and rpc-demo's title", async () => {
      const pi = await startWithExamples(kit, ["widget-placement.ts", "rpc-demo.ts"]);
      await settled();
      const state = pi.ui.chrome.state();
      assert.deepEqual(
        state.widgets.map((w) => [w.extension, w.key, w.placement, w.lines]),
        // Extensions start in the order they were found (file names, as Pi sorts them).
        [
          ["rpc-demo", "rpc-demo", "above", ["--- RPC Extension UI Demo ---", "Loaded and ready."]],
          ["widget-placement", "widget-above", "above", ["Above editor widget"]],
          ["widget-placement", "widget-below", "below", ["Below editor widget"]],
        ],
      );
      assert.match(state.title ?? "", /^pi RPC Demo/);
      assert.deepEqual(pi.reports, []);
      await pi.runtime.dispose();
    });

    it("working-message-test.ts: its message and dot, without their terminal colours", async () => {
      const pi = await startWithExamples(kit, ["working-message-test.ts"]);
      await settled();
      const state = pi.ui.chrome.state();
      assert.equal(state.workingMessage, "Working... (custom)");
      assert.deepEqual(state.workingIndicator, { frames: ["●"], intervalMs: 80 });
      assert.deepEqual(pi.reports, []);
      await pi.runtime.dispose();
    });

    it("working-indicator.ts: its spinner at start, then /working-indicator pulse, none and reset", async () => {
      const pi = await startWithExamples(kit, ["working-indicator.ts"]);
      const indicator = (): ExtensionUiState["workingIndicator"] => pi.ui.chrome.state().workingIndicator;
      assert.deepEqual(indicator()?.frames, ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]);
      assert.equal(indicator()?.intervalMs, 80);
      await pi.set.runCommand("working-indicator", "pulse");
      assert.deepEqual(indicator(), { frames: ["·", "•", "●", "•"], intervalMs: 120 });
      await pi.set.runCommand("working-indicator", "none");
      assert.deepEqual(indicator(), { frames: [], intervalMs: 80 });
      await pi.set.runCommand("working-indicator", "reset");
      assert.equal(indicator(), null);
      assert.equal(pi.ui.statuses.get("working-indicator/working-indicator"), "Indicator: pi default spinner");
      assert.deepEqual(pi.reports, []);
      await pi.runtime.dispose();
    });

    it("hidden-thinking-label.ts: its label at start, /thinking-label sets another, and no argument resets it", async () => {
      const pi = await startWithExamples(kit, ["hidden-thinking-label.ts"]);
      assert.equal(pi.ui.chrome.state().thinkingLabel, "Pondering...");
      await pi.set.runCommand("thinking-label", "Mulling it over");
      assert.equal(pi.ui.chrome.state().thinkingLabel, "Mulling it over");
      await pi.set.runCommand("thinking-label", "");
      assert.equal(pi.ui.chrome.state().thinkingLabel, null, "Pi's own label again");
      assert.equal(pi.ui.notifications.at(-1)?.message, "Hidden thinking label reset to: Pondering...");
      await pi.runtime.dispose();
    });
  });
});
