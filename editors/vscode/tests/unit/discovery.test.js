// @ts-check
/** Where the extension looks for the engine, in order, and what it says when it finds none. */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { locateEngine, checkoutRoot } = require("../../out/discovery.js");

/**
 * A machine with the given executables and files.
 *
 * @param {{ executables?: string[], files?: string[], pathVariable?: string, extensionPath?: string, workspaceFolder?: string, platform?: NodeJS.Platform }} machine
 */
function machine(machine) {
  const executables = new Set(machine.executables ?? []);
  const files = new Set([...(machine.files ?? []), ...executables]);
  return {
    pathVariable: machine.pathVariable ?? "/usr/local/bin:/usr/bin",
    extensionPath: machine.extensionPath ?? "/src/askd/editors/vscode",
    workspaceFolder: machine.workspaceFolder,
    homeFolder: "/home/user",
    platform: machine.platform ?? "linux",
    isExecutable: (/** @type {string} */ file) => executables.has(file),
    exists: (/** @type {string} */ file) => files.has(file),
  };
}

const CHECKOUT = ["/src/askd/Cargo.toml", "/src/askd/protocol/README.md"];
const RELEASE = "/src/askd/target/release/askd";
const DEBUG = "/src/askd/target/debug/askd";

test("askd on PATH comes first, even in a checkout with builds", () => {
  const env = machine({ executables: ["/usr/bin/askd", RELEASE, DEBUG], files: CHECKOUT });
  assert.deepEqual(locateEngine("", env), { found: true, path: "/usr/bin/askd" });
});

test("the first PATH folder holding askd wins", () => {
  const env = machine({ executables: ["/usr/bin/askd", "/usr/local/bin/askd"] });
  assert.deepEqual(locateEngine("", env), { found: true, path: "/usr/local/bin/askd" });
});

test("without askd on PATH, a checkout's release build, then its debug build", () => {
  assert.deepEqual(locateEngine("", machine({ executables: [RELEASE, DEBUG], files: CHECKOUT })), {
    found: true,
    path: RELEASE,
  });
  assert.deepEqual(locateEngine("", machine({ executables: [DEBUG], files: CHECKOUT })), {
    found: true,
    path: DEBUG,
  });
});

test("no engine anywhere: the message lists every place tried, in order", () => {
  assert.deepEqual(locateEngine("", machine({ files: CHECKOUT })), {
    found: false,
    message:
      "askd: no engine found. Tried askd on PATH, /src/askd/target/release/askd, /src/askd/target/debug/askd. Install askd on PATH or set askd.path.",
  });
});

test("an installed extension (not in a checkout) looks on PATH only", () => {
  const env = machine({ extensionPath: "/home/user/.vscode/extensions/askd.askd-vscode-0.1.0", executables: [RELEASE] });
  assert.equal(checkoutRoot(env), undefined);
  assert.deepEqual(locateEngine("", env), {
    found: false,
    message: "askd: no engine found. Tried askd on PATH. Install askd on PATH or set askd.path.",
  });
});

test("a set askd.path is the only place looked at", () => {
  const env = machine({ executables: ["/usr/bin/askd", "/opt/askd/bin/askd"] });
  assert.deepEqual(locateEngine("/opt/askd/bin/askd", env), { found: true, path: "/opt/askd/bin/askd" });
  assert.deepEqual(locateEngine("/opt/other/askd", env), {
    found: false,
    message: 'askd: the engine "/opt/other/askd" set in askd.path was not found or is not executable.',
  });
});

test("askd.path may be a name on PATH, a path under the home folder, or relative to the workspace", () => {
  const env = machine({
    executables: ["/usr/bin/askd-nightly", "/home/user/bin/askd", "/projects/askd/target/debug/askd"],
    workspaceFolder: "/projects/askd",
  });
  assert.deepEqual(locateEngine("askd-nightly", env), { found: true, path: "/usr/bin/askd-nightly" });
  assert.deepEqual(locateEngine("~/bin/askd", env), { found: true, path: "/home/user/bin/askd" });
  assert.deepEqual(locateEngine("target/debug/askd", env), { found: true, path: "/projects/askd/target/debug/askd" });
  assert.deepEqual(locateEngine("askd-old", env), {
    found: false,
    message: 'askd: the engine "askd-old" (askd-old on PATH) set in askd.path was not found or is not executable.',
  });
  assert.deepEqual(locateEngine("target/release/askd", env), {
    found: false,
    message:
      'askd: the engine "target/release/askd" (/projects/askd/target/release/askd) set in askd.path was not found or is not executable.',
  });
});

test("Windows: askd.exe, semicolon-separated PATH", () => {
  const env = machine({
    platform: "win32",
    pathVariable: "C:\\tools;C:\\askd\\bin",
    extensionPath: "C:\\src\\askd\\editors\\vscode",
    executables: ["C:\\askd\\bin\\askd.exe"],
  });
  assert.deepEqual(locateEngine("", env), { found: true, path: "C:\\askd\\bin\\askd.exe" });
  assert.deepEqual(locateEngine("", { ...env, isExecutable: () => false }), {
    found: false,
    message: "askd: no engine found. Tried askd.exe on PATH. Install askd on PATH or set askd.path.",
  });
});
