/**
 * askd-lines: the terminal look. Draws a view's rendered `lines` as monospace text, keeping the
 * engine's columns (East Asian wide characters boxed two cells wide), and measures how many
 * columns fit an element.
 *
 * Host-neutral, like askd-view: it reaches the page only through the elements it is given.
 *
 * @module askd-lines
 */

import { WIDE_RANGES } from "./askd-wide.js";

/** The style names of the spans of a view's `lines`, each drawn with the class `askd-<style>`. */
export const STYLES = Object.freeze([
  "text",
  "title",
  "accent",
  "success",
  "muted",
  "dim",
  "warning",
  "selected",
  "cursor",
  "border",
]);

/** The narrowest screen askd renders, in columns: it renders narrower widths at this one. */
export const MIN_COLUMNS = 20;

// ---------------------------------------------------------------------------------------------
// Columns of text

/**
 * Whether a code point takes two terminal columns (East Asian Width W or F).
 *
 * @param {number} code a Unicode code point
 * @returns {boolean}
 */
export function isWide(code) {
  if (code < WIDE_RANGES[0]) return false;
  let low = 0;
  let high = WIDE_RANGES.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < WIDE_RANGES[2 * middle]) high = middle - 1;
    else if (code > WIDE_RANGES[2 * middle + 1]) low = middle + 1;
    else return true;
  }
  return false;
}

/** Combining marks. */
const MARK = /^\p{M}$/u;

/**
 * Whether a character joins the one before it and takes no column of its own: a combining mark,
 * the zero-width joiner, a variation selector, an emoji skin-tone modifier or a tag character.
 *
 * @param {string} char one code point
 * @returns {boolean}
 */
function isJoining(char) {
  const code = char.codePointAt(0);
  return (
    code === 0x200d ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0x1f3fb && code <= 0x1f3ff) ||
    (code >= 0xe0020 && code <= 0xe007f) ||
    MARK.test(char)
  );
}

/** Characters that an emoji variation selector (U+FE0F) turns into a two-column emoji. */
const EMOJI = /^\p{Emoji}$/u;

/** No code point before U+1100 is wide, so text made of such code points needs no scan. */
const MAY_BE_WIDE = /[\u1100-\uffff\ud800-\udfff]/;

/**
 * Splits text into runs of narrow text and single wide characters, each wide character with the
 * code points that join it (combining marks, variation selectors, emoji modifiers).
 *
 * @param {string} text
 * @returns {Array<{ text: string, wide: boolean }>} the runs, in order; their texts joined are
 *   `text` exactly
 */
export function splitWide(text) {
  if (!MAY_BE_WIDE.test(text)) return [{ text, wide: false }];
  const chars = Array.from(text);
  const runs = [];
  let narrow = "";
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index];
    const next = chars[index + 1];
    // An emoji presentation sequence is wide; digits, `#` and `*` (emoji only in keycaps) are not.
    const wide =
      isWide(char.codePointAt(0)) || (next === "\ufe0f" && EMOJI.test(char) && char > "\u00ff");
    if (!wide) {
      narrow += char;
      continue;
    }
    if (narrow !== "") runs.push({ text: narrow, wide: false });
    narrow = "";
    let cluster = char;
    while (index + 1 < chars.length && isJoining(chars[index + 1])) {
      index += 1;
      cluster += chars[index];
    }
    runs.push({ text: cluster, wide: true });
  }
  if (narrow !== "") runs.push({ text: narrow, wide: false });
  return runs;
}

/**
 * The terminal columns a text takes: two for each wide character, none for joining code points,
 * one for every other code point.
 *
 * @param {string} text
 * @returns {number}
 */
export function columnsOf(text) {
  let columns = 0;
  for (const run of splitWide(text)) {
    if (run.wide) {
      columns += 2;
      continue;
    }
    for (const char of run.text) {
      if (!isJoining(char)) columns += 1;
    }
  }
  return columns;
}

// ---------------------------------------------------------------------------------------------
// Drawing lines

/** The lines each container shows, to redraw only the lines that changed. */
const drawn = new WeakMap();

/**
 * The class of a span's style: `askd-<style>` for a plain lower-case style name, `askd-text` for
 * anything else.
 *
 * @param {string} style
 * @returns {string}
 */
function styleClass(style) {
  return typeof style === "string" && /^[a-z]+$/.test(style) ? `askd-${style}` : "askd-text";
}

/**
 * Whether two lines have the same spans.
 *
 * @param {Array<{ text: string, style: string }>} left
 * @param {Array<{ text: string, style: string }>} right
 * @returns {boolean}
 */
function sameLine(left, right) {
  if (left === right) return true;
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    if (left[index].text !== right[index].text || left[index].style !== right[index].style) {
      return false;
    }
  }
  return true;
}

/**
 * Puts a span's text into its element, boxing each wide character two cells wide so that the
 * screen keeps its columns whatever the width of the font's wide glyphs.
 *
 * @param {Document} doc
 * @param {HTMLElement} element
 * @param {string} text
 */
function fillSpan(doc, element, text) {
  const runs = splitWide(text);
  if (runs.length === 1 && !runs[0].wide) {
    element.textContent = text;
    return;
  }
  for (const run of runs) {
    if (!run.wide) {
      element.append(run.text);
      continue;
    }
    const box = doc.createElement("span");
    box.className = "askd-wide";
    box.textContent = run.text;
    element.append(box);
  }
}

/**
 * Builds the element of one line.
 *
 * @param {Document} doc
 * @param {Array<{ text: string, style: string }>} spans
 * @returns {HTMLElement}
 */
function buildLine(doc, spans) {
  const line = doc.createElement("div");
  line.className = "askd-line";
  for (const span of spans) {
    const element = doc.createElement("span");
    element.className = styleClass(span.style);
    fillSpan(doc, element, span.text);
    line.append(element);
  }
  return line;
}

/**
 * Draws a view's `lines` into a container: one `div.askd-line` per line, one
 * `span.askd-<style>` per span holding its text exactly (spaces included; the stylesheet sets
 * `white-space: pre`). Wide characters sit in `span.askd-wide` boxes two cells wide inside their
 * span. The container's children become the lines; drawing again replaces only the lines that
 * changed, and adds or removes lines at the end.
 *
 * @param {HTMLElement} container
 * @param {Array<Array<{ text: string, style: string }>>} lines
 */
export function renderLines(container, lines) {
  const doc = container.ownerDocument;
  const before = drawn.get(container);
  if (before === undefined || container.childElementCount !== before.length) {
    container.replaceChildren(...lines.map((spans) => buildLine(doc, spans)));
    drawn.set(container, lines.slice());
    return;
  }
  const children = container.children;
  const common = Math.min(before.length, lines.length);
  for (let index = 0; index < common; index += 1) {
    if (!sameLine(before[index], lines[index])) {
      children[index].replaceWith(buildLine(doc, lines[index]));
    }
  }
  for (let index = before.length - 1; index >= lines.length; index -= 1) {
    children[index].remove();
  }
  for (let index = common; index < lines.length; index += 1) {
    container.append(buildLine(doc, lines[index]));
  }
  drawn.set(container, lines.slice());
}

// ---------------------------------------------------------------------------------------------
// Measuring columns

/** How many cells the probe that measures a cell holds. */
const PROBE_CELLS = 50;

/**
 * The columns that fit a width: how many whole cells of `cellWidth` fit `contentWidth`, never
 * fewer than {@link MIN_COLUMNS}. A width short of a whole cell by less than a hundredth of a
 * cell still counts it: layout rounds widths to fractions of a pixel.
 *
 * @param {number} contentWidth the width available to the text, in CSS pixels
 * @param {number} cellWidth the width of one monospace cell, in CSS pixels
 * @returns {number}
 */
export function columnsFromWidths(contentWidth, cellWidth) {
  if (!(cellWidth > 0) || !(contentWidth > 0)) return MIN_COLUMNS;
  return Math.max(MIN_COLUMNS, Math.floor(contentWidth / cellWidth + 0.01));
}

/**
 * The width in terminal columns that fits an element's content box, measured with a monospace
 * cell of the element's own font; never below {@link MIN_COLUMNS}.
 *
 * @param {HTMLElement} element
 * @returns {number}
 */
export function columnsFor(element) {
  const doc = element.ownerDocument;
  const probe = doc.createElement("span");
  probe.className = "askd-probe";
  probe.style.position = "absolute";
  probe.style.visibility = "hidden";
  probe.style.whiteSpace = "pre";
  probe.textContent = "0".repeat(PROBE_CELLS);
  element.append(probe);
  const cellWidth = probe.getBoundingClientRect().width / PROBE_CELLS;
  probe.remove();
  const style = doc.defaultView.getComputedStyle(element);
  const px = (value) => parseFloat(value) || 0;
  const borders = px(style.borderLeftWidth) + px(style.borderRightWidth);
  const scrollbar = Math.max(0, element.offsetWidth - element.clientWidth - borders);
  // The element's fractional width, where clientWidth would round it to whole pixels.
  const content =
    element.getBoundingClientRect().width -
    borders -
    scrollbar -
    px(style.paddingLeft) -
    px(style.paddingRight);
  return columnsFromWidths(content, cellWidth);
}
