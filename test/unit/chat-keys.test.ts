/** The chat input's cycling keys, as Pi binds them, and the message they send. */
import * as assert from "node:assert/strict";
import { isChatToHostMessage } from "../../src/protocol/chat-guards";
import { cycleKeyOf } from "../../webview/chat/cycle-keys";

const key = (k: string, mods: { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean } = {}) => ({ key: k, ctrlKey: !!mods.ctrl, shiftKey: !!mods.shift, altKey: !!mods.alt, metaKey: !!mods.meta });

describe("chat input: Pi's cycling keys", () => {
  it("Ctrl+P steps the model, Ctrl+Shift+P steps back on macOS only, Shift+Tab steps the thinking level", () => {
    assert.equal(cycleKeyOf(key("p", { ctrl: true }), false), "model");
    assert.equal(cycleKeyOf(key("P", { ctrl: true, shift: true }), true), "modelBackward");
    assert.equal(cycleKeyOf(key("P", { ctrl: true, shift: true }), false), undefined, "the Command Palette outside macOS");
    assert.equal(cycleKeyOf(key("Tab", { shift: true }), false), "thinking");
    for (const other of [key("Tab"), key("p"), key("p", { ctrl: true, alt: true }), key("p", { meta: true }), key("Tab", { shift: true, ctrl: true })]) assert.equal(cycleKeyOf(other, false), undefined);
  });

  it("the cycle message names what it steps, and nothing else passes", () => {
    for (const what of ["model", "modelBackward", "thinking"]) assert.ok(isChatToHostMessage({ type: "cycle", what }));
    assert.ok(!isChatToHostMessage({ type: "cycle", what: "arbor.deleteSession" }));
    assert.ok(!isChatToHostMessage({ type: "cycle" }));
  });
});
