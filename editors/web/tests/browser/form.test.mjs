// The form look in a real Chromium over the bridge to a real askd: a whole flow by keyboard,
// checked view by view against `askd play`; what a screen reader reads (the accessibility tree);
// axe-core's WCAG 2.2 AA checks at a laptop's and a phone's size, light and dark; touch targets;
// pastes outside an editor; a soft keyboard's Enter; and screenshots.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HARNESS, OUTPUT, SIZES, launch, openHarness } from "./browser.mjs";
import { FLOW_PAYLOAD, FLOW_RESULT } from "./flow.mjs";
import { axeViolations, checkFormAgainstPlay, runFormFlow } from "./form.mjs";

const payload = JSON.parse(readFileSync(FLOW_PAYLOAD, "utf8"));
const browsers = {};

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  browsers.wide = await launch(SIZES.wide);
  browsers.phone = await launch(SIZES.phone);
});

after(async () => {
  await browsers.wide?.close();
  await browsers.phone?.close();
});

/**
 * Runs a test body with a fresh harness page and engine showing the flow fixture in the form
 * look, closing both afterwards.
 *
 * @param {{ size?: "wide" | "phone", colorScheme?: "light" | "dark", payload?: object }} options
 * @param {(harness: Awaited<ReturnType<typeof openHarness>>) => Promise<void>} body
 */
async function withForm(options, body) {
  const harness = await openHarness(browsers[options.size ?? "wide"].context, options);
  try {
    await harness.page.evaluate(() => window.setFlowWidth("auto"));
    const { methods } = await harness.engine.request("initialize", { capabilities: { allRows: true } });
    harness.methods = methods;
    await harness.engine.request("open", { session: "t1", payload: options.payload ?? payload });
    await harness.page.evaluate(() => window.mountTestFlow({ session: "t1", look: "form" }));
    await harness.page.waitForSelector(".askd-flow .askd-row");
    await body(harness);
  } finally {
    await harness.close();
  }
}

/** The requests the page sent, as `[method, what]`, leaving out views and results read. */
function changes(calls) {
  return calls
    .filter((call) => call.method !== "getView" && call.method !== "getResult")
    .map((call) => [call.method, call.params.key ?? call.params.keys ?? call.params.text ?? call.params.target]);
}

test("a whole flow answered by keyboard in the form matches askd play's views", async () => {
  await withForm({}, async (harness) => {
    const { script, result, composing } = await runFormFlow(harness.page);
    assert.equal(
      script,
      "<Tab><S-Tab><Down>nOnly if the docs are ready<CR>2<Space><Down><Down><Space><Down>" +
        "café ünï<CR>2日本語 テスト仮名<CR><Down><Up><CR>",
    );
    assert.deepEqual(result, FLOW_RESULT);
    // The input method's composition showed in the text area while it composed.
    assert.equal(composing, "日本語 テストかな");
    // Keys outside the text areas went to askd one by one, exactly as in the terminal look; the
    // editors' text went whole, and their Enter after it (or, where askd lacks setDraft, the
    // text was saved as Enter would save it).
    const key = (name) => ["key", name];
    const saved = (method, text) =>
      harness.methods.includes("setDraft") ? [["setDraft", text], key("enter")] : [[method, text]];
    // A text area's every change goes whole with setDraft; what counts is the last before Enter.
    const sent = [];
    for (const change of changes(harness.calls)) {
      if (change[0] === "setDraft" && !harness.methods.includes("setDraft")) continue;
      if (change[0] === "setDraft" && sent.at(-1)?.[0] === "setDraft") sent[sent.length - 1] = change;
      else sent.push(change);
    }
    assert.deepEqual(
      sent,
      [
        key("tab"), key("shift+tab"), key("down"), key("n"),
        ...saved("setNote", "Only if the docs are ready"),
        key("2"), key("space"), key("down"), key("down"), key("space"), key("down"),
        ...saved("saveCustom", "café ünï"),
        key("2"),
        ...saved("saveCustom", "日本語 テスト仮名"),
        key("down"), key("up"), key("enter"),
      ],
    );
    await harness.page.screenshot({ path: join(OUTPUT, "form-done-wide.png"), fullPage: true });
  });
});

test("the accessibility tree names every part of a question as a screen reader reads it", async () => {
  await withForm({}, async ({ page }) => {
    // axe-core does find a violation when there is one.
    await page.evaluate(() => document.querySelector(".askd-flow").style.setProperty("--askd-muted", "#dddddd"));
    assert.match((await axeViolations(page)).join("\n"), /^color-contrast: /);
    await page.evaluate(() => document.querySelector(".askd-flow").style.removeProperty("--askd-muted"));
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await checkFormAgainstPlay(page, "<Down><Up>");
    assert.equal(
      await page.locator(".askd-flow").ariaSnapshot(),
      [
        "- heading \"Release plan\" [level=2]",
        "- paragraph: 0 of 3 answered",
        "- tablist \"Questions\":",
        "  - tab \"Scope, not answered\" [selected]: Scope",
        "  - tab \"Checks, not answered\": Checks",
        "  - tab \"名前, not answered\": 名前",
        "  - tab \"Submit\"",
        "- tabpanel \"Scope\":",
        "  - heading \"How much should the next release cover?\" [level=3]",
        "  - radiogroup \"How much should the next release cover?\":",
        "    - radio \"Patch only Recommended\": Patch only Recommended Bug fixes; no new flags",
        "    - button \"Note on Patch only\": Note",
        "    - radio \"Minor\": Minor The new commands, with their docs",
        "    - button \"Note on Minor\": Note",
        "    - radio \"Major\"",
        "    - button \"Note on Major\": Note",
        "    - radio \"Type your own\"",
        "  - button \"Add a note to the question\"",
        "- paragraph: ↑ up · ↓ down · Tab/→ next tab · Shift+Tab/← previous tab · Enter confirm · " +
          "Space toggle · n option note · N question note · 1-4 quick select · Esc cancel · ctrl+c dismiss",
      ].join("\n"),
    );
    // Focus is on the active row, named with its description.
    const focused = await page.evaluate(() => {
      const row = document.activeElement;
      const describedBy = row.getAttribute("aria-describedby").split(" ");
      return {
        role: row.getAttribute("role"),
        checked: row.getAttribute("aria-checked"),
        description: describedBy.map((id) => document.getElementById(id).textContent).join(" "),
      };
    });
    assert.deepEqual(focused, { role: "radio", checked: "false", description: "Bug fixes; no new flags" });
  });
});

for (const size of ["wide", "phone"]) {
  for (const colorScheme of ["light", "dark"]) {
    test(`axe-core finds no WCAG 2.2 AA violation in any screen (${size}, ${colorScheme})`, async () => {
      await withForm({ size, colorScheme }, async ({ page }) => {
        const screens = [
          ["a single question", ""],
          ["an option note", "<Down>n"],
          ["a multi question", "<Down>nsoon<CR>2<Space>"],
          ["the custom answer", "<Down>nsoon<CR>2<Space><Down><Down><Down>x"],
          ["the review", "<Down>nsoon<CR>2<Space><Down><Down><Down>x<CR>1"],
        ];
        let done = "";
        for (const [name, script] of screens) {
          for (const key of script.slice(done.length).match(/<[^>]+>|./gu) ?? []) {
            const named = { "<Down>": "ArrowDown", "<CR>": "Enter", "<Space>": "Space" }[key];
            await page.keyboard.press(named ?? key);
            done += key;
            await checkFormAgainstPlay(page, done);
          }
          assert.deepEqual(await axeViolations(page), [], name);
          await page.screenshot({
            path: join(OUTPUT, `form-${name.replace(/ /g, "-")}-${size}-${colorScheme}.png`),
            fullPage: true,
          });
        }
        await page.keyboard.press("Enter");
        await page.waitForSelector('.askd-flow[data-status="done"]');
        assert.deepEqual(await axeViolations(page), [], "the end of the flow");
      });
    });
  }
}

test("every control is at least 44 by 44 px at a phone's width", async () => {
  await withForm({ size: "phone" }, async ({ page }) => {
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("n");
    await page.waitForSelector(".askd-editor:not([hidden])");
    const small = await page.evaluate(() =>
      [...document.querySelectorAll(".askd-flow button, .askd-flow [role=radio], .askd-flow [role=checkbox], .askd-flow [role=tab]")]
        .filter((element) => element.offsetParent !== null)
        .map((element) => {
          const box = element.getBoundingClientRect();
          return { name: element.textContent, width: box.width, height: box.height };
        })
        .filter((box) => box.width < 44 || box.height < 44),
    );
    assert.deepEqual(small, []);
    // Nothing is wider than the screen.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
  });
});

test("the keyboard's place is drawn: a focus ring on the focused row", async () => {
  await withForm({}, async ({ page }) => {
    await page.keyboard.press("ArrowDown");
    await checkFormAgainstPlay(page, "<Down>");
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement);
      return `${style.outlineStyle} ${style.outlineWidth}`;
    });
    assert.equal(outline, "solid 2px");
  });
});

test("text pasted outside an editor types nothing, and says why", async () => {
  await withForm({}, async (harness) => {
    const { page } = harness;
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData("text/plain", "2");
      const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
      document.activeElement.dispatchEvent(event);
    });
    await checkFormAgainstPlay(page, "");
    assert.deepEqual(changes(harness.calls), []);
    assert.equal(
      await page.locator(".askd-notices").textContent(),
      "Nothing was pasted: paste into a text box — open “Type your own” or a note first.",
    );
    assert.equal(await page.locator(".askd-notices").getAttribute("aria-live"), "polite");
  });
});

test("a soft keyboard's Enter, sent as text into the editor, saves as Enter does", async () => {
  await withForm({}, async (harness) => {
    const { page } = harness;
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("n");
    await checkFormAgainstPlay(page, "<Down>n");
    await page.keyboard.type("soon");
    const cdp = await page.context().newCDPSession(page);
    // What Android keyboards send: a key event that names no key, then the line break as text.
    await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key: "Unidentified", windowsVirtualKeyCode: 229 });
    await cdp.send("Input.insertText", { text: "\n" });
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key: "Unidentified", windowsVirtualKeyCode: 229 });
    await cdp.detach();
    await checkFormAgainstPlay(page, "<Down>nsoon<CR>");
  });
});

test("the waiting list names who asked and when, oldest first, and marks the flow shown", async () => {
  const page = await browsers.phone.context.newPage();
  try {
    await page.goto(HARNESS);
    await page.waitForFunction(() => window.harnessReady === true);
    const picked = await page.evaluate(async () => {
      const { renderWaitingList, waitingOrder } = await import("/askd-waiting.js");
      const now = Date.UTC(2026, 0, 1, 12, 0, 0);
      const open = waitingOrder([
        { session: "b", title: "Deploy?", status: "open", openedAt: now - 180_000, asker: { name: "codex", folder: "/home/ana/work/shop" } },
        { session: "a", title: "Which database?", status: "open", openedAt: now - 7_200_000, asker: { name: "claude-code", folder: "/home/ana/api" } },
        { session: "c", status: "open", asker: { name: "opencode" } },
      ]);
      const finished = [{ session: "d", title: "Lunch", status: "done", openedAt: now - 60_000 }];
      const picks = [];
      const box = document.getElementById("scratch");
      renderWaitingList(box, open, finished, "b", (session) => picks.push(session), now);
      box.querySelectorAll(".askd-waiting-item")[2].click();
      return picks;
    });
    assert.deepEqual(picked, ["c"]);
    assert.equal(
      await page.locator("#scratch").ariaSnapshot(),
      [
        '- heading "3 questions waiting, oldest first" [level=2]',
        "- list:",
        "  - listitem:",
        '    - button "Which database? claude-code · in …/ana/api · asked 2 h ago"',
        "  - listitem:",
        '    - button "Deploy? codex · in …/work/shop · asked 3 min ago"',
        "  - listitem:",
        '    - button "c opencode"',
        '- heading "Finished" [level=3]',
        "- list:",
        "  - listitem:",
        '    - button "Lunch asked 1 min ago · done"',
      ].join("\n"),
    );
    assert.equal(await page.getAttribute('.askd-waiting-item[data-session="b"]', "aria-current"), "true");
    assert.equal(await page.getAttribute(".askd-waiting-about >> nth=1", "title"), "/home/ana/work/shop");
    assert.deepEqual(await axeViolations(page), []);
  } finally {
    await page.close();
  }
});
