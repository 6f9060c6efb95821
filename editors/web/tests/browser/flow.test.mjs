// The flow in a real Chromium over the bridge to a real askd: a whole flow by keyboard, resizes,
// errors, stale Steps, notifications, pastes outside editors, and screenshots.

import assert from "node:assert/strict";
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUTPUT, launch, mountPayload, openHarness, pageLines } from "./browser.mjs";
import { play } from "./engine.mjs";
import { FLOW_PAYLOAD, checkAgainstPlay, runFlow, waitForScreen } from "./flow.mjs";

const payload = JSON.parse(readFileSync(FLOW_PAYLOAD, "utf8"));
let chromium;

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
});

/**
 * Runs a test body with a fresh harness page and engine, closing both afterwards.
 *
 * @param {object} options as openHarness takes them
 * @param {(harness: Awaited<ReturnType<typeof openHarness>>) => Promise<void>} body
 */
async function withHarness(options, body) {
  const harness = await openHarness(chromium.context, options);
  try {
    await body(harness);
  } finally {
    await harness.close();
  }
}

/**
 * The requests the page sent, other than `getView`, as `[method, key or keys or text]`.
 *
 * @param {Array<{ method: string, params: any }>} calls
 */
function changes(calls) {
  return calls
    .filter((call) => call.method !== "getView" && call.method !== "getResult")
    .map((call) => [call.method, call.params.key ?? call.params.keys ?? call.params.text]);
}

/** The words of the error the flow shows, or `null` while it shows none. */
function shownError(page) {
  return page.$eval(".askd-flow .askd-error", (element) =>
    element.hidden ? null : element.textContent,
  );
}

test("a whole flow answered by keyboard, paste and input method matches askd play", async () => {
  await withHarness({}, async (harness) => {
    const columns = await mountPayload(harness, payload);
    assert.equal(columns, 75);
    const { script } = await runFlow(harness.page);
    assert.equal(
      script,
      "<Tab><S-Tab><Down>nOnly if the docs are ready<CR>2<Space><Down><Down><Space><Down>" +
        "café ünï<CR>2日本語 テスト仮名<CR><Down><Up><CR>",
    );
    const typed = (text) => [...text].map((char) => ["key", char === " " ? "space" : char]);
    assert.deepEqual(changes(harness.calls), [
      ["key", "tab"],
      ["key", "shift+tab"],
      ["key", "down"],
      ["key", "n"],
      ...typed("Only if the docs are ready"),
      ["key", "enter"],
      ["key", "2"],
      ["key", "space"],
      ["key", "down"],
      ["key", "down"],
      ["key", "space"],
      ["key", "down"],
      ...typed("café ün"),
      ["insert", "ï"],
      ["key", "enter"],
      ["key", "2"],
      ["insert", "日本語 テスト"],
      ["insert", "仮名"],
      ["key", "enter"],
      ["key", "down"],
      ["key", "up"],
      ["key", "enter"],
    ]);
    // Steps arrive at the flow's own width, so no getView follows them: one, to draw the first.
    assert.deepEqual(
      harness.calls.filter((call) => call.method === "getView").map((call) => call.params),
      [{ session: "t1", width: 75 }],
    );
    await harness.page.screenshot({ path: join(OUTPUT, "flow-done-light.png") });
  });
});

for (const colorScheme of ["light", "dark"]) {
  test(`an open editor in the ${colorScheme} scheme (screenshot)`, async () => {
    await withHarness({ colorScheme }, async (harness) => {
      const { page } = harness;
      const columns = await mountPayload(harness, payload);
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("n");
      await page.keyboard.type("Only if the docs");
      await checkAgainstPlay(page, "<Down>nOnly if the docs", columns);
      const background = await page.$eval(".askd-flow", (e) => getComputedStyle(e).backgroundColor);
      assert.equal(background, colorScheme === "light" ? "rgb(252, 252, 253)" : "rgb(20, 23, 28)");
      await page.screenshot({ path: join(OUTPUT, `flow-editor-${colorScheme}.png`) });
    });
  });
}

test("a resize draws the flow again at the new columns, and later keys too", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    await mountPayload(harness, payload);
    await page.evaluate(() => window.setFlowWidth(400));
    await page.waitForFunction(() => document.querySelector(".askd-flow").dataset.columns !== "75");
    const columns = await page.evaluate(() => window.flowColumns());
    assert.equal(columns, 47);
    assert.equal(await page.getAttribute(".askd-flow", "data-columns"), "47");
    await checkAgainstPlay(page, "", 47);
    await page.keyboard.press("ArrowDown");
    await checkAgainstPlay(page, "<Down>", 47);
    assert.equal((await pageLines(page))[0], "─".repeat(47));
    // Narrower than twenty columns still draws twenty, as askd renders no narrower.
    await page.evaluate(() => window.setFlowWidth(100));
    await page.waitForFunction(() => document.querySelector(".askd-flow").dataset.columns === "20");
    await checkAgainstPlay(page, "<Down>", 20);
    assert.deepEqual(
      harness.calls.filter((call) => call.method === "getView").map((call) => call.params.width),
      [75, 47, 47, 20],
    );
  });
});

test("a flow mounted without its Steps' width asks for a view at its own after each change", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload, { stepWidth: false });
    await page.keyboard.press("ArrowDown");
    await checkAgainstPlay(page, "<Down>", columns);
    assert.deepEqual(
      harness.calls.map((call) => call.method),
      ["getView", "key", "getView"],
    );
  });
});

test("errors from askd and from the transport are shown in words", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload);
    assert.equal(await shownError(page), null);
    await harness.engine.request("close", { session: "t1" });
    await page.keyboard.press("ArrowDown");
    await page.waitForSelector(".askd-flow .askd-error:not([hidden])");
    assert.equal(await shownError(page), 'askd could not take the key: unknown session "t1" (-32001)');
    assert.equal(await page.getAttribute(".askd-flow .askd-error", "role"), "alert");
    // The screen stays as it was.
    await waitForScreen(page, play(FLOW_PAYLOAD, "", columns).screens.at(-1), "the failed key");

    await page.evaluate(() => {
      const broken = {
        request: () => Promise.reject(new Error("the connection to askd closed")),
        onNotification: () => {},
      };
      window.mountTestFlow({ session: "t1" }, broken);
    });
    await page.waitForSelector(".askd-flow .askd-error:not([hidden])");
    assert.equal(await shownError(page), "askd could not draw the flow: the connection to askd closed");
  });
});

test("Steps older than the one shown are ignored, by version and by request order", async () => {
  await withHarness({}, async (harness) => {
    const { page, engine } = harness;
    const columns = await mountPayload(harness, payload);
    // Changes made by another connection arrive as session/changed notifications.
    const first = await engine.request("key", { session: "t1", key: "down" });
    await harness.notify("session/changed", { ...first, version: 2 });
    await checkAgainstPlay(page, "<Down>", columns);
    const second = await engine.request("key", { session: "t1", key: "down" });
    await harness.notify("session/changed", { ...second, version: 3 });
    await checkAgainstPlay(page, "<Down><Down>", columns);
    await harness.notify("session/changed", { ...first, version: 2 });
    await page.evaluate((step) => window.flowController.setView(step), { ...first, version: 1 });
    await checkAgainstPlay(page, "<Down><Down>", columns);

    // Without versions, the answer to an earlier request loses to a later one's.
    await page.evaluate(() => {
      let held = null;
      const slow = {
        request(method, params) {
          const answer = window.bridgeTransport.request(method, params);
          if (method !== "key" || held !== null) return answer;
          held = new Promise((resolve) => {
            window.releaseHeld = () => answer.then(resolve);
          });
          return held;
        },
        onNotification: (handler) => window.bridgeTransport.onNotification(handler),
      };
      window.mountTestFlow({ session: "t1", stepWidth: window.flowColumns() }, slow);
    });
    await checkAgainstPlay(page, "<Down><Down>", columns);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await checkAgainstPlay(page, "<Down><Down><Up><Up>", columns);
    await page.evaluate(() => window.releaseHeld());
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    await checkAgainstPlay(page, "<Down><Down><Up><Up>", columns);
  });
});

test("a flow found done shows its result, and leaves keys to the browser", async () => {
  await withHarness({}, async (harness) => {
    const { page, engine } = harness;
    const columns = await page.evaluate(() => window.flowColumns());
    await engine.request("open", { session: "t1", payload, width: columns });
    const cancelled = await engine.request("keys", { session: "t1", keys: "<Esc>" });
    assert.equal(cancelled.status, "done");
    await page.evaluate((width) => window.mountTestFlow({ session: "t1", stepWidth: width }), columns);
    await page.waitForSelector('.askd-flow[data-status="done"] .askd-result-json', { state: "attached" });
    assert.deepEqual(
      JSON.parse(await page.locator(".askd-result-json").textContent()),
      cancelled.result,
    );
    assert.equal(await page.locator(".askd-done-heading").textContent(), "This flow is complete.");
    await waitForScreen(page, play(FLOW_PAYLOAD, "<Esc>", columns).screens.at(-1), "cancelling");
    await page.keyboard.press("ArrowDown");
    assert.deepEqual(changes(harness.calls), []);
  });
});

test("a closed flow says so", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    await mountPayload(harness, payload);
    await harness.notify("session/closed", { session: "other" });
    assert.equal(await shownError(page), null);
    await harness.notify("session/closed", { session: "t1" });
    assert.equal(await shownError(page), "This flow was closed: askd no longer holds it.");
  });
});

test("text pasted outside an editor types nothing, and says why; in an editor it is inserted", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload);
    const pasteEvent = (text) =>
      page.evaluate((value) => {
        const data = new DataTransfer();
        data.setData("text/plain", value);
        const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
        document.activeElement.dispatchEvent(event);
      }, text);
    await pasteEvent("2x\ny\t");
    await checkAgainstPlay(page, "", columns);
    assert.deepEqual(changes(harness.calls), []);
    assert.equal(
      await page.locator(".askd-flow .askd-notices").textContent(),
      "Nothing was pasted: paste into a text box — open “Type your own” or a note first.",
    );
    await page.keyboard.press("n");
    await checkAgainstPlay(page, "n", columns);
    await pasteEvent("2x");
    await checkAgainstPlay(page, "n2x", columns);
    assert.deepEqual(changes(harness.calls), [["key", "n"], ["insert", "2x"]]);
  });
});

test("a soft keyboard's Enter, typed as text, is Enter", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key: "Unidentified", windowsVirtualKeyCode: 229 });
    await cdp.send("Input.insertText", { text: "\n" });
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key: "Unidentified", windowsVirtualKeyCode: 229 });
    await cdp.detach();
    await checkAgainstPlay(page, "<CR>", columns);
    assert.deepEqual(changes(harness.calls), [["key", "enter"]]);
  });
});

test("Ctrl+C copies selected text, and dismisses the flow otherwise", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload);
    await page.evaluate(() => {
      const line = document.querySelectorAll(".askd-flow .askd-line")[1];
      document.getSelection().selectAllChildren(line);
    });
    await page.keyboard.press("Control+C");
    assert.deepEqual(changes(harness.calls), []);
    await page.evaluate(() => document.getSelection().removeAllRanges());
    await page.keyboard.press("Control+C");
    await page.waitForSelector('.askd-flow[data-status="done"]');
    assert.deepEqual(changes(harness.calls), [["key", "ctrl+c"]]);
    await waitForScreen(page, play(FLOW_PAYLOAD, "<C-c>", columns).screens.at(-1), "ctrl+c");
  });
});

test("a click gives the flow the keyboard, and a drag selects its text", async () => {
  await withHarness({}, async (harness) => {
    const { page } = harness;
    const columns = await mountPayload(harness, payload);
    await page.evaluate(() => document.activeElement.blur());
    assert.equal(await page.evaluate(() => document.activeElement.tagName), "BODY");
    const title = await page.locator(".askd-flow .askd-line").nth(1).boundingBox();
    await page.mouse.click(title.x + 4, title.y + title.height / 2);
    assert.equal(await page.evaluate(() => document.activeElement.className), "askd-input");
    await page.keyboard.press("ArrowDown");
    await checkAgainstPlay(page, "<Down>", columns);

    await page.mouse.move(title.x + 1, title.y + title.height / 2);
    await page.mouse.down();
    await page.mouse.move(title.x + 200, title.y + title.height / 2, { steps: 5 });
    await page.mouse.up();
    const selected = await page.evaluate(() => document.getSelection().toString());
    assert.ok(selected.startsWith(" Release"), `selected ${JSON.stringify(selected)}`);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: new URL(page.url()).origin,
    });
    await page.keyboard.press("Control+C");
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), selected);
    assert.deepEqual(changes(harness.calls), [["key", "down"]]);
  });
});
