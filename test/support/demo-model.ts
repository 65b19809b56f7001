/**
 * The demo's model: a scripted OpenAI-compatible server on 127.0.0.1 that answers every prompt
 * without an account. It is not clever; it shows what Arbor does with a real model's stream:
 * markdown replies streamed in small pieces (slow enough to press Stop), thinking, tool calls
 * (which Arbor asks you to approve) and summaries for compaction and branch summaries.
 *
 * Prompts it understands: "list files" (bash tool), "read <path>" (read tool), "write a note"
 * (write tool), "think ..." (thinking first), "long ..." (a long reply to stop), anything else
 * (a markdown reply). `startDemoModel` is used by `npm run demo` and by end-to-end tests.
 */
import { reply, startScriptedServer, type ScriptedReply, type ScriptedServer } from "./scripted-openai-server";

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "object" && p && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("");
  return "";
}

const DELAY_MS = 35;

function streamed(text: string): ScriptedReply {
  const words = text.split(/(?<=\s)/);
  return reply.text(text, { chunks: Math.max(1, Math.ceil(words.length / 2)), delayMs: DELAY_MS, usage: { promptTokens: 1200 + text.length, completionTokens: Math.ceil(text.length / 4) } });
}

function lastUser(messages: WireMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return textOf(messages[i]!.content);
  return "";
}

/** The reply to one chat-completions request body. */
export function demoReply(body: unknown): ScriptedReply {
  const request = (body ?? {}) as { messages?: WireMessage[]; tools?: unknown[] };
  const messages = request.messages ?? [];
  const last = messages[messages.length - 1];
  const prompt = lastUser(messages).trim();
  const hasTools = Array.isArray(request.tools) && request.tools.length > 0;

  // Compaction and branch summaries ask without tools for a structured summary.
  if (!hasTools && /summar/i.test(prompt)) {
    return streamed(
      "## Goal\nTry Arbor with the demo model.\n\n## Progress\n- Chatted with the scripted model\n- Ran tools after approving them\n\n## Next steps\n- Branch from the tree and compare\n",
    );
  }
  if (last?.role === "tool" && /^The user denied\b|^No one could be asked\b/.test(textOf(last.content))) {
    // The denial reached the model as the call's result: it says so instead of trying another way.
    return streamed(`You denied that, so nothing ran. The tool result told me:\n\n> ${textOf(last.content).split("\n")[0]}\n\nTell me what to do instead, or ask again and choose **Allow Once**.`);
  }
  if (last?.role === "tool") {
    const output = textOf(last.content).split("\n").slice(0, 12).join("\n");
    return streamed(`Here is what the tool returned (first lines):\n\n\`\`\`\n${output}\n\`\`\`\n\nAsk me to **read** a file, **list files**, or **write a note** next.`);
  }
  if (hasTools && /\blist\b.*\bfiles?\b|\bls\b/i.test(prompt)) {
    return reply.toolCall({ name: "bash", arguments: { command: "ls -la" } }, { text: "I'll list the files in the workspace.", delayMs: DELAY_MS });
  }
  const read = /\bread\s+(\S+)/i.exec(prompt);
  if (hasTools && read) {
    return reply.toolCall({ name: "read", arguments: { path: read[1]!.replace(/[`'".,]+$/g, "") } }, { text: `Reading ${read[1]}.`, delayMs: DELAY_MS });
  }
  if (hasTools && /\bwrite\b.*\bnote\b/i.test(prompt)) {
    return reply.toolCall({ name: "write", arguments: { path: "NOTES.md", content: `# Notes\n\nWritten by the demo model at ${new Date().toISOString()}.\n` } }, { delayMs: DELAY_MS });
  }
  if (/^think\b/i.test(prompt)) {
    return reply.reasoning("The user wants to see thinking. I will think briefly, then answer.", "Thought about it: the answer is **42**.", { chunks: 6, delayMs: DELAY_MS });
  }
  if (/^long\b/i.test(prompt)) {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1}: a long reply streams slowly so that you can press **Stop** (or Escape) and see the partial reply recorded as stopped.`);
    return streamed(paragraphs.join("\n\n"));
  }
  const quoted = prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt;
  return streamed(
    `You said: *${quoted.replace(/[*_`]/g, "")}*\n\nI am Arbor's **demo model**, a scripted server on your machine. Try:\n\n- \`list files\` (a shell command: Arbor asks you first)\n- \`read README.md\` (reading the workspace needs no approval)\n- \`write a note\` (a write inside the workspace: no approval either)\n- \`think about it\` (thinking)\n- \`long reply\` (then press Stop)\n- \`!ls\` to run a shell command yourself\n\n\`\`\`ts\nconst answer: number = 42;\n\`\`\`\n`,
  );
}

/** Starts the demo model on a free port of 127.0.0.1. */
export function startDemoModel(): Promise<ScriptedServer> {
  return startScriptedServer({ models: [{ id: "demo-model", object: "model", owned_by: "arbor-demo" }], respond: demoReply });
}
