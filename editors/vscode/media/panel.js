// @ts-check
/**
 * The question panel's page. It mounts the askd web renderer (`askd-view.js`, unchanged from
 * `editors/web/`) on the flow element, with a transport that carries the renderer's requests to
 * the extension by `postMessage`; the extension forwards them to the engine (for this panel's
 * session only) and posts the answers back.
 *
 * Messages to the extension: `ready { columns }` once loaded, `request { id, method, params }`,
 * `error { message }`. From it: `start { step, stepWidth, look, focus }`, `response { id, result
 * | error }`, `notification { method, params }`, and `focus` when the panel has been brought to
 * the front for the person. The flow is drawn in the form look (semantic widgets, a real text
 * area, clicks through `activate`) or the terminal look. The page takes the keyboard only when
 * `start` or `focus` says so, or when the person comes to the panel: a question that arrives
 * while the person types elsewhere takes nothing. When the panel is resized, the page gives askd
 * its new width with `subscribe { session, width }`; `data-step-width` on the flow element is the
 * width the session's Steps come at.
 */

import { columnsFor, mountFlow } from "./askd-view.js";
import { WARNING_SECONDS, countdownText, nextTickIn, secondsLeft } from "./countdown.js";

const host = acquireVsCodeApi();
const element = /** @type {HTMLElement} */ (document.getElementById("askd-flow"));
const countdown = /** @type {HTMLElement} */ (document.getElementById("askd-countdown"));

/** @type {Map<number, { resolve: (value: any) => void, reject: (reason: unknown) => void }>} */
const pending = new Map();
let lastId = 0;
/** @type {Set<(method: string, params: any) => void>} */
const listeners = new Set();

/** The renderer's transport, over the webview's message channel. */
const transport = {
  /**
   * @param {string} method
   * @param {object} [params]
   * @returns {Promise<any>}
   */
  request(method, params) {
    lastId += 1;
    const id = lastId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      host.postMessage({ kind: "request", id, method, params: params ?? {} });
    });
  },
  /**
   * @param {(method: string, params: any) => void} handler
   * @returns {() => void}
   */
  onNotification(handler) {
    listeners.add(handler);
    return () => listeners.delete(handler);
  },
};

/** @type {ReturnType<typeof mountFlow> | null} */
let flow = null;

/** @type {number | null} the deadline of the view shown, while the flow is open */
let deadline = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let tick;

/** Draws the countdown to `deadline` (hidden without one) and keeps it running. */
function drawCountdown() {
  clearTimeout(tick);
  if (deadline === null) {
    countdown.hidden = true;
    return;
  }
  const now = Date.now();
  countdown.hidden = false;
  countdown.textContent = countdownText(deadline, now);
  countdown.classList.toggle("askd-countdown-warning", secondsLeft(deadline, now) <= WARNING_SECONDS);
  if (secondsLeft(deadline, now) > 0) tick = setTimeout(drawCountdown, nextTickIn(deadline, now));
}

/**
 * Follows the deadline of each Step shown.
 *
 * @param {any} step
 */
function onStep(step) {
  // The form look draws its own countdown; the line above is the terminal look's.
  const counted = flow?.look !== "form";
  const next =
    counted && step?.status === "open" && typeof step?.view?.deadline === "number" ? step.view.deadline : null;
  if (next !== deadline) {
    deadline = next;
    drawCountdown();
  }
}

window.addEventListener("message", (event) => {
  const message = event.data;
  if (typeof message !== "object" || message === null) return;
  if (message.kind === "response") {
    const waiting = pending.get(message.id);
    if (waiting === undefined) return;
    pending.delete(message.id);
    if (message.error !== undefined) waiting.reject(message.error);
    else waiting.resolve(message.result);
  } else if (message.kind === "notification") {
    for (const listener of listeners) listener(message.method, message.params);
  } else if (message.kind === "start" && flow === null) {
    const session = message.step.session;
    // The width the session was opened at: while it is the element's, Steps are drawn as sent.
    element.dataset.stepWidth = String(message.stepWidth);
    flow = mountFlow(element, transport, {
      session,
      stepWidth: message.stepWidth,
      // When the panel's columns change, askd is given them for this session: its Steps then
      // come at them, and up and down in an editor follow the lines drawn.
      async setStepWidth(columns) {
        await transport.request("subscribe", { session, width: columns });
        element.dataset.stepWidth = String(columns);
      },
      look: message.look === "terminal" ? "terminal" : "form",
      autofocus: message.focus === true,
      onStep,
    });
    flow.setView(message.step);
  } else if (message.kind === "focus") {
    flow?.focus();
  }
});

// Coming back to the panel gives the flow the keyboard again.
window.addEventListener("focus", () => {
  if (flow !== null) flow.focus();
  else element.focus({ preventScroll: true });
});

window.addEventListener("error", (event) => {
  host.postMessage({ kind: "error", message: String(event.message) });
});

host.postMessage({ kind: "ready", columns: columnsFor(element) });
