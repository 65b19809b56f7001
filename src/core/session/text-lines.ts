import { runSteps, STEP_EVERY, type Steps } from "../util/steps";

/**
 * Many short strings kept as their UTF-8 bytes, one per line, and where each starts; a string is
 * made only when one is asked for. Reopening a 1,000,000-entry session from its index needs every
 * entry's timestamp at hand, but reads few of them: splitting them into a million strings up front
 * cost more than anything else in the read, and even decoding them into one 24 MB string held the
 * extension host for a tenth of a second.
 */
export class TextLines {
  private constructor(
    private readonly bytes: Buffer,
    /** Where each line starts, and one past the end of the last (length + 1 values). */
    private readonly starts: Int32Array,
  ) {}

  /** The lines of `text` (joined with "\n", no newline after the last), or undefined when it does not hold exactly `count`. */
  static of(text: string, count: number): TextLines | undefined {
    return runSteps(TextLines.ofSteps(Buffer.from(text, "utf8"), count));
  }

  /**
   * The lines of UTF-8 `bytes` (kept, not copied), as steps (see runStepsInSlices): the pass over
   * the lines yields as it goes. Undefined when they do not hold exactly `count` lines.
   */
  static *ofSteps(bytes: Buffer, count: number): Steps<TextLines | undefined> {
    const starts = new Int32Array(count + 1);
    if (count === 0) return bytes.length === 0 ? new TextLines(bytes, starts) : undefined;
    let at = 0;
    for (let k = 1; k < count; k++) {
      const newline = bytes.indexOf(0x0a, at);
      if (newline < 0) return undefined;
      at = newline + 1;
      starts[k] = at;
      if (k % STEP_EVERY === 0) yield;
    }
    if (bytes.indexOf(0x0a, at) >= 0) return undefined;
    starts[count] = bytes.length + 1;
    return new TextLines(bytes, starts);
  }

  get length(): number {
    return this.starts.length - 1;
  }

  at(i: number): string {
    return this.bytes.toString("utf8", this.starts[i]!, this.starts[i + 1]! - 1);
  }

  toArray(): string[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}
