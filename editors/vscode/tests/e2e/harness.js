// @ts-check
/**
 * What the end-to-end tests share: a real VS Code (code-server) with the packaged extensions
 * installed, served on a loopback port to headless Chromium driven by playwright-core.
 *
 * Everything a run writes goes under `editors/vscode/.test/` (git-ignored).
 */
"use strict";

const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

const extensionRoot = path.resolve(__dirname, "..", "..");
const testRoot = path.join(extensionRoot, ".test");
const e2eModules = path.join(testRoot, "e2e", "node_modules");
const codeServer = path.join(e2eModules, ".bin", "code-server");
const { chromium } = require(path.join(e2eModules, "playwright-core"));

/** The packaged extension and the packaged fixture extension (made by tests/run.sh). */
const VSIX = {
  askd: path.join(testRoot, "askd-vscode.vsix"),
  fixture: path.join(testRoot, "askd-fixture.vsix"),
};

/** Where screenshots go. */
const screenshots = path.join(testRoot, "screenshots");

/** A free TCP port on the loopback address. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `check` resolves truthy, polling; rejects with `what` after `ms`. */
async function waitFor(what, check, ms = 30000, every = 100) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

/**
 * Starts code-server for one test: a fresh user-data folder with `settings` pre-seeded, the
 * given `.vsix` files installed, and `files` (relative path → text) written into a fresh
 * workspace folder that it opens.
 *
 * @param {string} name the test's folder name under .test/run/
 * @param {{ settings?: object, vsix?: string[], files?: Record<string, string>, env?: Record<string, string> }} options
 */
async function startVsCode(name, options) {
  const root = path.join(testRoot, "run", name);
  fs.rmSync(root, { recursive: true, force: true });
  const userData = path.join(root, "user-data");
  const extensions = path.join(root, "extensions");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.mkdirSync(extensions, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  for (const [file, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace, file), text);
  }
  const settings = {
    "workbench.startupEditor": "none",
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "security.workspace.trust.enabled": false,
    "workbench.tips.enabled": false,
    "chat.disableAIFeatures": true,
    "git.enabled": false,
    "git.openRepositoryInParentFolders": "never",
    ...(options.settings ?? {}),
  };
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  const config = path.join(root, "code-server.yaml");
  fs.writeFileSync(config, "auth: none\ncert: false\n");
  // A runtime folder of the test's own, where a hub's discovery file goes (never the user's),
  // a state folder of its own (no flow left open by an earlier test is resumed by this one's
  // engine), and no browser opened by a hub.
  const runtime = path.join(root, "runtime");
  fs.mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: runtime,
    XDG_STATE_HOME: path.join(root, "state"),
    ASKD_NO_BROWSER: "1",
    ...(options.env ?? {}),
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_DATA_HOME: path.join(root, "data"),
  };
  for (const vsix of options.vsix ?? []) {
    execFileSync(
      codeServer,
      ["--config", config, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix],
      { env, stdio: "pipe" },
    );
  }
  const port = await freePort();
  const log = fs.openSync(path.join(root, "code-server.log"), "w");
  const child = spawn(
    codeServer,
    [
      "--config", config,
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      "--bind-addr", `127.0.0.1:${port}`,
      "--auth", "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", log, log] },
  );
  // tests/run.sh ends this process group if the run is interrupted.
  const pidFile = path.join(root, "code-server.pid");
  fs.writeFileSync(pidFile, String(child.pid));
  const url = `http://127.0.0.1:${port}/`;
  await waitFor("code-server to answer", async () => {
    const response = await fetch(`${url}healthz`);
    return response.ok;
  });
  return {
    url,
    workspace,
    root,
    env,
    /** Ends code-server and every process it started (its process group). */
    stop() {
      try {
        process.kill(-(child.pid ?? 0), "SIGTERM");
      } catch {
        // Already gone.
      }
      fs.rmSync(pidFile, { force: true });
    },
  };
}

/** Launches headless Chromium. */
function launchBrowser() {
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
}

/**
 * Opens the workbench and waits for the askd status-bar item (the extension is active).
 *
 * @param {import("playwright-core").Browser} browser
 * @param {string} url
 */
async function openWorkbench(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  await page.locator("[id='askd.askd-vscode.askd.status']").waitFor({ timeout: 60000 });
  await page.locator("[id='askd-tests.askd-fixture.askdFixture.status']").waitFor({ timeout: 60000 });
  return page;
}

/**
 * Runs a command from the command palette by its title, retrying while the extension host
 * is still registering commands.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} title e.g. "askd: Demo"
 */
async function runCommand(page, title) {
  const input = page.locator(".quick-input-widget input");
  for (let attempt = 0; attempt < 10; attempt += 1) {
    // Escape only where it reaches the palette: in the question panel it would cancel a flow.
    if (await input.isVisible()) {
      await input.press("Escape");
    }
    await page.keyboard.press("F1");
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 3000 });
      const label = (await row.locator(".label-name").first().textContent())?.trim();
      if (label === title) {
        await page.keyboard.press("Enter");
        return;
      }
    } catch {
      // Not registered yet: try again.
    }
    await page.waitForTimeout(1000);
  }
  throw new Error(`command not found in the palette: ${title}`);
}

/**
 * The askd panel's page: two frames deep (`iframe.webview` → `#active-frame`).
 *
 * @param {import("playwright-core").Page} page
 */
function panelFrame(page) {
  return page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
}

module.exports = {
  VSIX,
  extensionRoot,
  testRoot,
  screenshots,
  waitFor,
  startVsCode,
  launchBrowser,
  openWorkbench,
  runCommand,
  panelFrame,
};
