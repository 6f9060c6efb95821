/**
 * Where the engine binary is: the `askd.path` setting when it is set, else `askd` on `PATH`,
 * else the askd repository's own build when the extension runs from a checkout of it.
 */

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { configuredEngineMissing, noEngineFound } from "./messages";

/** What discovery reads from the machine, passed in so that tests can set it up. */
export interface DiscoveryEnvironment {
  /** The `PATH` variable. */
  readonly pathVariable: string | undefined;
  /** The folder the extension is installed in (its `package.json` is there). */
  readonly extensionPath: string;
  /** The first workspace folder, against which a relative `askd.path` is resolved. */
  readonly workspaceFolder: string | undefined;
  /** The home folder, for a `askd.path` starting with `~/`. */
  readonly homeFolder: string;
  /** The platform, for the `.exe` suffix and the `PATH` separator. */
  readonly platform: NodeJS.Platform;
  /** True when `file` is a regular file this process may execute. */
  isExecutable(file: string): boolean;
  /** True when `file` exists. */
  exists(file: string): boolean;
}

/** The outcome of discovery: the engine's path, or the message saying where it was looked for. */
export type EngineLocation =
  | { readonly found: true; readonly path: string }
  | { readonly found: false; readonly message: string };

/** The discovery environment of this process. */
export function processEnvironment(
  extensionPath: string,
  workspaceFolder: string | undefined,
): DiscoveryEnvironment {
  return {
    pathVariable: process.env["PATH"],
    extensionPath,
    workspaceFolder,
    homeFolder: os.homedir(),
    platform: process.platform,
    isExecutable(file) {
      try {
        if (!fs.statSync(file).isFile()) {
          return false;
        }
        fs.accessSync(file, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    exists(file) {
      return fs.existsSync(file);
    },
  };
}

/** The path module matching the platform (so that tests of Windows paths run anywhere). */
function pathsOf(env: DiscoveryEnvironment): path.PlatformPath {
  return env.platform === "win32" ? path.win32 : path.posix;
}

/** Looks `name` up on `PATH`: the first executable match, or undefined. */
function onPath(name: string, env: DiscoveryEnvironment): string | undefined {
  const paths = pathsOf(env);
  const separator = env.platform === "win32" ? ";" : ":";
  const suffixes = env.platform === "win32" && !name.toLowerCase().endsWith(".exe") ? [".exe", ""] : [""];
  for (const folder of (env.pathVariable ?? "").split(separator)) {
    if (folder === "") {
      continue;
    }
    for (const suffix of suffixes) {
      const candidate = paths.join(folder, name + suffix);
      if (env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** True when `value` names a file by path rather than a program to look up on `PATH`. */
function isPathLike(value: string, env: DiscoveryEnvironment): boolean {
  return value.includes("/") || (env.platform === "win32" && value.includes("\\"));
}

/** The absolute path a configured value names (`~/` is the home folder). */
function resolveConfigured(value: string, env: DiscoveryEnvironment): string {
  const paths = pathsOf(env);
  if (value === "~" || value.startsWith("~/")) {
    return paths.join(env.homeFolder, value.slice(1));
  }
  if (paths.isAbsolute(value)) {
    return paths.normalize(value);
  }
  return paths.resolve(env.workspaceFolder ?? env.extensionPath, value);
}

/**
 * The repository root when the extension runs from a checkout of the askd repository
 * (`editors/vscode/` inside it), else undefined.
 */
export function checkoutRoot(env: DiscoveryEnvironment): string | undefined {
  const paths = pathsOf(env);
  const root = paths.resolve(env.extensionPath, "..", "..");
  const looksLikeCheckout =
    paths.basename(env.extensionPath) === "vscode" &&
    env.exists(paths.join(root, "Cargo.toml")) &&
    env.exists(paths.join(root, "protocol", "README.md"));
  return looksLikeCheckout ? root : undefined;
}

/** Finds the engine: see the module comment for the order. */
export function locateEngine(configured: string, env: DiscoveryEnvironment): EngineLocation {
  const setting = configured.trim();
  if (setting !== "") {
    if (isPathLike(setting, env)) {
      const resolved = resolveConfigured(setting, env);
      return env.isExecutable(resolved)
        ? { found: true, path: resolved }
        : { found: false, message: configuredEngineMissing(setting, resolved) };
    }
    const found = onPath(setting, env);
    return found !== undefined
      ? { found: true, path: found }
      : { found: false, message: configuredEngineMissing(setting, `${setting} on PATH`) };
  }
  const binary = env.platform === "win32" ? "askd.exe" : "askd";
  const tried = [`${binary} on PATH`];
  const found = onPath(binary, env);
  if (found !== undefined) {
    return { found: true, path: found };
  }
  const root = checkoutRoot(env);
  if (root !== undefined) {
    const paths = pathsOf(env);
    for (const profile of ["release", "debug"]) {
      const candidate = paths.join(root, "target", profile, binary);
      tried.push(candidate);
      if (env.isExecutable(candidate)) {
        return { found: true, path: candidate };
      }
    }
  }
  return { found: false, message: noEngineFound(tried) };
}
