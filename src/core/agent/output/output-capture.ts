import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
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
  /** Most bytes the full-output file keeps (default {@link DEFAULT_FULL_OUTPUT_MAX_BYTES}); a note marks the cut. */
  maxFileBytes?: number;
}

/**
 * A runaway command (`yes`, a log follower) must not fill the disk: the full-output file keeps its
 * first 64 MiB, which with the inline tail covers both ends of any output.
 */
export const DEFAULT_FULL_OUTPUT_MAX_BYTES = 64 * 1024 * 1024;

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
  private fileBytes = 0;
  private fileFull = false;

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
    this.writeToFile(text);
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

  /** Opens the full-output file (creating its folder) and writes what was collected so far (all of it, see the class note). */
  private ensureFile(): void {
    if (this.file) return;
    const directory = this.options.directory ?? tmpdir();
    const name = `${this.options.prefix ?? "arbor-output"}-${randomBytes(8).toString("hex")}.log`;
    this.filePath = join(directory, name);
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      this.fileError = error as Error;
    }
    this.file = createWriteStream(this.filePath, { mode: 0o600 });
    this.file.on("error", (error) => (this.fileError ??= error));
    for (const chunk of this.chunks) this.writeToFile(chunk);
  }

  /** Appends to the full-output file up to its cap, then a note once. */
  private writeToFile(text: string): void {
    if (!this.file || this.fileFull) return;
    const cap = this.options.maxFileBytes ?? DEFAULT_FULL_OUTPUT_MAX_BYTES;
    const bytes = Buffer.from(text, "utf8");
    if (this.fileBytes + bytes.length <= cap) {
      this.file.write(bytes);
      this.fileBytes += bytes.length;
      return;
    }
    this.file.write(bytes.subarray(0, cap - this.fileBytes));
    this.file.write(`\n[Arbor: the output went on; only its first ${cap} bytes were saved to this file.]\n`);
    this.fileBytes = cap;
    this.fileFull = true;
  }

  private closeFile(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    return new Promise((resolve) => file.end(() => resolve()));
  }
}
