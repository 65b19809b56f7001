/**
 * The field checks every protocol guard is built from (tree and chat). Shared with the webviews:
 * no vscode, no DOM, no Node.
 */
export type Fields = { readonly [key: string]: unknown };

export function isRecord(x: unknown): x is Fields {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// Ids end up in DOM ids, attributes and log lines: no control characters.
const CONTROL = /[\u0000-\u001f\u007f]/;

export function isText(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length <= max;
}

/** A non-empty short string of at most `max` characters. */
export function isNonEmpty(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= max;
}

/** A non-empty string of at most `max` characters without control characters. */
export function isToken(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= max && !CONTROL.test(x);
}

export function isOptional(x: unknown, check: (v: unknown) => boolean): boolean {
  return x === undefined || check(x);
}

export function isBool(x: unknown): x is boolean {
  return typeof x === "boolean";
}

/** A finite number of at least 0. */
export function isCount(x: unknown): x is number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}

/** A whole number of at least 0. */
export function isIndex(x: unknown): x is number {
  return typeof x === "number" && Number.isInteger(x) && x >= 0;
}

export function isArrayOf<T>(x: unknown, max: number, check: (v: unknown) => v is T): x is T[] {
  if (!Array.isArray(x) || x.length > max) return false;
  for (const item of x) if (!check(item)) return false;
  return true;
}

export function isOneOf<T extends string>(values: readonly T[]): (x: unknown) => x is T {
  return (x: unknown): x is T => (values as readonly unknown[]).includes(x);
}

/** A short reason for logging a dropped message, without echoing its (possibly huge) content. */
export function describeInvalidMessage(x: unknown): string {
  if (!isRecord(x)) return `not an object (${x === null ? "null" : Array.isArray(x) ? "array" : typeof x})`;
  const type = typeof x.type === "string" ? JSON.stringify(x.type.slice(0, 40)) : "missing";
  return `invalid message of type ${type}`;
}
