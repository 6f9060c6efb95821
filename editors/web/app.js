/**
 * The page askd serves at `GET /`: connects to askd's WebSocket endpoint with the token of the
 * page's address, then shows the flow named by `?session=`, the only open flow, or a list of the
 * flows to choose from. Drawing and keys are askd-view's; this file only wires them up.
 */

import { columnsFor, mountFlow, renderSessionList } from "./askd-view.js";
import { connectRpc, socketAddress } from "./askd-socket.js";

const query = new URLSearchParams(location.search);
const token = query.get("token");
const status = document.getElementById("status");
const main = document.getElementById("main");

/** Every session askd holds, by id: `{ session, title?, status }`. */
const sessions = new Map();
/** The id of the session shown, or `null` while the list (or nothing) is shown. */
let shownSession = query.get("session");
/** The controller of the flow shown. */
let flow = null;
/** The width this page's connection has asked askd to render Steps and notifications at. */
let connectionWidth = null;

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

/** The sessions still waiting for an answer. */
function openSessions() {
  return [...sessions.values()].filter((entry) => entry.status === "open");
}

/**
 * Shows one flow.
 *
 * @param {ReturnType<typeof connectRpc>} transport
 * @param {string} session
 */
function showFlow(transport, session) {
  flow?.dispose();
  shownSession = session;
  rememberInAddress(session);
  const back = document.createElement("button");
  back.type = "button";
  back.className = "askd-page-back";
  back.textContent = "All flows";
  back.hidden = sessions.size < 2;
  back.addEventListener("click", () => showList(transport));
  const element = document.createElement("div");
  main.replaceChildren(back, element);
  flow = mountFlow(element, transport, {
    session,
    autofocus: true,
    // The connection's width is the width of every Step and notification askd sends it.
    stepWidth: connectionWidth ?? undefined,
    async setStepWidth(width) {
      await transport.request("initialize", { capabilities: { width } });
      connectionWidth = width;
    },
    // askd does not notify a connection of its own changes: their Steps say them.
    onStep(step) {
      const entry = sessions.get(session);
      if (entry !== undefined && typeof step.status === "string") entry.status = step.status;
    },
  });
}

/**
 * Shows the list of flows, or waits for one when there is none.
 *
 * @param {ReturnType<typeof connectRpc>} transport
 */
function showList(transport) {
  flow?.dispose();
  flow = null;
  shownSession = null;
  rememberInAddress(null);
  if (sessions.size === 0) {
    const waiting = document.createElement("p");
    waiting.className = "askd-page-waiting";
    waiting.textContent = "No flow is open yet. This page shows one as soon as askd opens it.";
    main.replaceChildren(waiting);
    return;
  }
  const heading = document.createElement("h2");
  heading.textContent = "Choose a flow";
  const list = document.createElement("div");
  renderSessionList(list, [...sessions.values()], (session) => showFlow(transport, session));
  main.replaceChildren(heading, list);
}

/**
 * Shows what the page should show now: the flow asked for, the only flow waiting for an answer
 * (done ones aside), or the list.
 *
 * @param {ReturnType<typeof connectRpc>} transport
 */
function choose(transport) {
  if (shownSession !== null) {
    if (sessions.has(shownSession)) showFlow(transport, shownSession);
    else {
      say(`No flow named “${shownSession}” is open; this page shows it once askd opens it.`);
      main.replaceChildren();
    }
    return;
  }
  const open = openSessions();
  if (open.length === 1) showFlow(transport, open[0].session);
  else showList(transport);
}

/**
 * Keeps the list of sessions up to date from askd's notifications.
 *
 * @param {ReturnType<typeof connectRpc>} transport
 * @param {string} method
 * @param {any} params
 */
function onNotification(transport, method, params) {
  if (method === "session/opened") {
    sessions.set(params.session, { ...params });
    if (shownSession === params.session && flow === null) {
      say("");
      showFlow(transport, params.session);
    } else if (flow === null) choose(transport);
  } else if (method === "session/changed") {
    const entry = sessions.get(params.session);
    if (entry === undefined || entry.status === params.status) return;
    entry.status = params.status;
    if (flow === null && shownSession === null) showList(transport);
  } else if (method === "session/closed") {
    sessions.delete(params.session);
    if (flow === null && shownSession === null) showList(transport);
  }
}

/** Connects, then shows the flows. */
async function start() {
  if (!token) {
    say("This page needs its token: open the address askd printed, which ends in ?token=…", true);
    return;
  }
  say("Connecting to askd…");
  const transport = connectRpc(new WebSocket(socketAddress(location, token)));
  transport.onClose(({ opened, code, reason }) => {
    const ended = `${code}${reason ? `: ${reason}` : ""}`;
    if (flow !== null && flow.view?.status === "done") {
      // The flow is answered: its last screen and result stay.
      say(`This flow is complete, and askd has closed the connection (${ended}).`);
      return;
    }
    flow?.dispose();
    flow = null;
    main.replaceChildren();
    say(
      opened
        ? `The connection to askd closed (${ended}). Reload the page to connect again.`
        : "askd refused the connection: the token in this page's address is wrong or out of " +
            "date, or askd is no longer running.",
      true,
    );
  });
  transport.onError((message) => say(message, true));
  transport.onNotification((method, params) => onNotification(transport, method, params));
  try {
    await transport.opened;
    const width = columnsFor(main);
    await transport.request("initialize", {
      clientInfo: { name: "askd-web", version: "0.1.0" },
      capabilities: { width },
    });
    connectionWidth = width;
    await transport.request("subscribe", {});
    for (const entry of await transport.request("sessions")) sessions.set(entry.session, entry);
  } catch (error) {
    if (error && typeof error.code === "number") {
      say(`askd refused to start the page: ${error.message} (${error.code})`, true);
    }
    return;
  }
  say("");
  choose(transport);
}

start();
