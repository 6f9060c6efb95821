// Clicks and taps in the form look, in a real Chromium over the bridge to a real askd: a whole
// flow of every question type (single, multi, preview, "Type your own", option notes, the
// review) answered by mouse alone at a laptop's size and by touch alone at a phone's, ending in
// the result askd gives for the same answers made with keys. Text is put in the text areas as a
// soft keyboard would; nothing else is typed. They need an askd with `activate`.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUTPUT, SIZES, WEB_ROOT, launch, openHarness } from "./browser.mjs";
import { askdBin, play } from "./engine.mjs";
import { axeViolations, checkFormAgainstPlay } from "./form.mjs";

const TRIP = join(WEB_ROOT, "tests", "fixtures", "trip.json");
const trip = JSON.parse(readFileSync(TRIP, "utf8"));
/** The keys that give the answers the pointer flows give. */
const TRIP_KEYS = "nif warm<CR>2134Rope<CR>22Summer<CR>1";

/** The methods of the askd tested. */
const methods = JSON.parse(
  execFileSync(askdBin(), ["serve", "--no-state"], {
    input: '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n',
    encoding: "utf8",
  }),
).result.methods;
const skip = methods.includes("activate") ? false : "this askd has no activate method";

const browsers = {};

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  if (skip) return;
  browsers.wide = await launch(SIZES.wide);
  browsers.phone = await launch(SIZES.phone);
});

after(async () => {
  await browsers.wide?.close();
  await browsers.phone?.close();
});

for (const [size, how] of [
  ["wide", "mouse"],
  ["phone", "touch"],
]) {
  test(`a whole flow of every question type by ${how} alone (${size})`, { skip }, async () => {
    const harness = await openHarness(browsers[size].context);
    const { page, engine } = harness;
    try {
      await page.evaluate(() => window.setFlowWidth("auto"));
      await engine.request("initialize", { capabilities: { allRows: true } });
      await engine.request("open", { session: "t1", payload: trip });
      await page.evaluate(() => window.mountTestFlow({ session: "t1", look: "form" }));
      await page.waitForSelector(".askd-flow .askd-row");
      const press = (locator) => (how === "touch" ? locator.tap() : locator.click());
      const row = (label) => page.locator(".askd-row", { hasText: label });
      const write = async (text) => {
        const area = page.locator(".askd-editor-text");
        await press(area);
        await area.fill(text);
        await press(page.locator(".askd-editor-buttons button", { hasText: "Save" }));
      };
      let script = "";
      const then = async (keys, action) => {
        await action();
        script += keys;
        await checkFormAgainstPlay(page, script, TRIP);
      };

      await then("n", () => press(page.getByRole("button", { name: "Note on The sea" })));
      await then("if warm<CR>", () => write("if warm"));
      await then("2", () => press(row("The hills")));
      await then("1", () => press(row("Tent")));
      await then("3", () => press(row("Map")));
      await then("4", () => press(row("Type your own")));
      await page.screenshot({ path: join(OUTPUT, `pointer-multi-${size}.png`), fullPage: true });
      await then("Rope<CR>", () => write("Rope"));
      await page.screenshot({ path: join(OUTPUT, `pointer-preview-${size}.png`), fullPage: true });
      assert.deepEqual(await axeViolations(page), []);
      await then("2", () => press(row("Mountain pass")));
      await then("2", () => press(row("Type your own")));
      await then("Summer<CR>", () => write("Summer"));
      await page.screenshot({ path: join(OUTPUT, `pointer-review-${size}.png`), fullPage: true });
      await then("1", () => press(page.getByRole("button", { name: "Submit" })));
      assert.equal(script, TRIP_KEYS);
      await page.waitForSelector('.askd-flow[data-status="done"] .askd-result-json', { state: "attached" });
      const result = JSON.parse(await page.locator(".askd-result-json").textContent());
      assert.deepEqual(result, play(TRIP, TRIP_KEYS, 60).result);
      assert.equal(result.details.answers.bring.customText, "Rope");
      // Nothing was sent as a typed key: clicks and taps went through activate, text through
      // setDraft, and the Save buttons pressed the editors' Enter.
      const sent = harness.calls.map((call) => call.method);
      assert.deepEqual([...new Set(sent)].sort(), ["activate", "getView", "key", "setDraft"].filter((m) => sent.includes(m)));
      assert.deepEqual(
        harness.calls.filter((call) => call.method === "key").map((call) => call.params.key),
        ["enter", "enter", "enter"],
      );
      await page.screenshot({ path: join(OUTPUT, `pointer-done-${size}.png`), fullPage: true });
    } finally {
      await harness.close();
    }
  });
}

test("a click on a tab changes tabs; a target no longer on screen is refused in words", { skip }, async () => {
  const harness = await openHarness(browsers.wide.context);
  const { page, engine } = harness;
  try {
    await page.evaluate(() => window.setFlowWidth("auto"));
    await engine.request("initialize", { capabilities: { allRows: true } });
    await engine.request("open", { session: "t1", payload: trip });
    await page.evaluate(() => window.mountTestFlow({ session: "t1", look: "form" }));
    await page.waitForSelector(".askd-flow .askd-row");
    await page.getByRole("tab", { name: "Route, not answered" }).click();
    // The keyboard stays where the pointer put it, on the tab.
    await checkFormAgainstPlay(page, "<Tab><Tab>", TRIP, { ignoreFocus: true });
    // The flow moves on elsewhere; a click on what this page still shows is refused by askd.
    await engine.request("key", { session: "t1", key: "tab" });
    await page.evaluate(() => window.flowController.activate({ row: 9 }));
    await page.waitForSelector(".askd-flow .askd-error:not([hidden])");
    assert.match(await page.locator(".askd-error").textContent(), /^askd could not take the click: .*\(-32602\)$/);
  } finally {
    await harness.close();
  }
});
