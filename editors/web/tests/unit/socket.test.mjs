// The WebSocket transport's JSON-RPC, against a socket that records what is sent.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RpcError, connectRpc, socketAddress } from "../../askd-socket.js";

/** A stand-in for a browser WebSocket: records frames sent and lets the test deliver events. */
class FakeSocket {
  constructor(readyState = 0) {
    this.readyState = readyState;
    this.sent = [];
    this.listeners = {};
    this.closed = false;
  }

  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }

  send(data) {
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.closed = true;
  }

  emit(type, event = {}) {
    for (const listener of this.listeners[type] ?? []) listener(event);
  }

  /** @param {unknown} message */
  answer(message) {
    this.emit("message", { data: typeof message === "string" ? message : JSON.stringify(message) });
  }
}

test("socketAddress: the page's own host, ws or wss, /rpc and the token", () => {
  assert.equal(
    socketAddress({ protocol: "http:", host: "127.0.0.1:8123" }, "abc"),
    "ws://127.0.0.1:8123/rpc?token=abc",
  );
  assert.equal(
    socketAddress({ protocol: "https:", host: "example.test" }, "a b&c=d"),
    "wss://example.test/rpc?token=a%20b%26c%3Dd",
  );
});

test("requests wait for the socket to open, then match answers by id", async () => {
  const socket = new FakeSocket();
  const rpc = connectRpc(socket);
  const first = rpc.request("initialize", { clientInfo: { name: "t" } });
  const second = rpc.request("sessions");
  assert.deepEqual(socket.sent, []);
  socket.readyState = 1;
  socket.emit("open");
  await rpc.opened;
  await Promise.resolve();
  assert.deepEqual(socket.sent, [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "t" } } },
    { jsonrpc: "2.0", id: 2, method: "sessions" },
  ]);
  socket.answer({ jsonrpc: "2.0", id: 2, result: [{ session: "s1", status: "open" }] });
  socket.answer({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } });
  assert.deepEqual(await second, [{ session: "s1", status: "open" }]);
  assert.deepEqual(await first, { protocolVersion: 1 });
});

test("an error answer rejects with its code, message and data", async () => {
  const socket = new FakeSocket(1);
  const rpc = connectRpc(socket);
  const pending = rpc.request("key", { session: "x", key: "up" });
  socket.answer({
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32001, message: 'unknown session "x"', data: { hint: 1 } },
  });
  await assert.rejects(pending, (error) => {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32001);
    assert.equal(error.message, 'unknown session "x"');
    assert.deepEqual(error.data, { hint: 1 });
    return true;
  });
});

test("notifications reach every handler until it is removed, batches are split", () => {
  const socket = new FakeSocket(1);
  const rpc = connectRpc(socket);
  const seen = [];
  const remove = rpc.onNotification((method, params) => seen.push(["a", method, params]));
  rpc.onNotification((method) => seen.push(["b", method]));
  socket.answer({ jsonrpc: "2.0", method: "session/opened", params: { session: "s1", status: "open" } });
  remove();
  socket.answer([
    { jsonrpc: "2.0", method: "session/closed", params: { session: "s1" } },
    { jsonrpc: "2.0", method: "session/opened", params: { session: "s2", status: "open" } },
  ]);
  assert.deepEqual(seen, [
    ["a", "session/opened", { session: "s1", status: "open" }],
    ["b", "session/opened"],
    ["b", "session/closed"],
    ["b", "session/opened"],
  ]);
});

test("a socket that closes rejects what waits and tells whether it had opened", async () => {
  const socket = new FakeSocket(1);
  const rpc = connectRpc(socket);
  const closes = [];
  rpc.onClose((info) => closes.push(info));
  const pending = rpc.request("sessions");
  socket.emit("close", { code: 1006, reason: "" });
  await assert.rejects(pending, { message: "the connection to askd closed" });
  await assert.rejects(rpc.request("sessions"), { message: "the connection to askd is closed" });
  assert.deepEqual(closes, [{ opened: true, code: 1006, reason: "" }]);

  const refused = new FakeSocket(0);
  const never = connectRpc(refused);
  const refusals = [];
  never.onClose((info) => refusals.push(info));
  const waiting = never.request("initialize");
  refused.emit("close", { code: 1006, reason: "" });
  await assert.rejects(never.opened, { message: "askd refused the connection" });
  await assert.rejects(waiting, { message: "askd refused the connection" });
  assert.deepEqual(refused.sent, []);
  assert.deepEqual(refusals, [{ opened: false, code: 1006, reason: "" }]);
});

test("frames that are not JSON-RPC are reported, not dropped in silence", () => {
  const socket = new FakeSocket(1);
  const rpc = connectRpc(socket);
  const faults = [];
  rpc.onError((message) => faults.push(message));
  socket.answer("not json");
  socket.answer({ id: 1, result: null });
  socket.emit("message", { data: new Uint8Array(2) });
  socket.answer({ jsonrpc: "2.0", id: 99, error: { code: -32700, message: "parse error" } });
  socket.answer({ jsonrpc: "2.0", id: 98, result: 1 });
  assert.deepEqual(faults, [
    "askd sent a frame that is not JSON",
    "askd sent a message that is not JSON-RPC 2.0",
    "askd sent a binary frame; it speaks JSON-RPC in text frames",
    "askd reported an error: parse error",
  ]);
});
