/**
 * A small server-sent events parser (the `text/event-stream` format of the HTML standard).
 *
 * Bytes may arrive split anywhere: inside a line, between the CR and LF of a line break, or inside a
 * UTF-8 character. Lines end in LF, CRLF or CR; lines starting with ":" are comments; repeated `data`
 * fields join with "\n"; a blank line dispatches the event.
 *
 * Pure: uses only the global `TextDecoder`, no Node modules.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event` field, "message" when absent. */
  event: string;
  data: string;
  /** The last event id seen so far on this stream, if any. */
  id?: string;
  /** A `retry` field in milliseconds, when this event carried one. */
  retry?: number;
}

/** An incremental parser: feed it chunks with `push`, then call `end` once. */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private pendingLine = "";
  /** A CR ended the previous chunk: an LF at the start of the next one belongs to the same line break. */
  private skipLeadingLf = false;
  private atStreamStart = true;
  private eventType = "";
  private dataLines: string[] = [];
  private lastEventId: string | undefined;
  private retry: number | undefined;

  /** Parses a chunk and returns the events it completes. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.consume(text);
  }

  /**
   * Ends the stream. Flushes any bytes held back and returns the events completed by them. An event whose
   * blank line never arrived is dispatched too: the standard drops it, but servers that close the
   * connection right after their last `data:` line mean it; a caller that cares whether the stream ended
   * cleanly checks its own end marker (such as `[DONE]`).
   */
  end(): SseEvent[] {
    const events = this.consume(this.decoder.decode());
    if (this.pendingLine !== "") {
      this.processLine(this.pendingLine, events);
      this.pendingLine = "";
    }
    this.dispatch(events);
    return events;
  }

  private consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.atStreamStart && text.length > 0) {
      this.atStreamStart = false;
      // A byte-order mark may open the stream and is not part of the first field name.
      if (text.charCodeAt(0) === 0xfeff) start = 1;
    }
    if (this.skipLeadingLf && text.length > start) {
      if (text.charCodeAt(start) === 0x0a) start += 1;
      this.skipLeadingLf = false;
    }
    let lineStart = start;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 0x0a && code !== 0x0d) continue;
      this.processLine(this.pendingLine + text.slice(lineStart, i), events);
      this.pendingLine = "";
      if (code === 0x0d) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 0x0a) i += 1;
        } else {
          this.skipLeadingLf = true;
        }
      }
      lineStart = i + 1;
    }
    this.pendingLine += text.slice(lineStart);
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line === "") {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // ":" starts a comment (often a keep-alive)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case "data":
        this.dataLines.push(value);
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the standard requires.
        break;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (this.dataLines.length > 0) {
      const event: SseEvent = { event: this.eventType || "message", data: this.dataLines.join("\n") };
      if (this.lastEventId !== undefined) event.id = this.lastEventId;
      if (this.retry !== undefined) event.retry = this.retry;
      events.push(event);
    }
    this.eventType = "";
    this.dataLines = [];
    this.retry = undefined;
  }
}

/** Reads a byte stream (such as a fetch `Response.body`) as server-sent events. */
export async function* readSseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of body) {
    yield* parser.push(chunk);
  }
  yield* parser.end();
}
