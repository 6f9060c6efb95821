// An agent's side of the hub, as a WebSocket client: connects to the endpoint given as the
// first argument, sends each JSON-RPC request that follows (one argument each, ids included)
// at once, prints every response as a line of JSON as it arrives, and exits once each request
// has its response. Run with `node --experimental-websocket`.
const [url, ...requests] = process.argv.slice(2);
const socket = new WebSocket(url);
const waiting = new Set(requests.map((text) => JSON.parse(text).id));
socket.addEventListener("open", () => {
  for (const text of requests) {
    socket.send(text);
  }
});
socket.addEventListener("message", (event) => {
  const message = JSON.parse(event.data);
  if (message.id === undefined || !waiting.has(message.id)) {
    return;
  }
  console.log(JSON.stringify(message));
  waiting.delete(message.id);
  if (waiting.size === 0) {
    socket.close();
  }
});
socket.addEventListener("close", () => process.exit(waiting.size === 0 ? 0 : 1));
socket.addEventListener("error", (event) => {
  console.error(String(event.message || event));
  process.exit(2);
});
