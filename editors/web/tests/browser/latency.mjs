// How long a key or a click takes from its event to the repainted flow, in a real Chromium: 200
// inputs, p50 and p99. First in the page `askd web` serves, over askd's own WebSocket listener
// (what a person answering in a browser gets): keys in the terminal look, keys in the form look,
// and clicks on the form's tabs (`activate`, when the askd measured has it). Then over the test
// bridge to a real askd, with the share of that spent in the transport (request sent to answer
// received); then with an instant transport that answers the same Steps, recorded beforehand, at
// once: the client's own cost, for keys in both looks and for clicks. Then renderLines alone,
// drawing whole screens against redrawing only the lines that changed. A benchmark, not a test:
// it prints its figures and checks nothing.
//
// Run from editors/web: ASKD_BIN=path/to/askd node tests/browser/latency.mjs [inputs]

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
    `  ${label.padEnd(44)} p50 ${ms(percentile(values, 0.5))}   p99 ${ms(percentile(values, 0.99))}` +
      `   max ${ms(Math.max(...values))}`,
  );
}

/**
 * Does `count` inputs in turn, and answers what the page measured for each: from the input's
 * event (a keydown, or a click) to the first change of the flow's drawing, to the animation frame
 * after it, and the time its request spent in the transport.
 *
 * @param {import("playwright-core").Page} page
 * @param {"keydown" | "click"} kind the event an input starts with
 * @param {(index: number) => Promise<void>} input does input number `index`
 */
async function measure(page, kind, input) {
  await page.evaluate((eventName) => {
    window.samples = [];
    let start = null;
    window.addEventListener(
      eventName,
      (event) => {
        start = event.timeStamp;
      },
      true,
    );
    const screen = document.querySelector(".askd-flow .askd-screen, .askd-flow .askd-form");
    new MutationObserver(() => {
      if (start === null) return;
      const changed = performance.now();
      const began = start;
      start = null;
      const transport = window.lastRequestTime ?? 0;
      requestAnimationFrame(() => {
        window.samples.push({ dom: changed - began, frame: performance.now() - began, transport });
      });
    }).observe(screen, { childList: true, subtree: true, characterData: true, attributes: true });
  }, kind);
  for (let index = 0; index < count; index += 1) {
    await input(index);
    await page.waitForFunction((done) => window.samples.length === done, index + 1, {
      polling: "raf",
    });
  }
  return page.evaluate(() => window.samples);
}

/**
 * Presses down and up in turn.
 *
 * @param {import("playwright-core").Page} page
 */
function measureKeys(page) {
  return measure(page, "keydown", (index) => page.keyboard.press(index % 2 === 0 ? "ArrowDown" : "ArrowUp"));
}

/**
 * Clicks the form's second and first tab in turn.
 *
 * @param {import("playwright-core").Page} page
 */
function measureClicks(page) {
  return measure(page, "click", (index) => page.click(`.askd-tab >> nth=${index % 2 === 0 ? 1 : 0}`));
}

/**
 * Opens the page `askd web` serves for the flow fixture in a look, runs `body` on it, and closes
 * both.
 *
 * @param {"terminal" | "form"} look
 * @param {(page: import("playwright-core").Page) => Promise<any>} body
 */
async function inWebPage(look, body) {
  const web = await startWeb(FLOW_PAYLOAD);
  const page = await chromium.context.newPage();
  try {
    await page.goto(`${web.page}&look=${look}`);
    await page.waitForSelector(look === "form" ? ".askd-flow .askd-row" : ".askd-flow .askd-line");
    await page.locator(".askd-flow").focus();
    return await body(page);
  } finally {
    await page.close();
    web.kill();
  }
}

const chromium = await launch();
const methods = JSON.parse(
  (await import("node:child_process")).execFileSync(process.env.ASKD_BIN, ["serve", "--no-state"], {
    input: '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n',
    encoding: "utf8",
  }),
).result.methods;
const clicks = methods.includes("activate");

const overSocket = await inWebPage("terminal", measureKeys);
const formOverSocket = await inWebPage("form", measureKeys);
const clicksOverSocket = clicks ? await inWebPage("form", measureClicks) : null;

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

  // The form look with an instant transport: keys (down and up) and clicks on the tabs, each
  // answered by the Step the same change makes in askd.
  await engine.request("close", { session: "t1" });
  await engine.request("open", { session: "t1", payload, width: columns, allRows: true });
  const formSteps = {
    first: await engine.request("getView", { session: "t1" }),
    down: await engine.request("key", { session: "t1", key: "down" }),
    up: await engine.request("key", { session: "t1", key: "up" }),
    tab1: await engine.request("key", { session: "t1", key: "tab" }),
    tab0: await engine.request("key", { session: "t1", key: "shift+tab" }),
  };
  const instantForm = async (measureWith) => {
    await page.reload();
    await page.waitForFunction(() => window.harnessReady === true);
    await page.evaluate((steps) => {
      // How long the form's own drawing and the keyboard's moves take, within each input.
      window.parts = { render: [], focus: [] };
      const timed = (owner, name, into) => {
        const original = owner[name];
        owner[name] = function (...args) {
          const began = performance.now();
          const answer = original.apply(this, args);
          window.parts[into].push(performance.now() - began);
          return answer;
        };
      };
      timed(window.askdView.Form.prototype, "render", "render");
      timed(window.HTMLElement.prototype, "focus", "focus");
      let version = steps.tab0.version;
      const answer = (step) => {
        version += 1;
        return Promise.resolve({ ...step, version });
      };
      const recorded = {
        request(method, params) {
          if (method === "getView") return Promise.resolve(steps.first);
          if (method === "activate") return answer(params.target.tab === 1 ? steps.tab1 : steps.tab0);
          return answer(params.key === "down" ? steps.down : steps.up);
        },
        onNotification: () => {},
      };
      window.setFlowWidth("auto");
      window.mountTestFlow({ session: "t1", look: "form" }, recorded);
    }, formSteps);
    await page.waitForSelector(".askd-flow .askd-row");
    const samples = await measureWith(page);
    const parts = await page.evaluate(() => window.parts);
    return Object.assign(samples, { parts });
  };
  const instantFormKeys = await instantForm(measureKeys);
  const instantFormClicks = await instantForm(measureClicks);

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

  console.log(`keydown or click to repainted flow, ${count} inputs, ${columns} columns:`);
  report("askd web's page, terminal, keys: to the DOM", overSocket.map((s) => s.dom));
  report("askd web's page, terminal, keys: to the frame", overSocket.map((s) => s.frame));
  report("askd web's page, form, keys: to the DOM", formOverSocket.map((s) => s.dom));
  report("askd web's page, form, keys: to the frame", formOverSocket.map((s) => s.frame));
  if (clicksOverSocket === null) {
    console.log("  askd web's page, form, clicks: not measured (this askd has no activate)");
  } else {
    report("askd web's page, form, clicks: to the DOM", clicksOverSocket.map((s) => s.dom));
    report("askd web's page, form, clicks: to the frame", clicksOverSocket.map((s) => s.frame));
  }
  report("bridge: to the changed DOM", bridged.map((s) => s.dom));
  report("bridge: to the next frame", bridged.map((s) => s.frame));
  report("bridge: of which in the transport", bridged.map((s) => s.transport));
  report("bridge: the rest (the client)", bridged.map((s) => s.dom - s.transport));
  report("instant transport: to the changed DOM", instant.map((s) => s.dom));
  report("instant transport: to the next frame", instant.map((s) => s.frame));
  report("instant, form, keys: to the changed DOM", instantFormKeys.map((s) => s.dom));
  report("instant, form, keys: to the next frame", instantFormKeys.map((s) => s.frame));
  report("instant, form, clicks: to the changed DOM", instantFormClicks.map((s) => s.dom));
  report("instant, form, clicks: to the next frame", instantFormClicks.map((s) => s.frame));
  for (const [label, samples] of [["keys", instantFormKeys], ["clicks", instantFormClicks]]) {
    report(`instant, form, ${label}: the form's render`, samples.parts.render);
    const focus = samples.parts.focus;
    if (focus.length > 0) report(`instant, form, ${label}: focus() (${focus.length} calls)`, focus);
  }
  console.log("renderLines and layout, 400 draws of a key's two screens:");
  report("the whole screen", drawing.whole);
  report("only the changed lines", drawing.changed);
} finally {
  await harness.close();
  await chromium.close();
}
