// The pure parts of measuring columns: wide characters, columns of text, cells in a width.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MIN_COLUMNS, columnsFromWidths, columnsOf, isWide, splitWide } from "../../askd-view.js";

test("isWide: East Asian wide and fullwidth code points", () => {
  const wide = [0x1100, 0x115f, 0x2e80, 0x3000, 0x3042, 0x30a2, 0x4e00, 0x9fff, 0xac00, 0xd7a3];
  const more = [0xff01, 0xff5e, 0xffe0, 0x1f600, 0x1f64f, 0x20000, 0x2a6df, 0x30000, 0x3fffd];
  for (const code of [...wide, ...more]) assert.equal(isWide(code), true, code.toString(16));
  const narrow = [0x20, 0x41, 0xe9, 0x10ff, 0x1160, 0x2500, 0x2502, 0x25cf, 0x276f, 0x2713];
  const narrower = [0x270e, 0xff61, 0xffa0, 0x1f1e6, 0x3fffe, 0x40000, 0xe0001, 0x10ffff];
  for (const code of [...narrow, ...narrower]) {
    assert.equal(isWide(code), false, code.toString(16));
  }
});

test("splitWide: narrow runs and single wide characters with what joins them", () => {
  assert.deepEqual(splitWide("plain ─ text ❯ ✓"), [{ text: "plain ─ text ❯ ✓", wide: false }]);
  assert.deepEqual(splitWide("a日本b"), [
    { text: "a", wide: false },
    { text: "日", wide: true },
    { text: "本", wide: true },
    { text: "b", wide: false },
  ]);
  assert.deepEqual(splitWide("が゙x"), [
    { text: "が゙", wide: true },
    { text: "x", wide: false },
  ]);
  assert.deepEqual(splitWide("👍🏽!"), [
    { text: "👍🏽", wide: true },
    { text: "!", wide: false },
  ]);
  assert.deepEqual(splitWide("❤\ufe0f ok"), [
    { text: "❤\ufe0f", wide: true },
    { text: " ok", wide: false },
  ]);
  assert.deepEqual(splitWide(""), [{ text: "", wide: false }]);
});

test("columnsOf: two per wide character, none for joining code points", () => {
  assert.equal(columnsOf(""), 0);
  assert.equal(columnsOf("Release plan"), 12);
  assert.equal(columnsOf("日本語 テスト"), 13);
  assert.equal(columnsOf(" [□ Scope]  □ Checks   □ 名前   ✓ Submit "), 41);
  assert.equal(columnsOf("e\u0301"), 1);
  assert.equal(columnsOf("ｆｕｌｌ"), 8);
  assert.equal(columnsOf("😀x"), 3);
});

test("columnsFromWidths: whole cells, a hundredth of a cell's rounding allowed, at least 20", () => {
  assert.equal(MIN_COLUMNS, 20);
  assert.equal(columnsFromWidths(800, 8), 100);
  assert.equal(columnsFromWidths(799, 8), 99);
  assert.equal(columnsFromWidths(799.95, 8), 100);
  assert.equal(columnsFromWidths(632.2, 8.43), 75);
  assert.equal(columnsFromWidths(624, 8.43), 74);
  assert.equal(columnsFromWidths(100, 8), 20);
  assert.equal(columnsFromWidths(0, 8), 20);
  assert.equal(columnsFromWidths(800, 0), 20);
  assert.equal(columnsFromWidths(Number.NaN, 8), 20);
  assert.equal(columnsFromWidths(-5, 8), 20);
});
