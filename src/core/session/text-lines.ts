import { runSteps, STEP_EVERY, type Steps } from "../util/steps";

/**
 * Many short strings kept as one text and where each starts, made into a string only when one is
 * asked for. Reopening a 1,000,000-entry session from its index needs every entry's timestamp to be
 * at hand, but reads few of them: splitting them into a million strings up front cost more than
 * anything else in the read.
 */
export class TextLines {
  private constructor(
    private readonly text: string,
    /** Where each line starts, and one past the end of the last (length + 1 values). */
    private readonly starts: Int32Array,
  ) {}

  /** The lines of `text` (joined with "\n", no newline after the last), or undefined when it does not hold exactly `count`. */
  static of(text: string, count: number): TextLines | undefined {
    return runSteps(TextLines.ofSteps(text, count));
  }

  /** `of` as steps (see runStepsInSlices): the pass over the lines yields as it goes. */
  static *ofSteps(text: string, count: number): Steps<TextLines | undefined> {
    const starts = new Int32Array(count + 1);
    if (count === 0) return text === "" ? new TextLines(text, starts) : undefined;
    let at = 0;
    for (let k = 1; k < count; k++) {
      const newline = text.indexOf("\n", at);
      if (newline < 0) return undefined;
      at = newline + 1;
      starts[k] = at;
      if (k % STEP_EVERY === 0) yield;
    }
    if (text.indexOf("\n", at) >= 0) return undefined;
    starts[count] = text.length + 1;
    return new TextLines(text, starts);
  }

  get length(): number {
    return this.starts.length - 1;
  }

  at(i: number): string {
    return this.text.slice(this.starts[i]!, this.starts[i + 1]! - 1);
  }

  toArray(): string[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}
