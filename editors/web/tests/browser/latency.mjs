// How long a key takes from its keydown to the repainted flow, in a real Chromium: 200 keys
// (down and up in turn on a question), p50 and p99, three times. First in the page `askd web`
// serves, over askd's own WebSocket listener: what a person answering in a browser gets. Then
// over the test bridge to a real askd, with the share of that spent in the transport (request
// sent to answer received); then with an instant transport that answers the same Steps,
// recorded beforehand, at once: the client's own cost. Then renderLines alone, drawing whole
// screens against redrawing only the lines that changed. A benchmark, not a test: it prints its
// figures and checks nothing.
//
// Run from editors/web: ASKD_BIN=path/to/askd node tests/browser/latency.mjs [keys]

import { readFileSync } from "node:fs";
import { launch, mountPayload, openHarness } from "./browser.mjs";
import { FLOW_PAYLOAD } from "./flow.mjs";
import { startWeb } from "./served.mjs";

const count = Number(process.argv[2] ?? 200);
const payload = JSON.parse(readFileSync(FLOW_PAYLOAD, "utf8"));

/**
 * The value below which a share of the samples fall (nearest rank).
 *
 * @param {number[]} values
 * @param {number} share between 0 and 1
 */
function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

/**
 * Prints p50, p99 and the maximum of some samples.
 *
 * @param {string} label
 * @param {number[]} values in milliseconds
 */
function report(label, values) {
  const ms = (value) => `${value.toFixed(2)} ms`.padStart(9);
  console.log(
    `  ${label.padEnd(40)} p50 ${ms(percentile(values, 0.5))}   p99 ${ms(percentile(values, 0.99))}` +
      `   max ${ms(Math.max(...values))}`,
  );
}

/**
 * Presses down and up in turn, and answers what the page measured for each key: from the
 * keydown to the first change of the screen, to the animation frame after it, and the time the
 * key's request spent in the transport.
 *
 * @param {import("playwright-core").Page} page
 */
async function measureKeys(page) {
  await page.evaluate(() => {
    window.samples = [];
    let start = null;
    window.addEventListener(
      "keydown",
      (event) => {
        start = event.timeStamp;
      },
      true,
    );
    const screen = document.querySelector(".askd-flow .askd-screen");
    new MutationObserver(() => {
      if (start === null) return;
      const changed = performance.now();
      const began = start;
      start = null;
      const transport = window.lastRequestTime ?? 0;
      requestAnimationFrame(() => {
        window.samples.push({ dom: changed - began, frame: performance.now() - began, transport });
      });
    }).observe(screen, { childList: true, subtree: true, characterData: true });
  });
  for (let index = 0; index < count; index += 1) {
    await page.keyboard.press(index % 2 === 0 ? "ArrowDown" : "ArrowUp");
    await page.waitForFunction((done) => window.samples.length === done, index + 1, {
      polling: "raf",
    });
  }
  return page.evaluate(() => window.samples);
}

const chromium = await launch();

// In the page `askd web` serves, over its WebSocket.
const web = await startWeb(FLOW_PAYLOAD);
const served = await chromium.context.newPage();
let overSocket;
try {
  await served.goto(web.page);
  await served.waitForSelector(".askd-flow .askd-line");
  await served.locator(".askd-flow").focus();
  overSocket = await measureKeys(served);
} finally {
  await served.close();
  web.kill();
}

const harness = await openHarness(chromium.context);
try {
  const { page, engine } = harness;
  const columns = await mountPayload(harness, payload);

  // Over the bridge, timing each request in the transport.
  await page.evaluate((width) => {
    const timed = {
      async request(method, params) {
        const sent = performance.now();
        const answer = await window.bridgeTransport.request(method, params);
        window.lastRequestTime = performance.now() - sent;
        return answer;
      },
      onNotification: (handler) => window.bridgeTransport.onNotification(handler),
    };
    window.mountTestFlow({ session: "t1", stepWidth: width }, timed);
  }, columns);
  await page.waitForSelector(".askd-flow .askd-line");
  const bridged = await measureKeys(page);

  // With an instant transport answering recorded Steps.
  const down = await engine.request("key", { session: "t1", key: "down" });
  const up = await engine.request("key", { session: "t1", key: "up" });
  await page.reload();
  await page.waitForFunction(() => window.harnessReady === true);
  await page.evaluate(
    ([steps, width]) => {
      // Each answer is a newer version, as askd's would be: an older one is not drawn.
      let version = steps.up.version;
      const instant = {
        request(method, params) {
          if (method === "getView") return Promise.resolve(steps.up.view);
          version += 1;
          return Promise.resolve({ ...(params.key === "down" ? steps.down : steps.up), version });
        },
        onNotification: () => {},
      };
      window.mountTestFlow({ session: "t1", stepWidth: width }, instant);
    },
    [{ down, up }, columns],
  );
  await page.waitForSelector(".askd-flow .askd-line");
  const instant = await measureKeys(page);

  // renderLines alone: drawing a screen whole, against redrawing only its changed lines, for
  // the same alternation of screens, each followed by the layout the browser needs to paint.
  const drawing = await page.evaluate(
    ([screens, rounds]) => {
      const box = document.getElementById("scratch");
      const time = (prepare) => {
        const samples = [];
        for (let round = 0; round < rounds; round += 1) {
          prepare();
          const began = performance.now();
          window.askdView.renderLines(box, screens[round % 2]);
          void box.offsetHeight;
          samples.push(performance.now() - began);
        }
        return samples;
      };
      box.replaceChildren();
      const whole = time(() => box.replaceChildren());
      const changed = time(() => {});
      box.replaceChildren();
      return { whole, changed };
    },
    [[down.view.lines, up.view.lines], 400],
  );

  console.log(`keydown to repainted flow, ${count} keys, ${columns} columns:`);
  report("askd web's page: to the changed DOM", overSocket.map((s) => s.dom));
  report("askd web's page: to the next frame", overSocket.map((s) => s.frame));
  report("bridge: to the changed DOM", bridged.map((s) => s.dom));
  report("bridge: to the next frame", bridged.map((s) => s.frame));
  report("bridge: of which in the transport", bridged.map((s) => s.transport));
  report("bridge: the rest (the client)", bridged.map((s) => s.dom - s.transport));
  report("instant transport: to the changed DOM", instant.map((s) => s.dom));
  report("instant transport: to the next frame", instant.map((s) => s.frame));
  console.log("renderLines and layout, 400 draws of a key's two screens:");
  report("the whole screen", drawing.whole);
  report("only the changed lines", drawing.changed);
} finally {
  await harness.close();
  await chromium.close();
}
