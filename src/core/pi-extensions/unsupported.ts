/**
 * What has no VS Code counterpart (terminal UI components, overlays, editor replacements, key
 * shortcuts): one clear error naming the extension and the call. The extension's other parts keep
 * working; only the call fails.
 */

/** Thrown (or reported) when an extension uses something only Pi's terminal has. */
export class UnsupportedCallError extends Error {
  constructor(
    readonly extension: string,
    readonly call: string,
    why = "it draws Pi's terminal UI, which has no counterpart in VS Code",
  ) {
    super(`The extension "${extension}" called ${call}, which Arbor cannot offer: ${why}. The rest of the extension keeps working.`);
    this.name = "UnsupportedCallError";
  }
}

/**
 * A stand-in for a value of a package Arbor does not provide (Pi's terminal UI): it can be
 * imported, referenced, extended (`class X extends CustomEditor`) and read from, but calling or
 * constructing it throws {@link UnsupportedCallError}. Renderers built from such parts are simply
 * never called in VS Code, so an extension that only uses them for rendering loads and works.
 */
export function unsupportedValue(extension: string, name: string): unknown {
  const target = function unsupported(): void {
    throw new UnsupportedCallError(extension, name);
  };
  const children = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    apply: () => {
      throw new UnsupportedCallError(extension, `${name}()`);
    },
    construct: () => {
      throw new UnsupportedCallError(extension, `new ${name}()`);
    },
    get(fn, prop) {
      if (prop === "prototype") return fn.prototype;
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      if (!children.has(prop)) children.set(prop, unsupportedValue(extension, `${name}.${String(prop)}`));
      return children.get(prop);
    },
  });
}

/**
 * A module whose listed exports are real and whose other exports are {@link unsupportedValue}s
 * (for jiti's virtual modules: it reads `__esModule` and named exports as properties).
 */
export function moduleWithFallback(packageName: string, extension: string, real: Record<string, unknown>): Record<string, unknown> {
  const made = new Map<string, unknown>();
  const module: Record<string, unknown> = new Proxy(real, {
    get(target, prop) {
      if (prop === "__esModule") return true;
      if (typeof prop === "symbol" || prop === "then") return undefined;
      if (prop in target) return target[prop];
      if (prop === "default") return module;
      if (!made.has(prop)) made.set(prop, unsupportedValue(extension, `${packageName}'s ${prop}`));
      return made.get(prop);
    },
    has: () => true,
  });
  return module;
}
