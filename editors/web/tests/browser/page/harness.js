// The test page's side of the bridge: a transport whose requests go to the test's askd through
// the function the test exposes, and whose notifications the test delivers.

import * as view from "/askd-view.js";

const handlers = new Set();
const flowElement = document.getElementById("flow");

/** The transport `mountFlow` gets: JSON-RPC requests carried by the test's bridge. */
const transport = {
  async request(method, params) {
    const reply = await window.askdBridgeCall(method, params ?? {});
    if (reply.error) throw reply.error;
    return reply.result;
  },
  onNotification(handler) {
    handlers.add(handler);
    return () => handlers.delete(handler);
  },
};

window.askdView = view;
window.bridgeTransport = transport;
window.bridgeNotify = (method, params) => {
  for (const handler of handlers) handler(method, params);
};
window.flowColumns = () => view.columnsFor(flowElement);
window.setFlowWidth = (width) => {
  flowElement.style.width = typeof width === "number" ? `${width}px` : width;
};
window.mountTestFlow = (options, through = transport) => {
  window.flowController?.dispose();
  window.flowController = view.mountFlow(flowElement, through, { ...options, autofocus: true });
  return window.flowController.columns;
};
window.harnessReady = true;
