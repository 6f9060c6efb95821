// A second client of the engine, as a browser page would be: connects to the WebSocket
// endpoint given as the first argument, presses the keys that follow on the session named
// second, one `key` request at a time, prints each reply's status and exits.
// Run with `node --experimental-websocket` (Node 20 has the WebSocket client behind the flag).
const [url, session, ...keys] = process.argv.slice(2);
const socket = new WebSocket(url);
let id = 0;
function next() {
  const key = keys.shift();
  if (key === undefined) {
    socket.close();
    return;
  }
  id += 1;
  socket.send(JSON.stringify({ jsonrpc: "2.0", id, method: "key", params: { session, key } }));
}
socket.addEventListener("open", next);
socket.addEventListener("message", (event) => {
  const message = JSON.parse(event.data);
  if (message.id === undefined) {
    return;
  }
  if (message.error) {
    console.error(JSON.stringify(message.error));
    process.exit(1);
  }
  console.log(message.result.status);
  next();
});
socket.addEventListener("close", () => process.exit(0));
socket.addEventListener("error", (event) => {
  console.error(String(event.message || event));
  process.exit(2);
});
