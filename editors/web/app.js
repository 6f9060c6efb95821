/**
 * The page askd serves at `GET /`: connects to askd's WebSocket endpoint with the token of the
 * page's address, attaches as a person's client, lists the flows waiting for an answer (oldest
 * first, with who asked: the agent, its folder, the time), and shows the flow named by
 * `?session=` or else the oldest waiting. When the connection drops, the flow stays on screen,
 * read-only, and the page reconnects by itself. Drawing and input are askd-view's; this file
 * only wires them up.
 */

import { columnsFor, mountFlow } from "./askd-view.js";
import { connectRpc, socketAddress } from "./askd-socket.js";
import { renderWaitingList, sessionLabel, waitingOrder } from "./askd-waiting.js";

const query = new URLSearchParams(location.search);
const token = query.get("token");
const status = document.getElementById("status");
const main = document.getElementById("main");
const lookToggle = document.getElementById("look");

/** The reconnection delays, in milliseconds: doubling from half a second to ten. */
const BACKOFF = [500, 1000, 2000, 4000, 8000, 10000];

/** Every session askd holds, by id: `{ session, title?, status, asker?, openedAt? }`. */
const sessions = new Map();
/** The id of the session shown, or `null` while none is. */
let shownSession = query.get("session");
/** The controller of the flow shown. */
let flow = null;
/** The width this page's connection has asked askd to render Steps and notifications at. */
let connectionWidth = null;
/** How flows are drawn: `form` (widgets) or `terminal` (the engine's lines). */
let look = query.get("look") ?? readStoredLook() ?? "form";
/** Whether the page has been connected once (a later close is a lost connection). */
let everConnected = false;
/** How many reconnections have failed in a row. */
let attempts = 0;
let reconnectTimer = null;

/** The waiting list, the offer of the next flow and the flow's element. */
const waiting = document.createElement("nav");
waiting.className = "askd-page-waiting";
waiting.setAttribute("aria-label", "Waiting questions");
const offer = document.createElement("div");
offer.className = "askd-page-offer";
offer.hidden = true;
const flowArea = document.createElement("div");
flowArea.className = "askd-page-flow";

/**
 * The transport every flow gets: requests go to the connection of the moment, and handlers
 * registered once hear the notifications of every connection after it.
 */
const link = {
  /** @type {ReturnType<typeof connectRpc> | null} */
  current: null,
  handlers: new Set(),
  request(method, params) {
    if (link.current === null) return Promise.reject(new Error("not connected to askd"));
    return link.current.request(method, params);
  },
  onNotification(handler) {
    link.handlers.add(handler);
    return () => link.handlers.delete(handler);
  },
};

/** The look stored from an earlier visit, if the browser keeps it. */
function readStoredLook() {
  try {
    const stored = localStorage.getItem("askd-look");
    return stored === "form" || stored === "terminal" ? stored : null;
  } catch {
    return null;
  }
}

/**
 * Says something about the connection above the flow, or clears it with `""`.
 *
 * @param {string} message
 * @param {boolean} [trouble] whether something went wrong
 */
function say(message, trouble = false) {
  status.textContent = message;
  status.hidden = message === "";
  status.classList.toggle("askd-page-trouble", trouble);
}

/**
 * Names the flow shown in the page's address, keeping the token.
 *
 * @param {string | null} session
 */
function rememberInAddress(session) {
  const address = new URL(location.href);
  if (session === null) address.searchParams.delete("session");
  else address.searchParams.set("session", session);
  history.replaceState(null, "", address);
}

/** The sessions waiting for an answer, oldest first. */
function waitingSessions() {
  return waitingOrder([...sessions.values()].filter((entry) => entry.status === "open"));
}

/** Draws the waiting list, marking the flow shown. */
function drawWaiting() {
  const open = waitingSessions();
  const finished = [...sessions.values()].filter((entry) => entry.status !== "open");
  renderWaitingList(waiting, open, finished, shownSession, (session) => showFlow(session, true));
  // One flow, shown, needs no list.
  const alone = open.length === 0 || (open.length === 1 && open[0].session === shownSession);
  waiting.hidden = alone && finished.length === 0;
  drawOffer();
}

/**
 * Offers the oldest waiting flow once the flow shown has ended or gone, without moving the
 * keyboard.
 */
function drawOffer() {
  const ended = flow === null || flow.view?.status === "done" || !sessions.has(shownSession);
  const next = waitingSessions().find((entry) => entry.session !== shownSession);
  offer.hidden = !(ended && shownSession !== null && next !== undefined);
  if (offer.hidden) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "askd-page-next";
  button.textContent = `Answer the next question: ${sessionLabel(next)}`;
  button.addEventListener("click", () => showFlow(next.session, true));
  offer.replaceChildren(button);
}

/**
 * Shows one flow.
 *
 * @param {string} session
 * @param {boolean} [focus] give it the keyboard (a person chose it)
 */
function showFlow(session, focus = false) {
  flow?.dispose();
  shownSession = session;
  rememberInAddress(session);
  const element = document.createElement("div");
  element.className = "askd-page-flow-element";
  flowArea.replaceChildren(element);
  flow = mountFlow(element, link, {
    session,
    look,
    autofocus: focus,
    // The connection's width is the width of every Step and notification askd sends it.
    stepWidth: connectionWidth ?? undefined,
    async setStepWidth(width) {
      await link.request("initialize", { capabilities: { width, allRows: true } });
      connectionWidth = width;
    },
    // askd does not notify a connection of its own changes: their Steps say them.
    onStep(step) {
      const entry = sessions.get(session);
      if (entry !== undefined && typeof step.status === "string" && entry.status !== step.status) {
        entry.status = step.status;
        drawWaiting();
      } else if (step.status === "done" && offer.hidden) {
        drawOffer();
      }
    },
  });
  drawWaiting();
}

/** Shows that no flow waits. */
function showNothing() {
  flow?.dispose();
  flow = null;
  shownSession = null;
  rememberInAddress(null);
  const nothing = document.createElement("p");
  nothing.className = "askd-page-nothing";
  nothing.textContent = "No question is waiting. This page shows one as soon as askd opens it.";
  flowArea.replaceChildren(nothing);
  drawWaiting();
}

/** Shows what the page should show now: the flow asked for, else the oldest waiting. */
function choose() {
  if (shownSession !== null) {
    if (sessions.has(shownSession)) {
      showFlow(shownSession, true);
    } else {
      // The flow named in the address may open in a moment (the hub opens the page for it).
      say(`No flow named “${shownSession}” is open; this page shows it once askd opens it.`);
      flowArea.replaceChildren();
      drawWaiting();
    }
    return;
  }
  const oldest = waitingSessions()[0];
  if (oldest !== undefined) showFlow(oldest.session, true);
  else showNothing();
}

/**
 * Keeps the list of sessions up to date from askd's notifications.
 *
 * @param {string} method
 * @param {any} params
 */
function onNotification(method, params) {
  if (method === "session/opened") {
    sessions.set(params.session, { ...params });
    if (shownSession === params.session && flow === null) {
      say("");
      showFlow(params.session, true);
      return;
    }
    drawWaiting();
    if (flow === null && shownSession === null) {
      choose();
    } else if (params.status === "open") {
      const count = waitingSessions().length;
      announce(`A new question is waiting: ${sessionLabel(params)} (${count} waiting).`);
    }
  } else if (method === "session/changed") {
    const entry = sessions.get(params.session);
    if (entry === undefined || entry.status === params.status) return;
    entry.status = params.status;
    drawWaiting();
  } else if (method === "session/closed") {
    sessions.delete(params.session);
    drawWaiting();
  }
}

/** The page's live region for arrivals, apart from the connection's status line. */
const arrivals = document.createElement("p");
arrivals.className = "askd-page-arrivals";
arrivals.setAttribute("role", "status");

/**
 * Tells of an arrival in words, politely: it never takes the keyboard.
 *
 * @param {string} text
 */
function announce(text) {
  arrivals.textContent = text;
}

/** Switches between the form and the terminal look, keeping the flow shown. */
function toggleLook() {
  look = look === "form" ? "terminal" : "form";
  try {
    localStorage.setItem("askd-look", look);
  } catch {
    // The choice lasts as long as the page.
  }
  drawLookToggle();
  if (shownSession !== null && flow !== null) showFlow(shownSession, true);
}

function drawLookToggle() {
  lookToggle.setAttribute("aria-pressed", look === "terminal" ? "true" : "false");
}

/** Tries to connect again after a delay that grows with each failure. */
function scheduleReconnect() {
  clearTimeout(reconnectTimer);
  const delay = BACKOFF[Math.min(attempts, BACKOFF.length - 1)];
  attempts += 1;
  const seconds = delay < 1000 ? "a moment" : `${delay / 1000} s`;
  say(
    `The connection to askd was lost. Trying again in ${seconds}… ` +
      "(What is on screen stays readable; nothing can be answered until askd is back.)",
    true,
  );
  reconnectTimer = setTimeout(connect, delay);
}

/**
 * Reacts to a connection that closed.
 *
 * @param {{ opened: boolean, code: number, reason: string }} info
 */
function onClosed({ opened, code, reason }) {
  link.current = null;
  const ended = `${code}${reason ? `: ${reason}` : ""}`;
  if (flow !== null && flow.view?.status === "done" && reason === "the flow is complete") {
    // `askd web` has ended with its flow: the last screen and the result stay.
    say(`This flow is complete, and askd has closed the connection (${ended}).`);
    return;
  }
  if (!everConnected && !opened) {
    say(
      "askd refused the connection: the token in this page's address is wrong or out of " +
        "date, or askd is no longer running.",
      true,
    );
    return;
  }
  flow?.setOffline(true);
  scheduleReconnect();
}

/** Connects (or connects again), then shows the flows. */
async function connect() {
  const rpc = connectRpc(new WebSocket(socketAddress(location, token)));
  rpc.onClose(onClosed);
  rpc.onError((message) => say(message, true));
  rpc.onNotification((method, params) => {
    for (const handler of link.handlers) handler(method, params);
  });
  try {
    await rpc.opened;
    link.current = rpc;
    const width = columnsFor(flowArea);
    await rpc.request("initialize", {
      clientInfo: { name: "askd-web", version: "0.2.0" },
      capabilities: { width, allRows: true },
    });
    connectionWidth = width;
    // A person's client: the hub shows it arriving flows instead of opening a browser.
    const listed = await rpc.request("subscribe", { attach: true });
    sessions.clear();
    for (const entry of await rpc.request("sessions")) sessions.set(entry.session, entry);
    for (const entry of listed ?? []) {
      if (!sessions.has(entry.session)) sessions.set(entry.session, entry);
    }
  } catch (error) {
    if (error && typeof error.code === "number") {
      say(`askd refused to start the page: ${error.message} (${error.code})`, true);
    }
    return;
  }
  const again = everConnected;
  everConnected = true;
  attempts = 0;
  say("");
  if (!again) {
    choose();
    return;
  }
  // Back after a lost connection: the flow shown goes on where it was, if askd still holds it.
  if (flow !== null && sessions.has(shownSession)) {
    flow.setOffline(false);
    await flow.refresh();
    drawWaiting();
  } else if (flow !== null) {
    say("askd no longer holds the flow shown: it stays here to read.", true);
    drawWaiting();
  } else {
    choose();
  }
}

/** Starts the page. */
function start() {
  lookToggle.addEventListener("click", toggleLook);
  link.onNotification(onNotification);
  // "Asked 3 min ago" stays true.
  setInterval(() => {
    if (!waiting.hidden) drawWaiting();
  }, 30000);
  drawLookToggle();
  main.replaceChildren(waiting, offer, flowArea, arrivals);
  if (!token) {
    say("This page needs its token: open the address askd printed, which ends in ?token=…", true);
    return;
  }
  say("Connecting to askd…");
  connect();
}

start();
