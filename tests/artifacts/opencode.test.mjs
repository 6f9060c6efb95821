// opencode's question endpoints against the OpenAPI document its own server serves: `opencode
// serve` (opencode-ai, the version the runner installs) started offline, its `/doc` read, and its
// `QuestionRequest` and the body of `POST /question/{requestID}/reply` compiled with ajv. askd
// asks exactly the requests that schema takes, and every answer it gives, for every ending, is
// a reply body by that schema (a dismissal is `POST /question/{requestID}/reject`, which has no
// body).
//
// Example requests: the one documented in protocol/dialects.md (the shape `question.asked`
// carries), then the edges of the schema (ids by their prefixes, empty lists, duplicate labels,
// `custom: false`, fields the schema does not know).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { askd, endings, load, modules, temporary } from "./lib.mjs";

const bin = join(modules, ".bin", "opencode");
const skip = existsSync(bin) ? false : "opencode-ai is not installed (the runner installs it with tests/agents)";

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The OpenAPI document of an `opencode serve` run offline in a temporary home. */
async function openapi() {
  const home = temporary("opencode-home");
  const port = await freePort();
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  };
  const child = spawn(bin, ["serve", "--hostname", "127.0.0.1", "--port", String(port)], { cwd: home, env, stdio: "ignore" });
  try {
    // The server may take its first requests before it answers them: each try gives up after
    // a few seconds.
    for (let tries = 0; tries < 60; tries++) {
      try {
        const reply = await fetch(`http://127.0.0.1:${port}/doc`, { signal: AbortSignal.timeout(5000) });
        if (reply.ok) return await reply.json();
      } catch {
        // Not listening, or not answering, yet.
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error("opencode serve did not serve /doc");
  } finally {
    child.kill();
  }
}

let engine;
let request;
let reply;
let doc;
before(async () => {
  if (skip) return;
  engine = askd();
  doc = await openapi();
  const { default: Ajv2020 } = await load("ajv/dist/2020.js");
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: "opencode", components: doc.components });
  request = ajv.compile({ $ref: "opencode#/components/schemas/QuestionRequest" });
  const body = doc.paths["/question/{requestID}/reply"].post.requestBody.content["application/json"].schema;
  reply = ajv.compile({ ...JSON.parse(JSON.stringify(body).replaceAll('"#/components', '"opencode#/components')) });
});
after(() => engine?.close());

const option = (label) => ({ label, description: "" });
const documented = {
  id: "que_01J",
  sessionID: "ses_01J",
  questions: [
    { question: "Which database should we use?", header: "Database", options: [option("Postgres (Recommended)"), option("SQLite")] },
    { question: "Which features do you want to enable?", header: "Features", multiple: true, options: [option("Auth"), option("Logging")] },
  ],
  tool: { messageID: "msg_01J", callID: "toolu_01" },
};
const envelope = { id: "que_1", sessionID: "ses_1" };
const question = (fields) => ({ question: "Which?", header: "Q", options: [option("A")], ...fields });

/** Requests at the edges of the served `QuestionRequest`. */
const cases = [
  documented,
  { ...envelope, questions: [] },
  { ...envelope, questions: [question({ options: [option("A"), option("A")] })] },
  { ...envelope, questions: [question({ options: [], custom: false })] },
  { ...envelope, questions: [question({ options: [] })] },
  { ...envelope, questions: [question({ question: "", header: "" })] },
  { ...envelope, questions: [question({ multiple: true, custom: true })] },
  { ...envelope, id: "q_1", questions: [question({})] },
  { ...envelope, sessionID: "s_1", questions: [question({})] },
  { ...envelope, questions: [question({})], tool: { messageID: "m_1", callID: "c" } },
  { ...envelope, questions: [question({})], tool: { messageID: "msg_1" } },
  { ...envelope, questions: [question({ custom: "no" })] },
  { ...envelope, questions: [question({ options: [{ label: "A" }] })] },
  { ...envelope, questions: [{ question: "Which?", options: [] }] },
  { sessionID: "ses_1", questions: [] },
];

/** Requests with fields the served schema does not describe: the one documented exception,
 * asked all the same (unknown fields change nothing, so that a field a later opencode adds
 * never makes askd refuse a request opencode sent). */
const unknownFields = [
  { ...envelope, questions: [question({ extra: 1 })] },
  { ...envelope, questions: [question({ options: [{ ...option("A"), extra: 1 }] })] },
  { ...envelope, questions: [question({})], tool: { messageID: "msg_1", callID: "c", extra: 1 }, time: { created: 1 } },
];

describe("the QuestionRequest opencode serve's /doc describes", { skip }, () => {
  test("askd asks exactly the requests the schema takes", async () => {
    assert.equal(doc.paths["/question/{requestID}/reject"].post.requestBody, undefined);
    for (const params of cases) {
      const opened = await engine.open("opencode", params);
      const label = JSON.stringify(params).slice(0, 200);
      const asked = !opened.error && opened.result.status === "open";
      assert.equal(asked, request(params), `${label}: ${JSON.stringify(request.errors)}`);
    }
  });

  test("a request with fields the schema does not describe is asked, and they change nothing", async () => {
    for (const params of unknownFields) {
      const label = JSON.stringify(params).slice(0, 200);
      assert.equal(request(params), false, label);
      assert.equal(request.errors[0].keyword, "additionalProperties", label);
      const opened = await engine.open("opencode", params);
      assert.equal(opened.result.status, "open", label);
      const results = await endings(engine, "opencode", params, "11");
      assert.deepEqual(results.submit, { answers: [["A"]] }, label);
      assert.ok(reply(results.submit), label);
    }
  });

  test("every answer, for every ending, is a reply body by the schema, or a rejection", async () => {
    let checked = 0;
    for (const params of cases.filter((r) => request(r))) {
      const results = await endings(engine, "opencode", params, null);
      for (const [ending, result] of Object.entries(results)) {
        const label = `${JSON.stringify(params).slice(0, 120)}: ${ending}`;
        if (result.rejected === true) {
          assert.deepEqual(result, { rejected: true }, label);
        } else {
          assert.ok(reply(result), `${label}: ${JSON.stringify(reply.errors)}`);
          checked++;
        }
      }
    }
    const answered = await endings(engine, "opencode", documented, "2<Space><Down><Down>Audit<CR>1");
    assert.deepEqual(answered.submit, { answers: [["SQLite"], ["Auth", "Audit"]] });
    assert.ok(reply(answered.submit), JSON.stringify(reply.errors));
    assert.ok(checked > 5, `${checked} reply bodies checked`);
  });
});
