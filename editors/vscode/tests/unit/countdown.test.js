// @ts-check
/**
 * The panel's countdown (`media/countdown.js`, a module of the webview page): its exact texts,
 * its warning threshold and when it is drawn again.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");

/** The page's module, loaded as the webview loads it (an ES module). */
function loadCountdown() {
  const source = fs.readFileSync(path.join(__dirname, "..", "..", "media", "countdown.js"), "utf8");
  return import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
}

const DEADLINE = 1_796_134_920_000;

test("the countdown: m:ss, h:mm:ss from an hour, whole seconds rounded up, 0:00 once passed", async () => {
  const { countdownText, secondsLeft, WARNING_SECONDS } = await loadCountdown();
  assert.deepEqual(
    [300_000, 299_001, 299_000, 60_000, 59_999, 10_000, 1, 0, -5_000, 3_600_000, 3_599_001, 3_599_000, 36_061_000].map(
      (left) => countdownText(DEADLINE, DEADLINE - left),
    ),
    [
      "Times out in 5:00",
      "Times out in 5:00",
      "Times out in 4:59",
      "Times out in 1:00",
      "Times out in 1:00",
      "Times out in 0:10",
      "Times out in 0:01",
      "Times out in 0:00",
      "Times out in 0:00",
      "Times out in 1:00:00",
      "Times out in 1:00:00",
      "Times out in 59:59",
      "Times out in 10:01:01",
    ],
  );
  assert.equal(WARNING_SECONDS, 10);
  assert.deepEqual([10_001, 10_000, 0, -1].map((left) => secondsLeft(DEADLINE, DEADLINE - left)), [11, 10, 0, 0]);
});

test("the countdown is drawn again just after the text changes", async () => {
  const { nextTickIn } = await loadCountdown();
  assert.deepEqual([299_400, 299_000, 1, 0].map((left) => nextTickIn(DEADLINE, DEADLINE - left)), [405, 1005, 6, 1005]);
});
