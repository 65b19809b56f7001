/** A usage mistake: reported as one line with exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * Splits argv into positionals and flags. `valued` names the flags that take a value
 * (`--leaf ID` or `--leaf=ID`); every other `--flag` is a switch. `--` ends the flags.
 */
export function parseArgs(argv: string[], valued: ReadonlySet<string>, known: ReadonlySet<string>): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!known.has(name)) throw new UsageError(`unknown option --${name}`);
    if (valued.has(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    }
  }
  return { positional, flags };
}
