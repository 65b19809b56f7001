/**
 * The packages Pi's extensions import, resolved to what Arbor ships: `typebox` (and the old name
 * `@sinclair/typebox`), `@mariozechner/pi-ai` (the real package, Arbor's own provider layer), and
 * Arbor's implementations of `@mariozechner/pi-coding-agent`'s helpers. Pi's terminal UI packages
 * (`@mariozechner/pi-tui`, the types-only `@mariozechner/pi-agent-core`) import as stand-ins that
 * fail only when used. Extensions get these as jiti virtual modules, so nothing is looked up in
 * node_modules (the packaged extension has none).
 *
 * typebox and pi-ai are ESM and loaded with import(): under mocha from node_modules, in the bundle
 * from the lazily loaded chunks scripts/build.mjs makes (which share one copy of typebox).
 */
import { codingAgentModule } from "./coding-agent-module";
import { ArborLoader, PlainLoader } from "./loader";
import { moduleWithFallback } from "./unsupported";

export interface SharedModules {
  typebox: Record<string, unknown>;
  typeboxCompile: Record<string, unknown>;
  typeboxValue: Record<string, unknown>;
  piAi: Record<string, unknown>;
}

let loading: Promise<SharedModules> | undefined;

/** Loads the shared packages once per process. */
export function loadSharedModules(): Promise<SharedModules> {
  loading ??= (async () => {
    const [typebox, typeboxCompile, typeboxValue, piAi] = await Promise.all([
      import("typebox"),
      import("typebox/compile"),
      import("typebox/value"),
      import("@mariozechner/pi-ai"),
    ]);
    return {
      typebox: typebox as unknown as Record<string, unknown>,
      typeboxCompile: typeboxCompile as unknown as Record<string, unknown>,
      typeboxValue: typeboxValue as unknown as Record<string, unknown>,
      piAi: piAi as unknown as Record<string, unknown>,
    };
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * pi-tui's `Key` helpers name key combinations (`Key.ctrlAlt("p")` is "ctrl+alt+p"). Extensions call
 * them while loading, to pass to `registerShortcut` (which Arbor reports as unsupported), so they
 * answer with the name instead of failing the whole extension.
 */
const keyNames: Record<string, unknown> = new Proxy(
  {},
  {
    get: (_target, prop) => {
      if (typeof prop === "symbol" || prop === "then") return undefined;
      const modifiers = String(prop).replace(/([A-Z])/g, "+$1").toLowerCase();
      return (key?: unknown) => (key === undefined ? modifiers : `${modifiers}+${String(key)}`);
    },
  },
);

/** The virtual modules of one extension (`extension` names it in messages about what Arbor lacks). */
export function virtualModulesFor(extension: string, shared: SharedModules, agentDir: () => string): Record<string, unknown> {
  return {
    typebox: shared.typebox,
    "typebox/compile": shared.typeboxCompile,
    "typebox/value": shared.typeboxValue,
    "@sinclair/typebox": shared.typebox,
    "@sinclair/typebox/compile": shared.typeboxCompile,
    "@sinclair/typebox/value": shared.typeboxValue,
    "@mariozechner/pi-ai": shared.piAi,
    "@mariozechner/pi-coding-agent": codingAgentModule(extension, agentDir),
    "@mariozechner/pi-tui": moduleWithFallback("@mariozechner/pi-tui", extension, { Key: keyNames, Loader: PlainLoader, CancellableLoader: ArborLoader }),
    "@mariozechner/pi-agent-core": moduleWithFallback("@mariozechner/pi-agent-core", extension, {}),
  };
}
