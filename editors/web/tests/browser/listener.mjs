// A stand-in for askd's WebSocket listener, until askd has one: playwright's routeWebSocket
// answers the page's socket in the test, forwarding JSON-RPC to a real askd on its pipes and
// doing what the listener adds itself — the token check, `subscribe`, a `version` on every
// Step, and the `session/opened`, `session/changed` and `session/closed` notifications.

import { Engine, askdBin } from "./engine.mjs";

/** Methods that change a session and so answer a Step with a new version. */
const CHANGES = new Set([
  "key",
  "keys",
  "insert",
  "saveCustom",
  "setNote",
  "submitAnswers",
  "cancel",
  "open",
  "restore",
]);

/** The listener's stand-in for one page. */
export class Listener {
  /**
   * @param {import("playwright-core").Page} page
   * @param {string} token the token the page must present
   */
  constructor(page, token) {
    this.page = page;
    this.token = token;
    this.engine = new Engine(askdBin());
    this.versions = new Map();
    this.socket = null;
    this.subscribed = false;
    this.width = undefined;
    /** Every request the page sent, `{ method, params }`, in order. */
    this.requests = [];
  }

  /** Routes the page's connections to `/rpc`; one with a wrong token is refused (never opens). */
  async route() {
    await this.page.routeWebSocket(
      (url) => url.pathname === "/rpc",
      (socket) => {
        if (new URL(socket.url()).searchParams.get("token") !== this.token) {
          // As a refused upgrade does: the page's socket closes without opening.
          socket.connectToServer();
          return;
        }
        this.socket = socket;
        socket.onMessage((message) => this.receive(String(message)));
      },
    );
  }

  /** @param {object} message */
  send(message) {
    this.socket.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  /**
   * @param {string} method
   * @param {object} params
   */
  notify(method, params) {
    if (this.subscribed && this.socket !== null) this.send({ method, params });
  }

  /**
   * Answers one request from the page.
   *
   * @param {string} text
   */
  async receive(text) {
    const { id, method, params = {} } = JSON.parse(text);
    this.requests.push({ method, params });
    if (method === "subscribe") {
      this.subscribed = true;
      this.send({ id, result: null });
      return;
    }
    if (method === "initialize") this.width = params.capabilities?.width;
    const reply = await this.engine.call(method, params);
    if (reply.error) {
      this.send({ id, error: reply.error });
      return;
    }
    let result = reply.result;
    if (CHANGES.has(method) && result && typeof result.session === "string") {
      result = { ...result, version: this.bump(result.session) };
    }
    this.send({ id, result });
    if (CHANGES.has(method) && result && typeof result.session === "string") {
      await this.changed(result);
    }
  }

  /**
   * The next version of a session.
   *
   * @param {string} session
   */
  bump(session) {
    const version = (this.versions.get(session) ?? 0) + 1;
    this.versions.set(session, version);
    return version;
  }

  /**
   * Sends `session/changed` for a Step, its view rendered at this connection's width.
   *
   * @param {object} step
   */
  async changed(step) {
    const view = await this.engine.request("getView", { session: step.session, width: this.width });
    const params = { session: step.session, version: step.version, status: step.status, view };
    if (step.result !== undefined) params.result = step.result;
    if (step.transcript !== undefined) params.transcript = step.transcript;
    this.notify("session/changed", params);
  }

  /**
   * Opens a flow as another client (an agent on stdin) would, and announces it.
   *
   * @param {string} session
   * @param {object} payload
   */
  async openFlow(session, payload) {
    const step = await this.engine.request("open", { session, payload });
    this.bump(session);
    const opened = { session, status: step.status };
    if (payload.title !== undefined) opened.title = payload.title;
    this.notify("session/opened", opened);
  }

  /**
   * Changes a flow as another client would, and announces it.
   *
   * @param {string} session
   * @param {string} keys
   */
  async pressElsewhere(session, keys) {
    const step = await this.engine.request("keys", { session, keys });
    await this.changed({ ...step, version: this.bump(session) });
  }

  /**
   * Forgets a flow, and announces it.
   *
   * @param {string} session
   */
  async closeFlow(session) {
    await this.engine.request("close", { session });
    this.notify("session/closed", { session });
  }

  /**
   * Ends the page's connection as a stopping server would.
   *
   * @param {number} code
   * @param {string} reason
   */
  async drop(code, reason) {
    await this.socket.close({ code, reason });
  }

  async close() {
    await this.engine.close();
  }
}
