// @ts-check
/**
 * How long a click (and, beside it, a key) takes in a real VS Code from its event to the
 * question panel's changed DOM: code-server in headless Chromium, the packaged extension, the
 * form look of `askd: Demo`. In the panel's page (the webview's frame) it clicks the form's
 * second and first tab in turn, then one row of the multi question on and off, then presses
 * Down and Up, each input waiting for the page to change, and measures from the event's time
 * stamp (`click`, `keydown`) to the first change of the form's DOM (a `MutationObserver`,
 * attributes included) and to the animation frame after it, as editors/web's latency.mjs does
 * in a plain page. Every click goes page → extension host → askd (`activate`) and back.
 *
 * A benchmark, not a test: it prints its figures and checks nothing; the test suite never runs
 * it (its name does not end in .test.js). Run after `editors/vscode/tests/run.sh` has installed
 * code-server and packaged the extension, from the repository's root:
 *
 *     ASKD_BIN=target/release/askd node editors/vscode/tests/e2e/latency.bench.js [inputs]
 */
"use strict";

const os = require("node:os");
const path = require("node:path");
const h = require("./harness.js");

const ASKD_BIN = path.resolve(process.env["ASKD_BIN"] ?? "");
const count = Number(process.argv[2] ?? 200);

/**
 * The value below which a share of the samples fall (nearest rank).
 *
 * @param {number[]} values
 * @param {number} share between 0 and 1
 */
function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;
}

/**
 * Prints p50, p99 and the maximum of some samples.
 *
 * @param {string} label
 * @param {number[]} values in milliseconds
 */
function report(label, values) {
  const ms = (/** @type {number} */ value) => `${value.toFixed(2)} ms`.padStart(9);
  console.log(
    `  ${label.padEnd(40)} p50 ${ms(percentile(values, 0.5))}   p99 ${ms(percentile(values, 0.99))}` +
      `   max ${ms(Math.max(...values))}`,
  );
}

/**
 * Does `count` inputs in turn in the panel's frame and answers what the frame measured for each:
 * from the input's event to the first change of the form, and to the animation frame after it.
 *
 * @param {import("playwright-core").Frame} frame
 * @param {"keydown" | "click"} kind
 * @param {(index: number) => Promise<void>} input
 */
async function measure(frame, kind, input) {
  await frame.evaluate((eventName) => {
    const w = /** @type {any} */ (window);
    w.samples = [];
    w.observer?.disconnect();
    if (w.listening !== eventName) {
      w.listening = eventName;
      window.addEventListener(eventName, (event) => {
        w.start = event.timeStamp;
      }, true);
    }
    w.start = null;
    const form = document.querySelector("#askd-flow");
    w.observer = new MutationObserver(() => {
      if (w.start === null) return;
      const changed = performance.now();
      const began = w.start;
      w.start = null;
      requestAnimationFrame(() => {
        w.samples.push({ dom: changed - began, frame: performance.now() - began });
      });
    });
    w.observer.observe(form, { childList: true, subtree: true, characterData: true, attributes: true });
  }, kind);
  for (let index = 0; index < count; index += 1) {
    await input(index);
    await frame.waitForFunction((done) => /** @type {any} */ (window).samples.length === done, index + 1, { polling: "raf" });
  }
  return frame.evaluate(() => /** @type {{ dom: number, frame: number }[]} */ (/** @type {any} */ (window).samples));
}

async function main() {
  const began = Date.now();
  const load = os.loadavg();
  const vs = await h.startVsCode("latency-bench", {
    vsix: [h.VSIX.askd, h.VSIX.fixture],
    settings: { "askd.path": ASKD_BIN, "askd.look": "form" },
  });
  const browser = await h.launchBrowser();
  try {
    const page = await h.openWorkbench(browser, vs.url);
    await h.runCommand(page, "askd: Demo");
    const flow = h.panelFrame(page).locator("#askd-flow");
    await flow.locator("[role=radio]").first().waitFor({ timeout: 60000 });
    const frame = await h.waitFor("the panel's frame", async () => {
      for (const candidate of page.frames()) {
        if ((await candidate.$("#askd-flow .askd-tab").catch(() => null)) !== null) return candidate;
      }
      return undefined;
    });
    const columns = await frame.evaluate(() => document.querySelector("#askd-flow")?.getAttribute("data-step-width"));

    // Tabs: the second (Languages) and the first (Editor) in turn.
    const tabs = await measure(frame, "click", (index) => frame.click(`.askd-tab >> nth=${index % 2 === 0 ? 1 : 0}`));
    // Rows: on the Languages tab, its first row toggled on and off.
    await frame.click(".askd-tab >> nth=1");
    await frame.locator("[role=checkbox]").first().waitFor();
    const rows = await measure(frame, "click", () => frame.click("[role=checkbox] >> nth=0"));
    // Keys, for comparison: Down and Up in turn, the form having the keyboard.
    await frame.locator("[role=checkbox]").first().focus();
    const keys = await measure(frame, "keydown", (index) => page.keyboard.press(index % 2 === 0 ? "ArrowDown" : "ArrowUp"));

    console.log(
      `code-server, form look of askd: Demo (${columns} columns), ${count} inputs of each kind; ` +
        `load average before ${load.map((value) => value.toFixed(2)).join(" ")}, after ${os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(" ")}; ${os.cpus().length} CPUs`,
    );
    report("tab clicks: to the changed DOM", tabs.map((sample) => sample.dom));
    report("tab clicks: to the next frame", tabs.map((sample) => sample.frame));
    report("row clicks: to the changed DOM", rows.map((sample) => sample.dom));
    report("row clicks: to the next frame", rows.map((sample) => sample.frame));
    report("keys (Down/Up): to the changed DOM", keys.map((sample) => sample.dom));
    report("keys (Down/Up): to the next frame", keys.map((sample) => sample.frame));
    console.log(`took ${((Date.now() - began) / 1000).toFixed(0)} s`);
  } finally {
    await browser.close();
    vs.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
