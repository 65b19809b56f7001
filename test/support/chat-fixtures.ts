/** Transcript items and host messages for the chat webview tests and the chat benchmark. */
import { EMPTY_EXTENSION_UI } from "../../src/core/pi-extensions/chrome";
import type { TranscriptItem } from "../../src/core/transcript/transcript";
import type { ChatStateMessage } from "../../src/protocol/chat-messages";

const usage = { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export function userItem(entryId: string, text: string): TranscriptItem {
  return { kind: "user", entryId, text, images: [], timestamp: 1_700_000_000_000 };
}

export function replyItem(entryId: string, text: string, extra: Partial<Extract<TranscriptItem, { kind: "assistant" }>> = {}): TranscriptItem {
  return { kind: "assistant", entryId, parts: [{ type: "text", text }], provider: "demo", model: "demo-model", stopReason: "stop", usage, timestamp: 1_700_000_000_000, ...extra };
}

/**
 * A realistic mix of path positions: prompts, replies with thinking and a tool run (whose result
 * entry shows nothing: null), replies with markdown, and `!cmd` runs.
 */
export function mixedItems(count: number, from = 0): (TranscriptItem | null)[] {
  const items: (TranscriptItem | null)[] = [];
  for (let i = from; i < from + count; i++) {
    const id = `e${i.toString(16).padStart(7, "0")}`;
    switch (i % 5) {
      case 0:
        items.push(userItem(id, `Question ${i}: can you look at \`src/module-${i % 37}.ts\` and fix the bug in the parser?`));
        break;
      case 1:
        items.push({
          kind: "assistant",
          entryId: id,
          parts: [
            { type: "thinking", text: `Thinking about step ${i}.`, redacted: false },
            { type: "text", text: `Reading the file first (step ${i}).` },
            { type: "toolCall", id: `call-${i}`, name: "read", arguments: { path: `src/module-${i % 37}.ts` }, result: { entryId: `${id}r`, content: [{ type: "text", text: "export const x = 1;\n".repeat(40) }], isError: false } },
          ],
          provider: "demo",
          model: "demo-model",
          stopReason: "toolUse",
          usage,
          timestamp: 1_700_000_000_000 + i,
        });
        break;
      case 2:
        items.push(null);
        break;
      case 3:
        items.push(replyItem(id, `## Step ${i}\n\nThe bug is in the **tokenizer**: it drops the last line.\n\n\`\`\`ts\nfunction parse(text: string) {\n  return text.split("\\n").filter(Boolean);\n}\n\`\`\`\n\n- first point\n- second point with [a link](https://example.com/${i})`));
        break;
      default:
        items.push({ kind: "bash", entryId: id, command: `npm test -- --grep step${i}`, output: "  ✓ passes\n".repeat(8), exitCode: i % 8 === 3 ? 1 : 0, cancelled: false, truncated: false, excludeFromContext: false, timestamp: 1_700_000_000_000 + i });
    }
  }
  return items;
}

export function chatState(items: (TranscriptItem | null)[], options: { total?: number; start?: number; generation?: number } = {}): ChatStateMessage {
  const total = options.total ?? items.length;
  return {
    type: "chatState",
    session: { sessionId: "s-1", title: "Parser work", readOnly: null, restriction: null, contextFiles: [] },
    transcript: { generation: options.generation ?? 1, total, start: options.start ?? total - items.length, items },
    run: null,
    extensionUi: EMPTY_EXTENSION_UI,
    model: { provider: "demo", id: "demo-model", name: "Demo Model", contextWindow: 128_000, thinkingLevels: ["off", "minimal", "low", "medium", "high"] },
    thinkingLevel: "off",
    noModel: null,
    commands: [
      { name: "compact", description: "Summarize older history", args: "[instructions]" },
      { name: "new", description: "Start a new session" },
      { name: "name", description: "Name this session", args: "<name>" },
    ],
    context: { tokens: 12_000, window: 128_000 },
    input: null,
  };
}
