/**
 * The package a user installs: the Marketplace fields of package.json, the files `vsce` would put in
 * the .vsix (only what the extension runs or the listing shows), and the README's tables of commands
 * and settings, which are made from package.json and must match it.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown> & {
  icon?: string;
  galleryBanner?: { color?: string; theme?: string };
  categories?: string[];
  keywords?: string[];
  repository?: unknown;
  scripts: Record<string, string>;
};

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", `${file} is a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** What may be in the .vsix: the bundles, their assets and the manifest's own files. */
const SHIPPED = [
  /^package\.json$/,
  /^package\.nls(\.[a-z-]+)?\.json$/,
  /^(README|CHANGELOG)\.md$/,
  /^LICENSE$/,
  /^dist\/(extension|tree|chat|export|cli)\.js$/,
  /^dist\/[a-z-]+\.css$/,
  /^dist\/pi-ai\/[\w.-]+\.mjs$/,
  /^dist\/codicons\/codicon\.(css|ttf)$/,
  // Pi's image codec (the read tool and prompt images resize with it), copied by the build.
  /^dist\/photon_rs_bg\.wasm$/,
  /^media\/[a-z-]+\.css$/,
  /^media\/arbor\.svg$/,
  /^media\/icon\.png$/,
  /^media\/walkthrough\/[\w-]+\.(svg|png|md)$/,
];

describe("the package", function () {
  this.timeout(60_000);

  it("has what the Marketplace listing needs", () => {
    assert.equal(manifest.icon, "media/icon.png");
    assert.deepEqual(pngSize(join(ROOT, manifest.icon)), { width: 128, height: 128 });
    assert.match(manifest.galleryBanner?.color ?? "", /^#[0-9a-f]{6}$/i);
    assert.ok(manifest.galleryBanner?.theme === "dark" || manifest.galleryBanner?.theme === "light");
    assert.deepEqual(manifest.categories, ["AI", "Chat"]);
    assert.ok((manifest.keywords?.length ?? 0) >= 3 && (manifest.keywords?.length ?? 0) <= 30, "3 to 30 keywords");
    assert.ok(existsSync(join(ROOT, "CHANGELOG.md")));
    // No placeholder address: none is better than a wrong one, and packaging is told not to ask.
    assert.equal(manifest.repository, undefined);
    assert.match(manifest.scripts.package, /vsce package .*--allow-missing-repository/);
  });

  it("lists for the .vsix only the files the extension needs", () => {
    const out = execFileSync(process.execPath, [join(ROOT, "node_modules/@vscode/vsce/vsce"), "ls", "--no-dependencies"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const files = out.split("\n").map((l) => l.trim()).filter(Boolean);
    const stray = files.filter((f) => !SHIPPED.some((re) => re.test(f)));
    assert.deepEqual(stray, [], "nothing from src/, test/, docs/, out/, node_modules or the icon's drawing");
    for (const needed of ["package.json", "README.md", "CHANGELOG.md", "LICENSE", "media/icon.png", "media/arbor.svg"]) {
      assert.ok(files.includes(needed), `${needed} is packaged`);
    }
    // The bundles exist once built (unit tests may run before the build): when they do, they ship.
    for (const bundle of ["dist/extension.js", "dist/tree.js", "dist/chat.js", "dist/export.js", "dist/photon_rs_bg.wasm"]) {
      if (existsSync(join(ROOT, bundle))) assert.ok(files.includes(bundle), `${bundle} is packaged`);
    }
    // Every file the manifest names (icons, walkthrough media) is in the package.
    const named = JSON.stringify(manifest).match(/"media\/[^"]+"/g) ?? [];
    for (const file of new Set(named.map((n) => n.slice(1, -1)))) assert.ok(files.includes(file), `${file}, named in package.json, is packaged`);
  });

  describe("the manifest's strings (package.nls.json)", () => {
    const script = join(ROOT, "scripts/localise-manifest.mjs");
    const nls = JSON.parse(readFileSync(join(ROOT, "package.nls.json"), "utf8")) as Record<string, string>;

    it("are all in package.nls.json, and every key package.json names is there", () => {
      const run = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      const keys = [...readFileSync(join(ROOT, "package.json"), "utf8").matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!);
      assert.ok(keys.length > 100, "titles, descriptions, views and the walkthrough are localisable");
      for (const key of keys) assert.equal(typeof nls[key], "string", `package.nls.json has ${key}`);
    });

    it("a command added with a plain title is found, and moved into package.nls.json with the file's layout kept", () => {
      const dir = mkdtempSync(join(tmpdir(), "arbor-nls-"));
      try {
        const text = readFileSync(join(ROOT, "package.json"), "utf8").replace('"commands": [\n', '"commands": [\n      {\n        "command": "arbor.example",\n        "title": "An Example",\n        "category": "Arbor"\n      },\n');
        writeFileSync(join(dir, "package.json"), text);
        copyFileSync(join(ROOT, "package.nls.json"), join(dir, "package.nls.json"));
        const stale = spawnSync(process.execPath, [script, "--check", "--root", dir], { encoding: "utf8" });
        assert.equal(stale.status, 1);
        assert.match(stale.stderr, /arbor\.example\.title/);
        assert.equal(spawnSync(process.execPath, [script, "--root", dir], { encoding: "utf8" }).status, 0);
        const moved = readFileSync(join(dir, "package.json"), "utf8");
        assert.equal(moved, text.replace('"title": "An Example",\n        "category": "Arbor"', '"title": "%arbor.example.title%",\n        "category": "%category.arbor%"'), "only those strings changed");
        assert.equal((JSON.parse(readFileSync(join(dir, "package.nls.json"), "utf8")) as Record<string, string>)["arbor.example.title"], "An Example");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it("README.md, CHANGELOG.md and docs/ link only to files and headings that exist", () => {
    /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
    const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");
    const anchorsOf = (file: string) => new Set(readFileSync(file, "utf8").split("\n").filter((l) => /^#{1,6} /.test(l)).map((l) => anchor(l.replace(/^#+ /, "").replace(/`/g, ""))));
    const pages = ["README.md", "CHANGELOG.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|command:)/.test(target!)) continue;
        const [file, hash] = target!.split("#");
        const path = file ? join(ROOT, dirname(page), file) : join(ROOT, page);
        if (!existsSync(path)) broken.push(`${page}: ${target} (no such file)`);
        else if (hash && path.endsWith(".md") && !anchorsOf(path).has(hash)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  describe("the README's generated tables", () => {
    const script = join(ROOT, "scripts/readme-tables.mjs");

    it("match package.json", () => {
      const run = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
    });

    it("are found stale when a setting's default changes", () => {
      const dir = mkdtempSync(join(tmpdir(), "arbor-readme-"));
      try {
        copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
        if (existsSync(join(ROOT, "package.nls.json"))) copyFileSync(join(ROOT, "package.nls.json"), join(dir, "package.nls.json"));
        const changed = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
        changed.contributes.configuration.properties["arbor.tools.commandTimeout"].default = 601;
        writeFileSync(join(dir, "package.json"), JSON.stringify(changed));
        const stale = spawnSync(process.execPath, [script, "--check", "--root", dir], { encoding: "utf8" });
        assert.equal(stale.status, 1);
        assert.match(stale.stderr, /out of date/);
        spawnSync(process.execPath, [script, "--root", dir], { encoding: "utf8" });
        assert.match(readFileSync(join(dir, "README.md"), "utf8"), /\| `arbor\.tools\.commandTimeout` \| `601` \|/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
