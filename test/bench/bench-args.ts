/** The bench's command line. */

/** What `npm run bench -- ...` asked for. */
export interface BenchOptions {
  sizes: number[];
  seed: number;
  runs: number | undefined;
  list: boolean;
  sessions: boolean;
  /** The command line as whole processes. */
  cli: boolean;
  regenerate: boolean;
  /** Exit non-zero when a target is MISSED. */
  strict: boolean;
}

/** 1,000,000 is made of ten chained copies of the 100,000-entry session (see chain.ts). */
export const DEFAULT_SIZES = [10_000, 100_000, 1_000_000];
const USAGE = "usage: bench [--size 10000[,100000,1000000]] [--seed N] [--runs N] [--skip-list] [--only-list] [--skip-cli] [--regen] [--strict]";

/** Parses the bench's command line; throws with the usage on anything it does not understand. */
export function parseBenchArgs(args: string[]): BenchOptions {
  const options: BenchOptions = { sizes: [], seed: 1, runs: undefined, list: true, sessions: true, cli: true, regenerate: false, strict: false };
  const value = (i: number, flag: string): string => {
    const v = args[i + 1];
    if (v === undefined || v.startsWith("--")) throw new Error(`${flag} needs a value\n${USAGE}`);
    return v;
  };
  const integer = (text: string, flag: string, min: number): number => {
    const n = Number(text.replace(/_/g, ""));
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag} must be an integer >= ${min}, got "${text}"\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    switch (flag) {
      case "--size":
        options.sizes.push(...value(i, flag).split(",").map((s) => integer(s, flag, 10)));
        i++;
        break;
      case "--seed":
        options.seed = integer(value(i, flag), flag, 0);
        i++;
        break;
      case "--runs":
        options.runs = integer(value(i, flag), flag, 1);
        i++;
        break;
      case "--skip-list":
        options.list = false;
        break;
      case "--only-list":
        options.sessions = false;
        options.cli = false;
        break;
      case "--skip-cli":
        options.cli = false;
        break;
      case "--regen":
        options.regenerate = true;
        break;
      case "--strict":
        options.strict = true;
        break;
      default:
        throw new Error(`unknown argument "${flag}"\n${USAGE}`);
    }
  }
  if (options.sizes.length === 0) options.sizes = DEFAULT_SIZES;
  return options;
}
