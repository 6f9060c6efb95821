/**
 * askd-socket: a JSON-RPC 2.0 client over a WebSocket, one message per text frame, shaped as the
 * transport that askd-view's `mountFlow` takes.
 *
 * @module askd-socket
 */

/** A JSON-RPC error answered by the server: `{ code, message, data? }`. */
export class RpcError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The address of askd's WebSocket endpoint for a page served by askd: the page's own host,
 * `wss:` under `https:` and `ws:` otherwise, path `/rpc`, and the token as `?token=`.
 *
 * @param {{ protocol: string, host: string }} page the page's location
 * @param {string} token
 * @returns {string}
 */
export function socketAddress(page, token) {
  const scheme = page.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${page.host}/rpc?token=${encodeURIComponent(token)}`;
}

/**
 * @typedef {object} SocketLike
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {() => void} close
 * @property {(type: string, listener: (event: any) => void) => void} addEventListener
 */

/**
 * Speaks JSON-RPC 2.0 over a WebSocket (or anything shaped like one).
 *
 * The connection answers `request(method, params)` with a promise of the result; an error
 * response rejects it with an {@link RpcError}, and a connection that closes rejects every
 * request still waiting with an `Error` saying so. Notifications (messages with a `method` and
 * no `id`) go to every handler given to `onNotification`. `opened` settles once the socket is
 * open, or rejects if it closes first. `onClose` handlers learn how the connection ended, and
 * `onError` handlers hear of messages that are not JSON-RPC.
 *
 * @param {SocketLike} socket
 * @returns {{
 *   request: (method: string, params?: object) => Promise<any>,
 *   onNotification: (handler: (method: string, params: any) => void) => () => void,
 *   onClose: (handler: (info: { opened: boolean, code: number, reason: string }) => void) => void,
 *   onError: (handler: (message: string) => void) => void,
 *   opened: Promise<void>,
 *   close: () => void,
 * }}
 */
export function connectRpc(socket) {
  const pending = new Map();
  const notificationHandlers = new Set();
  const closeHandlers = [];
  const errorHandlers = [];
  let nextId = 1;
  let opened = false;
  let closed = false;
  let markOpen;
  let markRefused;
  const openedPromise = new Promise((resolve, reject) => {
    markOpen = resolve;
    markRefused = reject;
  });
  // Nobody need wait for it; a refusal also reaches the close handlers.
  openedPromise.catch(() => {});
  if (socket.readyState === 1) {
    opened = true;
    markOpen();
  }

  /** @param {string} message */
  function fault(message) {
    for (const handler of errorHandlers) handler(message);
  }

  /** @param {any} message one JSON-RPC message */
  function receive(message) {
    if (message === null || typeof message !== "object" || message.jsonrpc !== "2.0") {
      fault("askd sent a message that is not JSON-RPC 2.0");
      return;
    }
    if (typeof message.method === "string" && message.id === undefined) {
      for (const handler of notificationHandlers) handler(message.method, message.params);
      return;
    }
    const waiting = pending.get(message.id);
    if (waiting === undefined) {
      if (message.error) fault(`askd reported an error: ${message.error.message}`);
      return;
    }
    pending.delete(message.id);
    if (message.error) {
      const { code, message: text, data } = message.error;
      waiting.reject(new RpcError(code, text, data));
    } else {
      waiting.resolve(message.result);
    }
  }

  socket.addEventListener("open", () => {
    opened = true;
    markOpen();
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") {
      fault("askd sent a binary frame; it speaks JSON-RPC in text frames");
      return;
    }
    let parsed;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      fault("askd sent a frame that is not JSON");
      return;
    }
    if (Array.isArray(parsed)) parsed.forEach(receive);
    else receive(parsed);
  });
  socket.addEventListener("close", (event) => {
    closed = true;
    const reason = opened ? "the connection to askd closed" : "askd refused the connection";
    for (const waiting of pending.values()) waiting.reject(new Error(reason));
    pending.clear();
    if (!opened) markRefused(new Error(reason));
    const info = { opened, code: event.code ?? 0, reason: event.reason ?? "" };
    for (const handler of closeHandlers) handler(info);
  });

  return {
    request(method, params) {
      if (closed) return Promise.reject(new Error("the connection to askd is closed"));
      const id = nextId++;
      const message = { jsonrpc: "2.0", id, method };
      if (params !== undefined) message.params = params;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const send = () => socket.send(JSON.stringify(message));
        if (opened) send();
        else openedPromise.then(send, () => {});
      });
    },
    onNotification(handler) {
      notificationHandlers.add(handler);
      return () => notificationHandlers.delete(handler);
    },
    onClose(handler) {
      closeHandlers.push(handler);
    },
    onError(handler) {
      errorHandlers.push(handler);
    },
    opened: openedPromise,
    close() {
      socket.close();
    },
  };
}
