#!/usr/bin/env node
// Installs the real VS Code used by the host and end-to-end tests: the npm package code-server
// (VS Code's server + web workbench with a Node extension host) into test/vscode/, offline-friendly.
// Idempotent: a marker written after a verified install makes later runs a no-op.
//
// Usage: node scripts/setup-vscode.mjs [--force]
// As a module: `await ensureCodeServer()` returns the install's paths.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The separate npm folder that holds code-server (never part of the extension's dependencies). */
export const vscodeFolder = join(root, "test/vscode");
/** Where code-server lands. */
export const codeServerDir = join(vscodeFolder, "node_modules/code-server");
/** VS Code's own server entry inside code-server (used by the host-test runner). */
export const serverMain = join(codeServerDir, "lib/vscode/out/server-main.js");
/** code-server's own entry (used by the e2e harness and the demo). */
export const codeServerEntry = join(codeServerDir, "out/node/entry.js");

const cacheDir = join(vscodeFolder, ".cache");
const markerFile = join(vscodeFolder, ".cache/setup-ok.json");

// @vscode/ripgrep (pulled in by code-server 4.100.3's VS Code) downloads rg from GitHub in its
// postinstall, which these machines cannot reach. It first looks in this cache, so Debian's rg
// packed under the exact asset name satisfies it. Tied to the pinned code-server version.
const ripgrepPackageVersion = "1.15.11";
const ripgrepAssetVersion = "v13.0.0-10";
const ripgrepTargets = { x64: "x86_64-unknown-linux-musl", arm64: "aarch64-unknown-linux-musl" };

/** The code-server version test/vscode/package.json pins. */
export function pinnedVersion() {
  const pkg = JSON.parse(readFileSync(join(vscodeFolder, "package.json"), "utf8"));
  return pkg.dependencies["code-server"];
}

function installedVersion() {
  const pkgPath = join(codeServerDir, "package.json");
  if (!existsSync(pkgPath)) return undefined;
  return JSON.parse(readFileSync(pkgPath, "utf8")).version;
}

/** True when the pinned code-server is installed and was verified to start. */
export function isCodeServerReady() {
  if (!existsSync(markerFile) || !existsSync(serverMain)) return false;
  const marker = JSON.parse(readFileSync(markerFile, "utf8"));
  return marker.version === pinnedVersion() && installedVersion() === pinnedVersion();
}

function fail(message) {
  throw new Error(`setup-vscode: ${message}`);
}

function which(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).stdout.trim() || undefined;
}

function checkPrerequisites() {
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  if (nodeMajor !== 20) fail(`code-server ${pinnedVersion()} needs Node 20, this is Node ${process.versions.node}.`);
  const missing = ["make", "g++", "python3", "tar"].filter((c) => !which(c));
  if (missing.length) fail(`missing build tools: ${missing.join(", ")} (apt-get install -y build-essential python3).`);
  if (!existsSync("/usr/include/gssapi/gssapi.h") && !which("krb5-config")) {
    fail("code-server's kerberos module builds from source and needs libkrb5-dev (apt-get install -y libkrb5-dev).");
  }
  if (!which("rg")) fail("ripgrep is missing (apt-get install -y ripgrep): the offline install packs the system rg.");
  if (!ripgrepTargets[process.arch]) fail(`no ripgrep cache recipe for ${process.arch}.`);
}

/** Packs the system rg where @vscode/ripgrep's postinstall looks before it tries GitHub. */
function seedRipgrepCache(tmpDir) {
  const dir = join(tmpDir, `vscode-ripgrep-cache-${ripgrepPackageVersion}`);
  const asset = join(dir, `ripgrep-${ripgrepAssetVersion}-${ripgrepTargets[process.arch]}.tar.gz`);
  if (existsSync(asset)) return;
  mkdirSync(dir, { recursive: true });
  const rg = which("rg");
  const result = spawnSync("tar", ["-czf", asset, "-C", dirname(rg), "rg"], { stdio: "inherit" });
  if (result.status !== 0) fail(`could not pack ${rg} into ${asset}.`);
}

/** The folder holding include/node/node.h for this Node, so node-gyp never downloads headers. */
function nodeHeadersDir() {
  const prefix = resolve(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include/node/node.h")) ? prefix : undefined;
}

function installEnv(tmpDir) {
  const env = {
    ...process.env,
    TMPDIR: tmpDir,
    // node-pty's postinstall runs `npx node-gyp`; a `yes=false` npmrc would make it hang or fail.
    npm_config_yes: "true",
    // As root, code-server's postinstall refuses to run its nested installs without this.
    npm_config_unsafe_perm: "true",
    // code-server's postinstall runs `npm install` in lib/vscode and lib/vscode/extensions, whose
    // package.json have no allowScripts policy. npm 11 only warns about unreviewed install scripts
    // today, but a stricter default (or a strict user config) would silently skip the native builds
    // those nested installs need, so their scripts are allowed explicitly. The dependencies are pinned
    // by code-server's shrinkwrap files.
    npm_config_dangerously_allow_all_scripts: "true",
    npm_config_strict_allow_scripts: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
  const headers = nodeHeadersDir();
  if (!env.npm_config_nodedir && headers) env.npm_config_nodedir = headers;
  return env;
}

function runNpm(args, env) {
  const result = spawnSync("npm", args, { cwd: vscodeFolder, env, stdio: "inherit" });
  if (result.status !== 0) fail(`npm ${args.join(" ")} failed with exit code ${result.status}.`);
}

/** Loads every native module the server needs, in a child Node, so a skipped build is caught here. */
function verifyNativeModules() {
  const vscodeDir = join(codeServerDir, "lib/vscode");
  const probe = `
    const { existsSync } = require("fs");
    for (const m of ["node-pty", "@vscode/spdlog", "native-watchdog", "kerberos", "@parcel/watcher"]) require(m);
    const rg = require("@vscode/ripgrep").rgPath;
    if (!existsSync(rg)) throw new Error("ripgrep binary missing at " + rg);
  `;
  const result = spawnSync(process.execPath, ["-e", probe], { cwd: vscodeDir, encoding: "utf8" });
  if (result.status !== 0) fail(`native modules did not build (install scripts skipped?):\n${result.stderr}`);
  const argon = spawnSync(process.execPath, ["-e", "require('argon2')"], { cwd: codeServerDir, encoding: "utf8" });
  if (argon.status !== 0) fail(`argon2 did not build:\n${argon.stderr}`);
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts VS Code's server once and waits for /version, proving the install really runs. */
async function verifyServerStarts(tmpDir) {
  const port = await freePort();
  const home = join(tmpDir, "verify-home");
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const child = spawn(process.execPath, [
    serverMain, "--host", "127.0.0.1", "--port", String(port), "--without-connection-token",
    "--accept-server-license-terms", "--disable-telemetry",
    "--server-data-dir", join(home, "server-data"), "--user-data-dir", join(home, "user-data"),
    "--extensions-dir", join(home, "extensions"),
  ], { env: { ...process.env, HOME: home, TMPDIR: tmpDir, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), XDG_CACHE_HOME: join(home, ".cache") }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) fail(`the server exited early (code ${child.exitCode}):\n${output}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/version`);
        if (res.status === 200) return (await res.text()).trim();
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    fail(`the server did not answer /version within 60 s:\n${output}`);
  } finally {
    child.kill("SIGTERM");
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Installs the pinned code-server into test/vscode unless it is already installed and verified.
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<{ codeServerDir: string, serverMain: string, codeServerEntry: string, version: string, installed: boolean }>}
 */
export async function ensureCodeServer(options = {}) {
  const log = options.log ?? ((line) => console.log(line));
  const version = pinnedVersion();
  const result = (installed) => ({ codeServerDir, serverMain, codeServerEntry, version, installed });
  if (!options.force && isCodeServerReady()) {
    log(`code-server ${version} already installed in ${vscodeFolder}`);
    return result(false);
  }
  checkPrerequisites();
  const tmpDir = join(cacheDir, "tmp");
  mkdirSync(tmpDir, { recursive: true });
  rmSync(markerFile, { force: true });
  seedRipgrepCache(tmpDir);
  const env = installEnv(tmpDir);
  const started = Date.now();
  log(`installing code-server ${version} into ${vscodeFolder} ...`);
  // `npm ci` starts from scratch, so a half-finished earlier install never lingers.
  runNpm(existsSync(join(vscodeFolder, "package-lock.json")) ? ["ci"] : ["install"], env);
  if (installedVersion() !== version) fail(`expected code-server ${version}, found ${installedVersion() ?? "none"}.`);
  verifyNativeModules();
  const serverVersion = await verifyServerStarts(tmpDir);
  writeFileSync(markerFile, JSON.stringify({ version, serverVersion, installedAt: new Date().toISOString() }, null, 2));
  log(`code-server ${version} installed and verified (server /version ${serverVersion}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result(true);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureCodeServer({ force: process.argv.includes("--force") }).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
