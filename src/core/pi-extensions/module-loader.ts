/**
 * Loads an extension file as Pi does: TypeScript or JavaScript through jiti, Pi's package names
 * answered by virtual modules (see shared-modules.ts), the extension's own relative imports and
 * npm dependencies resolved from its folder. Each load evaluates the file afresh (Pi makes its
 * extensions anew for every session); jiti's file cache keeps the transpiling cheap.
 */

/** An extension's default export. */
export type ExtensionFactory = (pi: Record<string, unknown>) => unknown;

export interface LoadOptions {
  virtualModules: Record<string, unknown>;
  /** jiti's transpile cache folder; false: none. */
  cacheDir: string | false;
}

/** Loads the factory; rejects with a clear message when the file does not load or exports no function. */
export async function loadExtensionFactory(path: string, options: LoadOptions): Promise<ExtensionFactory> {
  const { createJiti } = await import("jiti/static");
  const jiti = createJiti(path, {
    moduleCache: false,
    fsCache: options.cacheDir,
    virtualModules: options.virtualModules,
    // Everything through jiti, so Pi's package names always meet the virtual modules.
    tryNative: false,
    interopDefault: true,
  });
  const loaded = await jiti.import(path, { default: true });
  const factory = typeof loaded === "function" ? loaded : (loaded as { default?: unknown } | undefined)?.default;
  if (typeof factory !== "function") throw new Error(`${path} does not export a default function (Pi's extension factory).`);
  return factory as ExtensionFactory;
}
