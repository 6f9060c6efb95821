// keyFromEvent and textToKeys: the whole mapping from keyboard events to askd keys.

import assert from "node:assert/strict";
import { test } from "node:test";
import { keyFromEvent, textToKeys } from "../../askd-view.js";

/**
 * A keydown as a browser reports it: `key`, modifiers spelt `ctrl alt shift meta`, and any other
 * field of a KeyboardEvent.
 *
 * @param {string} key
 * @param {string} [modifiers] e.g. "ctrl+shift"
 * @param {object} [extra]
 */
function keydown(key, modifiers = "", extra = {}) {
  const held = new Set(modifiers.split("+").filter(Boolean));
  return {
    key,
    code: "",
    keyCode: 0,
    isComposing: false,
    ctrlKey: held.has("ctrl"),
    altKey: held.has("alt"),
    shiftKey: held.has("shift"),
    metaKey: held.has("meta"),
    getModifierState: (name) => name === "AltGraph" && held.has("altgraph"),
    ...extra,
  };
}

/** `[key, modifiers, expected]`, or `[key, modifiers, extra fields, expected]`. */
const TABLE = [
  // Named keys, alone and under modifiers, in askd's order ctrl, alt, shift.
  ["ArrowUp", "", "up"],
  ["ArrowDown", "", "down"],
  ["ArrowLeft", "", "left"],
  ["ArrowRight", "", "right"],
  ["Tab", "", "tab"],
  ["Tab", "shift", "shift+tab"],
  ["Enter", "", "enter"],
  ["Enter", "shift", "shift+enter"],
  ["Enter", "alt", "alt+enter"],
  ["Enter", "ctrl", "ctrl+enter"],
  ["Escape", "", "escape"],
  ["Esc", "", "escape"],
  ["Backspace", "", "backspace"],
  ["Backspace", "alt", "alt+backspace"],
  ["Delete", "", "delete"],
  ["Del", "", "delete"],
  ["Home", "", "home"],
  ["End", "", "end"],
  ["PageUp", "", "pageup"],
  ["PageDown", "", "pagedown"],
  ["ArrowLeft", "ctrl", "ctrl+left"],
  ["ArrowRight", "ctrl+shift", "ctrl+shift+right"],
  ["ArrowUp", "ctrl+alt+shift", "ctrl+alt+shift+up"],
  ["Up", "", "up"],
  // The space bar.
  [" ", "", "space"],
  [" ", "shift", "space"],
  [" ", "ctrl", "ctrl+space"],
  [" ", "alt", "alt+space"],
  // Printable characters are themselves, Shift already applied.
  ["n", "", "n"],
  ["N", "shift", "N"],
  ["1", "", "1"],
  ["!", "shift", "!"],
  ["?", "shift", "?"],
  ["<", "shift", "<"],
  ["é", "", "é"],
  ["É", "shift", "É"],
  ["한", "", "한"],
  ["日", "", "日"],
  ["😀", "", "😀"],
  // Ctrl and Alt with letters.
  ["c", "ctrl", "ctrl+c"],
  ["C", "ctrl", "ctrl+c"],
  ["a", "ctrl", "ctrl+a"],
  ["w", "ctrl", "ctrl+w"],
  ["с", "ctrl", { code: "KeyC" }, "ctrl+c"],
  ["x", "ctrl+alt", "ctrl+alt+x"],
  ["b", "alt", "alt+b"],
  ["F", "alt+shift", "alt+shift+f"],
  // Option (macOS) and AltGr type characters.
  ["ƒ", "alt", { code: "KeyF" }, "ƒ"],
  ["ø", "alt", { code: "KeyO" }, "ø"],
  ["@", "ctrl+alt", { code: "KeyQ" }, "@"],
  ["€", "ctrl+alt", { code: "KeyE" }, "€"],
  ["q", "ctrl+alt+altgraph", "q"],
  // Left to the browser.
  ["v", "ctrl", null],
  ["V", "ctrl+shift", null],
  ["м", "ctrl", { code: "KeyV" }, null],
  ["i", "ctrl+shift", null],
  ["1", "ctrl", null],
  ["+", "ctrl", null],
  ["a", "meta", null],
  ["ArrowUp", "meta", null],
  ["v", "meta", null],
  ["Shift", "shift", null],
  ["Control", "ctrl", null],
  ["Alt", "alt", null],
  ["Meta", "meta", null],
  ["AltGraph", "", null],
  ["CapsLock", "", null],
  ["Dead", "", null],
  ["Unidentified", "", null],
  ["Process", "", null],
  ["F1", "", null],
  ["F12", "", null],
  ["Insert", "", null],
  ["Insert", "shift", null],
  ["ContextMenu", "", null],
  ["", "", null],
  ["e\u0301", "", null],
  ["\u0007", "", null],
  // During composition every key belongs to the input method.
  ["Enter", "", { isComposing: true }, null],
  ["a", "", { isComposing: true }, null],
  ["ArrowDown", "", { keyCode: 229 }, null],
];

for (const row of TABLE) {
  const [key, modifiers, extra, expected] = row.length === 4 ? row : [row[0], row[1], {}, row[2]];
  const label = `${modifiers ? `${modifiers}+` : ""}${JSON.stringify(key)}${
    Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : ""
  }`;
  test(`keyFromEvent: ${label} is ${JSON.stringify(expected)}`, () => {
    assert.equal(keyFromEvent(keydown(key, modifiers, extra)), expected);
  });
}

test("textToKeys: one key per code point, control characters left out", () => {
  assert.deepEqual(textToKeys("2"), ["2"]);
  assert.deepEqual(textToKeys("a b"), ["a", " ", "b"]);
  assert.deepEqual(textToKeys("4x\r\ny\tz\u0007"), ["4", "x", "y", "z"]);
  assert.deepEqual(textToKeys("日本"), ["日", "本"]);
  assert.deepEqual(textToKeys("e\u0301😀"), ["e", "\u0301", "😀"]);
  assert.deepEqual(textToKeys("\n\n"), []);
  assert.deepEqual(textToKeys(""), []);
});
