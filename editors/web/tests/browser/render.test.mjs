// The renderer in a real Chromium: the DOM renderLines builds, which lines it redraws, that wide
// characters take two cells and every screen keeps its columns, how columns are measured, and
// which keys real key presses become.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HARNESS, launch } from "./browser.mjs";
import { playSteps } from "./engine.mjs";
import { FLOW_PAYLOAD } from "./flow.mjs";

let chromium;
let page;

/**
 * How many cells a width in pixels is: a whole number when it is within a fiftieth of a cell of
 * one (layout rounds to fractions of a pixel), the exact ratio otherwise, so that a comparison
 * with whole numbers fails on any real misalignment.
 *
 * @param {number} width
 * @param {number} cell
 * @returns {number}
 */
function cellsOf(width, cell) {
  const cells = width / cell;
  return Math.abs(cells - Math.round(cells)) < 0.02 ? Math.round(cells) : cells;
}

before(async () => {
  chromium = await launch();
  page = await chromium.context.newPage();
  await page.goto(HARNESS);
  await page.waitForFunction(() => window.harnessReady === true);
});

after(async () => {
  await chromium?.close();
});

/**
 * Draws lines into the scratch element and answers its HTML.
 *
 * @param {Array<Array<{ text: string, style: string }>>} lines
 * @returns {Promise<string>}
 */
function draw(lines) {
  return page.evaluate((given) => {
    const scratch = document.getElementById("scratch");
    window.askdView.renderLines(scratch, given);
    return scratch.innerHTML;
  }, lines);
}

test("renderLines draws one block per line and one styled span per span, text exact", async () => {
  await page.evaluate(() => document.getElementById("scratch").replaceChildren());
  const html = await draw([
    [{ text: "──────", style: "border" }],
    [
      { text: " ", style: "text" },
      { text: "Setup", style: "title" },
      { text: "  ", style: "text" },
    ],
    [],
    [
      { text: " ❯ ", style: "accent" },
      { text: "<b>&amp;</b>", style: "selected" },
      { text: "x", style: "no such style" },
    ],
    [{ text: "名前 ok", style: "muted" }],
  ]);
  assert.equal(
    html,
    '<div class="askd-line"><span class="askd-border">──────</span></div>' +
      '<div class="askd-line"><span class="askd-text"> </span><span class="askd-title">Setup</span>' +
      '<span class="askd-text">  </span></div>' +
      '<div class="askd-line"></div>' +
      '<div class="askd-line"><span class="askd-accent"> ❯ </span>' +
      '<span class="askd-selected">&lt;b&gt;&amp;amp;&lt;/b&gt;</span><span class="askd-text">x</span></div>' +
      '<div class="askd-line"><span class="askd-muted"><span class="askd-wide">名</span>' +
      '<span class="askd-wide">前</span> ok</span></div>',
  );
  const whiteSpace = await page.$eval("#scratch .askd-line", (line) => getComputedStyle(line).whiteSpace);
  assert.equal(whiteSpace, "pre");
  // Leading and trailing spaces keep their width.
  const widths = await page.$$eval("#scratch .askd-line:nth-child(2) span", (spans) =>
    spans.map((span) => span.getBoundingClientRect().width),
  );
  const cell = await page.evaluate(() => {
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(100);
    document.getElementById("scratch").append(probe);
    const width = probe.getBoundingClientRect().width / 100;
    probe.remove();
    return width;
  });
  assert.deepEqual(
    widths.map((width) => cellsOf(width, cell)),
    [1, 5, 2],
  );
});

test("renderLines redraws only the lines that changed", async () => {
  const line = (text) => [{ text, style: "text" }];
  await page.evaluate(() => document.getElementById("scratch").replaceChildren());
  await draw([line("a"), line("b"), line("c"), line("d")]);
  await page.evaluate(() => {
    [...document.querySelectorAll("#scratch .askd-line")].forEach((element, index) => {
      element.dataset.mark = String(index);
    });
  });
  await draw([line("a"), line("B"), line("c")]);
  const afterShrink = await page.$$eval("#scratch .askd-line", (lines) =>
    lines.map((element) => [element.textContent, element.dataset.mark ?? "new"]),
  );
  assert.deepEqual(afterShrink, [
    ["a", "0"],
    ["B", "new"],
    ["c", "2"],
  ]);
  await draw([line("a"), line("B"), [{ text: "c", style: "accent" }], line("e"), line("f")]);
  const afterGrow = await page.$$eval("#scratch .askd-line", (lines) =>
    lines.map((element) => [element.textContent, element.dataset.mark ?? "new"]),
  );
  assert.deepEqual(afterGrow, [
    ["a", "0"],
    ["B", "new"],
    ["c", "new"],
    ["e", "new"],
    ["f", "new"],
  ]);
});

/**
 * Draws lines in the scratch element and answers the pixel width of each line's text.
 *
 * @param {Array<Array<{ text: string, style: string }>>} lines
 * @returns {Promise<{ widths: number[], cell: number }>}
 */
function measure(lines) {
  return page.evaluate((given) => {
    const scratch = document.getElementById("scratch");
    scratch.replaceChildren();
    window.askdView.renderLines(scratch, given);
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(100);
    scratch.append(probe);
    const cell = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const widths = [...scratch.children].map((line) => {
      const range = document.createRange();
      range.selectNodeContents(line);
      return range.getBoundingClientRect().width;
    });
    return { widths, cell };
  }, lines);
}

test("a line of wide characters is as wide as an ASCII line of the same columns", async () => {
  const texts = [
    "日本語テスト",
    "abcdefghijkl",
    "한국어 텍스트",
    "abcdefghijklm",
    "a名b",
    "abcd",
    "ｆｕｌｌ",
    "abcdefgh",
  ];
  const { widths, cell } = await measure(texts.map((text) => [{ text, style: "text" }]));
  assert.ok(cell > 5, `a cell is ${cell}px`);
  assert.deepEqual(
    widths.map((width) => cellsOf(width, cell)),
    [12, 12, 13, 13, 4, 4, 8, 8],
  );
});

test("every line of every screen of the flow takes its columns exactly", async () => {
  const keys =
    "<Down>nOnly if the docs are ready<CR>2<Space><Down><Down><Space><Down>café ünï<CR>" +
    "2日本語 テスト<CR>";
  for (const width of [75, 40]) {
    const steps = playSteps(FLOW_PAYLOAD, keys, width);
    for (const [index, step] of steps.entries()) {
      const { widths, cell } = await measure(step.view.lines);
      const columns = await page.evaluate(
        (lines) => lines.map((spans) => window.askdView.columnsOf(spans.map((s) => s.text).join(""))),
        step.view.lines,
      );
      assert.equal(columns[0], width, "the top rule spans the width");
      assert.deepEqual(
        widths.map((measured) => cellsOf(measured, cell)),
        columns,
        `screen ${index} at width ${width}`,
      );
    }
  }
});

test("columnsFor fits whole cells of the element's own font, never fewer than 20", async () => {
  const result = await page.evaluate(() => {
    const box = document.createElement("div");
    box.className = "askd";
    box.style.fontSize = "20px";
    box.style.padding = "0 10px";
    document.body.append(box);
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(100);
    box.append(probe);
    const cell = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const columnsAt = (cells) => {
      box.style.width = `${cells * cell}px`;
      return window.askdView.columnsFor(box);
    };
    const found = [columnsAt(30), columnsAt(30.9), columnsAt(29.99), columnsAt(5), columnsAt(120)];
    const probesLeft = box.childElementCount;
    box.remove();
    return { found, probesLeft };
  });
  assert.deepEqual(result, { found: [30, 30, 29, 20, 120], probesLeft: 0 });
});

test("real key presses map to askd keys, and the browser keeps its own", async () => {
  await page.evaluate(() => {
    const target = document.getElementById("scratch");
    target.tabIndex = 0;
    target.focus();
    window.pressed = [];
    target.onkeydown = (event) => {
      window.pressed.push(window.askdView.keyFromEvent(event));
      event.preventDefault();
    };
  });
  const presses = [
    ["ArrowUp", "up"],
    ["ArrowDown", "down"],
    ["ArrowLeft", "left"],
    ["ArrowRight", "right"],
    ["Tab", "tab"],
    ["Shift+Tab", "shift+tab"],
    ["Enter", "enter"],
    ["Shift+Enter", "shift+enter"],
    ["Alt+Enter", "alt+enter"],
    ["Escape", "escape"],
    ["Space", "space"],
    ["Backspace", "backspace"],
    ["Alt+Backspace", "alt+backspace"],
    ["Delete", "delete"],
    ["Home", "home"],
    ["End", "end"],
    ["PageUp", "pageup"],
    ["PageDown", "pagedown"],
    ["Control+ArrowLeft", "ctrl+left"],
    ["Control+a", "ctrl+a"],
    ["Control+c", "ctrl+c"],
    ["Control+w", "ctrl+w"],
    ["Alt+b", "alt+b"],
    ["Alt+f", "alt+f"],
    ["n", "n"],
    ["Shift+N", "N"],
    ["Shift+Digit1", "!"],
    ["2", "2"],
    ["?", "?"],
    ["<", "<"],
    ["Shift", null],
    ["Control", null],
    ["Alt", null],
    ["Meta", null],
    ["CapsLock", null],
    ["Control+v", null],
    ["Control+Shift+V", null],
    ["Meta+a", null],
    ["Control+1", null],
    ["F2", null],
    ["Insert", null],
  ];
  // The last keydown of a chord is its key: the modifiers' own keydowns come first.
  const pressed = [];
  for (const [press] of presses) {
    await page.evaluate(() => {
      window.pressed = [];
    });
    await page.keyboard.press(press);
    pressed.push(await page.evaluate(() => window.pressed.at(-1)));
  }
  assert.deepEqual(
    pressed,
    presses.map(([, key]) => key),
  );
});
