/**
 * askd-view: draws askd's views in a page and turns the page's keyboard, paste and input-method
 * events into askd requests.
 *
 * The module is host-neutral: it reaches the page only through the elements it is given
 * (`element.ownerDocument`, `ownerDocument.defaultView`), never through globals, and talks to the
 * engine only through the transport it is given. A browser page, a VS Code webview or a test
 * page load it unchanged.
 *
 * @module askd-view
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

/** The JSON-RPC error code of `insert` while no editor is open. */
const NO_EDITOR = -32003;

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
// Keys

/** Browser key values that askd has a name for. */
const NAMED_KEYS = Object.freeze({
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
  Up: "up",
  Down: "down",
  Left: "left",
  Right: "right",
  Tab: "tab",
  Enter: "enter",
  Escape: "escape",
  Esc: "escape",
  Backspace: "backspace",
  Delete: "delete",
  Del: "delete",
  Home: "home",
  End: "end",
  PageUp: "pageup",
  PageDown: "pagedown",
});

/**
 * Whether a key value is one code point (a surrogate pair counts as one).
 *
 * @param {string} key
 * @returns {boolean}
 */
function isOneCodePoint(key) {
  return key.length === 1 || (key.length === 2 && key.codePointAt(0) > 0xffff);
}

/**
 * The lower-case ASCII letter a key stands for under Ctrl or Alt: the letter itself, or, on a
 * layout whose letters are not Latin, the letter of the physical key (`event.code` `KeyC`).
 *
 * @param {string} key
 * @param {string | undefined} code
 * @returns {string | null}
 */
function letterOf(key, code) {
  if (/^[A-Za-z]$/.test(key)) return key.toLowerCase();
  const physical = /^Key([A-Z])$/.exec(code ?? "");
  return physical ? physical[1].toLowerCase() : null;
}

/**
 * Maps a browser `KeyboardEvent` to an askd key name (see protocol/README.md, "Key notation"),
 * or `null` for a key to leave to the browser.
 *
 * - Named keys: `up down left right tab enter escape backspace delete home end pageup pagedown`,
 *   with the modifiers held, in askd's order: `ctrl+`, `alt+`, `shift+` (`shift+tab`,
 *   `alt+enter`, `ctrl+left`).
 * - A printable character is itself, whatever Shift did to it (`n`, `N`, `?`, `é`, `한`); the
 *   space bar is `space` (`ctrl+space`, `alt+space` under those modifiers).
 * - Ctrl with a letter is `ctrl+<letter>` (lower case, by physical key on non-Latin layouts),
 *   Ctrl with Alt and a letter `ctrl+alt+<letter>`; Alt with an ASCII letter is `alt+<letter>`
 *   (`alt+shift+<letter>` with Shift). Alt with any other character is that character: macOS's
 *   Option key and AltGr (Ctrl+Alt on Windows) type characters.
 * - `null`: modifier-only presses, dead keys, `Unidentified`, `Process` and function keys; any
 *   key during IME composition (`isComposing`, or `keyCode` 229); anything with Meta (Cmd, the
 *   Windows key); Ctrl+V and Ctrl+Shift+V, which the browser turns into a paste; every other
 *   Ctrl+Shift chord and Ctrl with a non-letter (the browser's shortcuts); key values of more
 *   than one code point, which arrive as text through the input event instead.
 *
 * @param {KeyboardEvent} event
 * @returns {string | null}
 */
export function keyFromEvent(event) {
  if (event.isComposing || event.keyCode === 229) return null;
  const key = event.key;
  if (typeof key !== "string" || key === "" || event.metaKey) return null;
  const ctrl = event.ctrlKey === true;
  const alt = event.altKey === true;
  const shift = event.shiftKey === true;

  const named = NAMED_KEYS[key];
  if (named !== undefined) {
    return `${ctrl ? "ctrl+" : ""}${alt ? "alt+" : ""}${shift ? "shift+" : ""}${named}`;
  }
  if (!isOneCodePoint(key) || /^\p{Cc}$/u.test(key)) return null;
  if (key === " ") {
    return `${ctrl ? "ctrl+" : ""}${alt ? "alt+" : ""}space`;
  }
  const altGraph =
    (typeof event.getModifierState === "function" && event.getModifierState("AltGraph")) ||
    (ctrl && alt && !/^[A-Za-z]$/.test(key));
  if (altGraph) return key;
  if (ctrl) {
    const letter = letterOf(key, event.code);
    if (letter === null || shift || letter === "v") return null;
    return `ctrl+${alt ? "alt+" : ""}${letter}`;
  }
  if (alt && /^[A-Za-z]$/.test(key)) {
    return `alt+${shift ? "shift+" : ""}${key.toLowerCase()}`;
  }
  return key;
}

/**
 * The keys that type a text outside an editor: one key per code point (a space is `" "`, which
 * askd reads as the space key). Control characters, line breaks and tabs included, are left out,
 * so that pasted text never confirms or changes tabs by itself.
 *
 * @param {string} text
 * @returns {string[]}
 */
export function textToKeys(text) {
  return Array.from(text).filter((char) => !/^\p{Cc}$/u.test(char));
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

// ---------------------------------------------------------------------------------------------
// Ordering Steps

/**
 * Whether an incoming Step is older than the one shown, and so must not replace it. When both
 * carry a `version` (askd's per-session counter), the lower version is older. Otherwise the
 * order of the requests decides: each request gets a ticket as it is sent, and the answer to a
 * request sent before the one whose answer is shown is older.
 *
 * @param {{ version: number | null, ticket: number }} shown what is on screen
 * @param {{ version: number | null, ticket: number }} incoming what arrived
 * @returns {boolean}
 */
export function isStale(shown, incoming) {
  if (shown.version != null && incoming.version != null) return incoming.version < shown.version;
  return incoming.ticket < shown.ticket;
}

/**
 * The words for a failed request, for a person.
 *
 * @param {string} method the JSON-RPC method that failed
 * @param {unknown} error what the transport rejected with (`{ code, message }` for a JSON-RPC
 *   error)
 * @returns {string}
 */
export function describeError(method, error) {
  let message = String(error);
  if (error && typeof error === "object") {
    message = typeof error.message === "string" && error.message ? error.message : "no reason given";
  }
  const code =
    error && typeof error === "object" && typeof error.code === "number" ? ` (${error.code})` : "";
  return `askd could not ${ACTIONS[method] ?? `run ${method}`}: ${message}${code}`;
}

/** What each request does, in words for {@link describeError}. */
const ACTIONS = Object.freeze({
  key: "take the key",
  keys: "take the typed text",
  insert: "insert the text",
  getView: "draw the flow",
  getResult: "give the result",
});

// ---------------------------------------------------------------------------------------------
// The flow controller

/**
 * @typedef {object} Transport
 * @property {(method: string, params?: object) => Promise<any>} request sends a JSON-RPC
 *   request and settles with its `result`, or rejects with its `error` (`{ code, message, data? }`)
 *   or with an `Error` when the connection failed
 * @property {(handler: (method: string, params: any) => void) => (void | (() => void))}
 *   onNotification registers a handler for the server's notifications; may return a function
 *   that removes it
 */

/**
 * @typedef {object} FlowOptions
 * @property {string} session the id of the session to show
 * @property {number} [stepWidth] the width the session's Steps arrive rendered at (the `width`
 *   it was opened with, or the connection's); while it equals the element's columns, Steps are
 *   drawn as they come, otherwise each change is followed by a `getView` at the element's columns
 * @property {(columns: number) => Promise<unknown>} [setStepWidth] makes the session's Steps
 *   (and its notifications) arrive rendered at `columns` from then on — over askd's listener,
 *   `initialize { capabilities: { width } }`. When given, it is called whenever the element's
 *   columns differ from the Steps' width (at mount and on resize), and once it has resolved
 *   Steps are taken to arrive at those columns
 * @property {(step: object) => void} [onStep] called after each Step (or view) is shown
 * @property {(message: string) => void} [onError] called with the words of each error shown
 * @property {boolean} [autofocus] focus the flow once mounted
 */

/**
 * Shows one askd session in an element and sends it the user's keys.
 *
 * The element becomes focusable and holds a hidden text area that takes the keyboard, so that
 * input methods and pastes work. A keydown is sent as `key` (see {@link keyFromEvent}); Ctrl+C
 * with text selected in the flow is left to the browser, to copy. Text (a paste, the text an
 * input method composed, text typed without a key event) goes in with `insert` while an editor
 * is open (`view.editor` is not `null`), and otherwise with `keys`, one key per character
 * ({@link textToKeys}); an `insert` that finds the editor closed by then is sent as keys.
 * Resizing the element asks for `getView` at the new columns. A Step older than the one shown is
 * ignored ({@link isStale}). `session/changed` notifications for the session are shown like
 * Steps; `session/closed` says the flow is gone. Once the session is done, the result is shown
 * below the final screen and keys go back to the browser. Errors are shown in words in the
 * element and passed to `options.onError`.
 *
 * @param {HTMLElement} element where to draw; its contents are replaced
 * @param {Transport} transport how to reach askd
 * @param {FlowOptions} options
 * @returns {{ setView: (view: object) => void, refresh: () => Promise<void>,
 *   dispose: () => void, readonly session: string, readonly columns: number,
 *   readonly view: object | null }}
 */
export function mountFlow(element, transport, options) {
  const session = options.session;
  const doc = element.ownerDocument;
  const win = doc.defaultView;

  const input = doc.createElement("textarea");
  input.className = "askd-input";
  input.setAttribute("aria-label", "Keyboard input for the askd flow");
  input.setAttribute("autocomplete", "off");
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("spellcheck", "false");
  input.style.position = "absolute";
  input.style.opacity = "0";
  const screen = doc.createElement("div");
  screen.className = "askd-screen";
  const done = doc.createElement("div");
  done.className = "askd-done";
  done.hidden = true;
  const problem = doc.createElement("div");
  problem.className = "askd-error";
  problem.setAttribute("role", "alert");
  problem.hidden = true;

  element.classList.add("askd", "askd-flow");
  if (!element.hasAttribute("tabindex")) element.tabIndex = 0;
  element.replaceChildren(input, screen, done, problem);

  let disposed = false;
  let tickets = 0;
  let shown = { version: null, ticket: 0 };
  let view = null;
  let status = "open";
  let columns = columnsFor(element);
  element.dataset.columns = String(columns);
  /** The width the session's Steps arrive rendered at, when known. */
  let stepWidth = options.stepWidth;

  /**
   * Shows the words of an error, or hides the error line with `null`.
   *
   * @param {string | null} message
   */
  function showProblem(message) {
    problem.hidden = message === null;
    problem.textContent = message ?? "";
    if (message !== null) options.onError?.(message);
  }

  /** Puts the hidden text area over the cursor, so that an input method pops up there. */
  function placeInput() {
    const cursor = screen.querySelector(".askd-cursor");
    if (cursor === null) return;
    input.style.left = `${cursor.offsetLeft}px`;
    input.style.top = `${cursor.offsetTop}px`;
  }

  /**
   * Shows the end of the flow: the transcript's words and the result JSON.
   *
   * @param {object} step
   */
  function showDone(step) {
    const heading = doc.createElement("p");
    heading.className = "askd-done-heading";
    heading.textContent = "This flow is complete.";
    const parts = [heading];
    if (step.transcript && typeof step.transcript.result === "string") {
      const summary = doc.createElement("pre");
      summary.className = "askd-done-summary";
      summary.textContent = step.transcript.result;
      parts.push(summary);
    }
    if (step.result !== undefined) {
      const details = doc.createElement("details");
      const label = doc.createElement("summary");
      label.textContent = "Result JSON";
      const json = doc.createElement("pre");
      json.className = "askd-result-json";
      json.textContent = JSON.stringify(step.result, null, 2);
      details.append(label, json);
      parts.push(details);
    }
    done.replaceChildren(...parts);
    done.hidden = false;
  }

  /**
   * Shows a Step if it is not older than the one shown.
   *
   * @param {object} step `{ status, view, version?, result?, transcript? }`
   * @param {number} ticket the ticket of the request it answers
   * @returns {boolean} whether it was shown
   */
  function show(step, ticket) {
    const version = typeof step.version === "number" ? step.version : null;
    if (disposed || isStale(shown, { version, ticket })) return false;
    shown = { version: version ?? shown.version, ticket: Math.max(ticket, shown.ticket) };
    view = step.view ?? view;
    if (view && Array.isArray(view.lines)) renderLines(screen, view.lines);
    const wasDone = status === "done";
    status = step.status ?? view?.status ?? status;
    element.dataset.status = status;
    if (status === "done") {
      if (step.result !== undefined) showDone(step);
      else if (!wasDone) fetchResult(step);
    }
    placeInput();
    showProblem(null);
    options.onStep?.(step);
    return true;
  }

  /**
   * Reads the result of a session found done without one, then shows the end of the flow.
   *
   * @param {object} step
   */
  function fetchResult(step) {
    showDone(step);
    transport.request("getResult", { session }).then(
      (result) => {
        if (!disposed && result != null) showDone({ ...step, result });
      },
      (error) => showProblem(describeError("getResult", error)),
    );
  }

  /** Whether Steps arrive at the element's columns, so that no `getView` need follow them. */
  function stepsFit() {
    return stepWidth === columns;
  }

  /**
   * Sends a request that changes the session and shows its Step, followed by a `getView` at the
   * element's columns when Steps do not arrive at them (sent at once, so both are answered
   * together, in order).
   *
   * @param {string} method
   * @param {object} params
   * @returns {Promise<void>}
   */
  async function change(method, params) {
    const ticket = ++tickets;
    const stepPromise = transport.request(method, params);
    const viewPromise = stepsFit()
      ? null
      : transport.request("getView", { session, width: columns });
    let step;
    try {
      step = await stepPromise;
    } catch (error) {
      viewPromise?.catch(() => {});
      if (method === "insert" && error && error.code === NO_EDITOR) {
        const keys = textToKeys(params.text);
        if (keys.length > 0) await change("keys", { session, keys });
        return;
      }
      if (!disposed) showProblem(describeError(method, error));
      return;
    }
    if (viewPromise !== null) {
      try {
        step = { ...step, view: await viewPromise };
      } catch (error) {
        show(step, ticket);
        showProblem(describeError("getView", error));
        return;
      }
    }
    show(step, ticket);
  }

  /**
   * Sends a text: with `insert` into an open editor, otherwise as keys.
   *
   * @param {string} text
   */
  function sendText(text) {
    if (text === "" || status === "done") return;
    if (view && view.editor != null) {
      change("insert", { session, text });
      return;
    }
    const keys = textToKeys(text);
    if (keys.length > 0) change("keys", { session, keys });
  }

  /** Whether the user has selected text inside the flow (Ctrl+C then copies it). */
  function hasSelection() {
    const selection = doc.getSelection();
    return (
      selection !== null &&
      !selection.isCollapsed &&
      selection.anchorNode !== null &&
      element.contains(selection.anchorNode)
    );
  }

  /** @param {KeyboardEvent} event */
  function onKeyDown(event) {
    if (status === "done") return;
    const key = keyFromEvent(event);
    if (key === null || (key === "ctrl+c" && hasSelection())) return;
    event.preventDefault();
    change("key", { session, key });
  }

  /** @param {ClipboardEvent} event */
  function onPaste(event) {
    if (status === "done") return;
    event.preventDefault();
    sendText(event.clipboardData ? event.clipboardData.getData("text/plain") : "");
  }

  /** @param {CompositionEvent} event */
  function onCompositionEnd(event) {
    input.value = "";
    sendText(event.data ?? "");
  }

  /** @param {InputEvent} event */
  function onInput(event) {
    if (event.isComposing || String(event.inputType).includes("Composition")) return;
    const text = event.data ?? input.value;
    input.value = "";
    sendText(text);
  }

  /** Whether a mouse button went down in the flow and is not up yet. */
  let pressing = false;

  /**
   * Keeps the keyboard on the hidden text area while the flow has focus, except while a mouse
   * button is down, which may be selecting text (moving the focus would clear the selection).
   *
   * @param {FocusEvent} event
   */
  function onFocus(event) {
    if (event.target === element && !pressing) input.focus({ preventScroll: true });
  }

  function onMouseDown() {
    pressing = true;
    doc.addEventListener("mouseup", () => (pressing = false), { once: true });
  }

  /** A click in the flow that selected nothing gives the hidden text area the keyboard. */
  function onMouseUp() {
    if (!hasSelection()) input.focus({ preventScroll: true });
  }

  /**
   * @param {string} method
   * @param {any} params
   */
  function onNotification(method, params) {
    if (disposed || !params || params.session !== session) return;
    if (method === "session/changed") {
      const version = typeof params.version === "number" ? params.version : null;
      if (version !== null && shown.version !== null && version <= shown.version) return;
      // A view at another width waits for the `getView` that follows; the status shows at once.
      if (stepsFit()) show(params, tickets);
      else if (show({ ...params, view: undefined }, tickets)) refresh();
    } else if (method === "session/closed") {
      status = "closed";
      element.dataset.status = status;
      showProblem("This flow was closed: askd no longer holds it.");
    }
  }

  /**
   * Asks for the view again at the element's columns (measured anew) and shows it.
   *
   * @returns {Promise<void>}
   */
  async function refresh() {
    if (disposed) return;
    columns = columnsFor(element);
    element.dataset.columns = String(columns);
    if (options.setStepWidth && stepWidth !== columns) {
      const wanted = columns;
      try {
        await options.setStepWidth(wanted);
        // Requests are answered in order: Steps sent from now on are at this width.
        stepWidth = wanted;
      } catch {
        // Steps stay at their width, and each change is followed by a view at the columns.
      }
      if (disposed) return;
    }
    const ticket = ++tickets;
    try {
      const fresh = await transport.request("getView", { session, width: columns });
      show({ status: fresh.status, view: fresh }, ticket);
    } catch (error) {
      if (!disposed) showProblem(describeError("getView", error));
    }
  }

  element.addEventListener("keydown", onKeyDown);
  element.addEventListener("paste", onPaste);
  element.addEventListener("focus", onFocus);
  element.addEventListener("mousedown", onMouseDown);
  element.addEventListener("mouseup", onMouseUp);
  input.addEventListener("compositionend", onCompositionEnd);
  input.addEventListener("input", onInput);
  const removeNotification = transport.onNotification(onNotification);
  const observer =
    typeof win.ResizeObserver === "function"
      ? new win.ResizeObserver(() => {
          if (columnsFor(element) !== columns) refresh();
        })
      : null;
  observer?.observe(element);

  refresh();
  if (options.autofocus) input.focus({ preventScroll: true });

  return {
    /**
     * Shows a view (or a Step, `{ status, view, version?, result? }`) the host received some
     * other way; an older one than the one shown is ignored.
     *
     * @param {object} given
     */
    setView(given) {
      const step = given && given.view ? given : { status: given?.status, view: given };
      show(step, tickets);
    },
    refresh,
    /** Stops listening, forgets the session and empties the element. */
    dispose() {
      if (disposed) return;
      disposed = true;
      observer?.disconnect();
      if (typeof removeNotification === "function") removeNotification();
      element.removeEventListener("keydown", onKeyDown);
      element.removeEventListener("paste", onPaste);
      element.removeEventListener("focus", onFocus);
      element.removeEventListener("mousedown", onMouseDown);
      element.removeEventListener("mouseup", onMouseUp);
      element.replaceChildren();
      element.classList.remove("askd-flow");
      delete element.dataset.columns;
      delete element.dataset.status;
    },
    get session() {
      return session;
    },
    get columns() {
      return columns;
    },
    get view() {
      return view;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The session list

/**
 * Draws a list of sessions (as `sessions` answers them) to choose from: one button per session,
 * labelled with its title (or its id) and its status.
 *
 * @param {HTMLElement} container its contents are replaced
 * @param {Array<{ session: string, title?: string, status: string }>} sessions
 * @param {(session: string) => void} onPick called with the id of the session chosen
 */
export function renderSessionList(container, sessions, onPick) {
  const doc = container.ownerDocument;
  const list = doc.createElement("ul");
  list.className = "askd-sessions";
  for (const entry of sessions) {
    const item = doc.createElement("li");
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "askd-session";
    button.dataset.session = entry.session;
    const name = doc.createElement("span");
    name.className = "askd-session-name";
    name.textContent = entry.title ?? entry.session;
    const state = doc.createElement("span");
    state.className = `askd-session-status askd-session-${entry.status}`;
    state.textContent = entry.status === "done" ? "done" : "waiting for an answer";
    button.append(name, " ", state);
    button.addEventListener("click", () => onPick(entry.session));
    item.append(button);
    list.append(item);
  }
  container.replaceChildren(list);
}
