// A real headless Chromium for the tests, with the client's files served at a test origin and a
// bridge that carries the page's JSON-RPC requests to a real askd process.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { Engine, askdBin } from "./engine.mjs";

/** The client's folder, editors/web, served at {@link ORIGIN}. */
export const WEB_ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "..", ".."));

/** Where the test pages live, served from {@link WEB_ROOT}. */
export const ORIGIN = "https://askd.test";

/** The page that mounts a flow over the bridge. */
export const HARNESS = `${ORIGIN}/tests/browser/page/harness.html`;

/** Where the tests write their screenshots. */
export const OUTPUT = join(WEB_ROOT, "tests", "output");

const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
};

/** The Chromium the tests drive: Debian's, or `CHROMIUM` when set. */
const EXECUTABLE = process.env.CHROMIUM || "/usr/bin/chromium";

/** The two sizes the client is tested at: a laptop, and a phone with a touch screen. */
export const SIZES = Object.freeze({
  wide: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
});

/**
 * Starts a headless Chromium with a fresh profile.
 *
 * @param {{ viewport?: { width: number, height: number }, hasTouch?: boolean,
 *   isMobile?: boolean }} [size] the window's size and whether it has a touch screen (900×900
 *   with a mouse unless given)
 * @returns {Promise<{ context: import("playwright-core").BrowserContext, close: () => Promise<void> }>}
 */
export async function launch(size = {}) {
  const profile = mkdtempSync(join(tmpdir(), "askd-web-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXECUTABLE,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: { width: 900, height: 900 },
    ...size,
  });
  await serveClient(context);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Serves {@link WEB_ROOT} at {@link ORIGIN} in a browser context (nothing leaves the machine).
 *
 * @param {import("playwright-core").BrowserContext} context
 */
async function serveClient(context) {
  await context.route(`${ORIGIN}/**`, async (route) => {
    const asked = decodeURIComponent(new URL(route.request().url()).pathname);
    // The page askd serves at `GET /`.
    const path = asked === "/" ? "/index.html" : asked;
    const file = normalize(join(WEB_ROOT, path));
    if (!file.startsWith(WEB_ROOT) || file.includes("node_modules")) {
      await route.fulfill({ status: 404, body: "not found" });
      return;
    }
    try {
      const body = readFileSync(file);
      const type = CONTENT_TYPES[extname(file)] ?? "application/octet-stream";
      await route.fulfill({ status: 200, body, headers: { "content-type": type } });
    } catch {
      await route.fulfill({ status: 404, body: "not found" });
    }
  });
}

/**
 * Opens the harness page with a fresh askd behind its bridge transport: the page's requests go
 * to the engine through `page.exposeFunction`, and `notify` delivers a notification to the
 * page's transport as a WebSocket listener would.
 *
 * @param {import("playwright-core").BrowserContext} context
 * @param {{ colorScheme?: "light" | "dark", width?: number }} [options] the colour scheme and
 *   the flow element's width in CSS pixels
 */
export async function openHarness(context, options = {}) {
  const engine = new Engine(askdBin());
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: options.colorScheme ?? "light" });
  const calls = [];
  await page.exposeFunction("askdBridgeCall", async (method, params) => {
    calls.push({ method, params });
    return engine.call(method, params);
  });
  await page.goto(HARNESS);
  await page.waitForFunction(() => window.harnessReady === true);
  if (options.width !== undefined) {
    await page.evaluate((width) => window.setFlowWidth(width), options.width);
  }
  return {
    page,
    engine,
    calls,
    /**
     * @param {string} method
     * @param {object} params
     */
    notify: (method, params) =>
      page.evaluate(([m, p]) => window.bridgeNotify(m, p), [method, params]),
    async close() {
      await page.close();
      await engine.close();
    },
  };
}

/**
 * Opens a session on the engine at the columns the page's flow element fits, and mounts it in
 * the page.
 *
 * @param {{ page: import("playwright-core").Page, engine: Engine }} harness
 * @param {object} payload
 * @param {{ session?: string, stepWidth?: boolean }} [options] `stepWidth: false` mounts the
 *   flow without telling it the width its Steps arrive at
 * @returns {Promise<number>} the columns
 */
export async function mountPayload(harness, payload, options = {}) {
  const session = options.session ?? "t1";
  const columns = await harness.page.evaluate(() => window.flowColumns());
  await harness.engine.request("open", { session, payload, width: columns });
  await harness.page.evaluate(
    ([id, width]) => window.mountTestFlow({ session: id, stepWidth: width ?? undefined }),
    [session, options.stepWidth === false ? null : columns],
  );
  await harness.page.waitForSelector(".askd-flow .askd-line");
  return columns;
}

/**
 * The text of each line the page's flow shows.
 *
 * @param {import("playwright-core").Page} page
 * @returns {Promise<string[]>}
 */
export function pageLines(page) {
  return page.$$eval(".askd-flow .askd-screen > .askd-line", (lines) =>
    lines.map((line) => line.textContent),
  );
}
