import { randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_OUTPUT_LIMITS, sanitizeOutput, truncateTail, type OutputLimits } from "./output-limits";

/** What a capture hands back once the producer is done. */
export interface CapturedOutput {
  /** The whole output, or its tail when it went over the limits. */
  output: string;
  truncated: boolean;
  /** The file holding the whole output; set whenever `truncated` is, unless that file could not be written. */
  fullOutputPath?: string;
}

export interface OutputCaptureOptions {
  limits?: OutputLimits;
  /** Folder for full-output files (default: the system temp folder). */
  directory?: string;
  /** File name prefix (default `arbor-output`). */
  prefix?: string;
}

/**
 * Collects streamed output with bounded memory: a rolling tail of twice the byte limit stays in
 * memory, and as soon as the output goes over either limit everything (from the first byte) is
 * also written to a file, so the whole output survives however long it grows. Until then nothing
 * has been dropped from memory, which is what makes that hand-over lossless.
 */
export class OutputCapture {
  private readonly limits: OutputLimits;
  private readonly decoder = new TextDecoder();
  private chunks: string[] = [];
  private keptBytes = 0;
  private totalBytes = 0;
  private totalLines = 1;
  private file: WriteStream | undefined;
  private filePath: string | undefined;
  private fileError: Error | undefined;

  constructor(private readonly options: OutputCaptureOptions = {}) {
    this.limits = options.limits ?? DEFAULT_OUTPUT_LIMITS;
  }

  /** Adds raw bytes (or text); returns the sanitized text they made, for live display. */
  append(data: Uint8Array | string): string {
    const text = sanitizeOutput(typeof data === "string" ? data : this.decoder.decode(data, { stream: true }));
    this.add(text);
    return text;
  }

  private finished: Promise<CapturedOutput> | undefined;

  /** Ends the capture: flushes the decoder, closes the file and returns what to record. Idempotent. */
  finish(): Promise<CapturedOutput> {
    this.finished ??= this.complete();
    return this.finished;
  }

  private async complete(): Promise<CapturedOutput> {
    this.add(sanitizeOutput(this.decoder.decode()));
    const whole = this.chunks.join("");
    const cut = truncateTail(whole, this.limits);
    const truncated = cut.truncated || this.overLimits();
    if (truncated) this.ensureFile();
    await this.closeFile();
    if (!truncated) return { output: whole, truncated: false };
    // A full-output file that could not be written is not worth losing the run over: the tail stays.
    return this.fileError ? { output: cut.content, truncated } : { output: cut.content, truncated, fullOutputPath: this.filePath };
  }

  private add(text: string): void {
    if (text === "") return;
    this.totalBytes += Buffer.byteLength(text, "utf8");
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.totalLines++;
    if (!this.file && this.overLimits()) this.ensureFile();
    this.file?.write(text);
    this.chunks.push(text);
    this.keptBytes += text.length;
    // Keep a tail large enough to cut the limit's worth from, without holding everything.
    while (this.keptBytes > this.limits.maxBytes * 2 && this.chunks.length > 1) {
      this.keptBytes -= this.chunks.shift()!.length;
    }
  }

  private overLimits(): boolean {
    return this.totalBytes > this.limits.maxBytes || this.totalLines > this.limits.maxLines;
  }

  /** Opens the full-output file and writes what was collected so far (all of it, see the class note). */
  private ensureFile(): void {
    if (this.file) return;
    const name = `${this.options.prefix ?? "arbor-output"}-${randomBytes(8).toString("hex")}.log`;
    this.filePath = join(this.options.directory ?? tmpdir(), name);
    this.file = createWriteStream(this.filePath);
    this.file.on("error", (error) => (this.fileError ??= error));
    for (const chunk of this.chunks) this.file.write(chunk);
  }

  private closeFile(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    return new Promise((resolve) => file.end(() => resolve()));
  }
}
