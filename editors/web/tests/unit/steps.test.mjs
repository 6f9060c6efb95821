// Which Steps are stale, and the words for errors.

import assert from "node:assert/strict";
import { test } from "node:test";
import { describeError, isStale } from "../../askd-view.js";

test("isStale: versions decide when both Steps carry one", () => {
  assert.equal(isStale({ version: 5, ticket: 3 }, { version: 4, ticket: 9 }), true);
  assert.equal(isStale({ version: 5, ticket: 3 }, { version: 5, ticket: 1 }), false);
  assert.equal(isStale({ version: 5, ticket: 9 }, { version: 6, ticket: 2 }), false);
});

test("isStale: without versions, the order the requests were sent decides", () => {
  assert.equal(isStale({ version: null, ticket: 4 }, { version: null, ticket: 3 }), true);
  assert.equal(isStale({ version: null, ticket: 4 }, { version: null, ticket: 4 }), false);
  assert.equal(isStale({ version: null, ticket: 4 }, { version: null, ticket: 5 }), false);
  assert.equal(isStale({ version: 7, ticket: 4 }, { version: null, ticket: 3 }), true);
  assert.equal(isStale({ version: null, ticket: 4 }, { version: 2, ticket: 5 }), false);
  assert.equal(isStale({ version: null, ticket: 0 }, { version: null, ticket: 0 }), false);
});

test("describeError: the request and askd's words, with the error code", () => {
  assert.equal(
    describeError("key", { code: -32001, message: 'unknown session "t1"' }),
    'askd could not take the key: unknown session "t1" (-32001)',
  );
  assert.equal(
    describeError("insert", { code: -32004, message: "limit exceeded: text over 65536 bytes" }),
    "askd could not insert the text: limit exceeded: text over 65536 bytes (-32004)",
  );
  assert.equal(
    describeError("getView", new Error("the connection to askd closed")),
    "askd could not draw the flow: the connection to askd closed",
  );
  assert.equal(describeError("keys", "timed out"), "askd could not take the typed text: timed out");
  assert.equal(
    describeError("snapshot", { code: -32603 }),
    "askd could not run snapshot: no reason given (-32603)",
  );
});
