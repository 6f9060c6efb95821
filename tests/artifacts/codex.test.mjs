// Codex's request_user_input against the JSON Schema `codex app-server generate-json-schema`
// writes (@openai/codex, the version the runner installs): askd asks exactly the app-server
// requests that schema takes (and, as the one documented exception, those of a Codex older
// than `isBlocking`, which sent none), and every answer it gives, for every ending, is a
// `ToolRequestUserInputResponse` by that schema.
//
// Example requests: the app-server request documented in protocol/dialects.md (the shape the
// generated schema describes, with both Codex-era pacing fields), then the cases of issue 29.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { askd, endings, generated, load } from "./lib.mjs";

let engine;
let params;
let response;
let elicitation;
before(async () => {
  engine = askd();
  const { default: Ajv } = await load("ajv");
  const ajv = new Ajv({ strict: false, allErrors: true });
  const dir = generated("generate-json-schema");
  const schema = (name) => JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
  params = ajv.compile(schema("ToolRequestUserInputParams"));
  response = ajv.compile(schema("ToolRequestUserInputResponse"));
  elicitation = ajv.compile(schema("McpServerElicitationRequestParams"));
});
after(() => engine.close());

const envelope = { threadId: "thr_1", turnId: "turn_1", itemId: "call_abc", isBlocking: true };
const question = (fields) => ({ id: "q", header: "Q", question: "Which?", ...fields });
const options = [
  { label: "Postgres (Recommended)", description: "Full SQL server." },
  { label: "SQLite", description: "Single file, no server." },
];

const documented = {
  ...envelope,
  questions: [
    { id: "db_choice", header: "Database", question: "Which database should we use?", isOther: true, isSecret: false, options },
    { id: "deploy_target", header: "Deploy", question: "Where will it run?", isOther: true, isSecret: false, options },
  ],
  autoResolutionMs: null,
};

/** App-server requests at the edges of the generated schema. */
const cases = [
  documented,
  { ...envelope, questions: [] },
  { ...envelope, questions: [question({ options }), question({ options })] },
  { ...envelope, questions: [question({ id: "", header: "", question: "", options: [options[0], options[0]] })] },
  { ...envelope, questions: [question({ options: null })] },
  { ...envelope, questions: [question({})] },
  { ...envelope, questions: [question({ options })], autoResolutionMs: 5000 },
  { ...envelope, questions: [question({ options })], autoResolutionMs: -1 },
  { ...envelope, questions: [question({ options })], autoResolutionMs: 2.5 },
  { ...envelope, questions: [question({ options })], isBlocking: null },
  { ...envelope, questions: [question({ options, isOther: null })] },
  { ...envelope, questions: [question({ options, isSecret: "no" })] },
  { ...envelope, questions: [question({ options: [{ label: "A" }] })] },
  { ...envelope, questions: [question({ header: 1, options })] },
  { ...envelope, threadId: null, questions: [question({ options })] },
  { ...envelope, questions: "x" },
];

describe("the generated ToolRequestUserInputParams", () => {
  test("askd asks exactly the app-server requests the schema takes", async () => {
    for (const request of cases) {
      const reply = await engine.open("codex", request);
      const label = JSON.stringify(request).slice(0, 200);
      assert.equal(reply.result.status === "open", params(request), label);
      if (reply.result.status === "done") assert.ok(reply.result.error.issues.length > 0, label);
    }
  });

  test("a request of a Codex older than isBlocking, which the schema now requires, is asked and blocks", async () => {
    const { isBlocking, ...older } = documented;
    assert.equal(isBlocking, true);
    assert.equal(params(older), false);
    const reply = await engine.open("codex", older);
    assert.equal(reply.result.status, "open");
    assert.equal(reply.result.view.deadline, null);
  });
});

describe("every answer is a ToolRequestUserInputResponse", () => {
  test("for every ending of every request askd asks", async () => {
    const keys = new Map([[documented, "Nreuse the staging cluster<CR>1<Down><Down>our own Kubernetes<CR>1"]]);
    for (const request of cases.filter((r) => params(r))) {
      const results = await endings(engine, "codex", request, keys.get(request) ?? null);
      for (const [ending, result] of Object.entries(results)) {
        assert.ok(response(result), `${JSON.stringify(request).slice(0, 120)}: ${ending}: ${JSON.stringify(response.errors)}`);
      }
    }
    const results = await endings(engine, "codex", documented, keys.get(documented));
    assert.deepEqual(results.submit, {
      answers: {
        db_choice: { answers: ["Postgres (Recommended)", "user_note: reuse the staging cluster"] },
        deploy_target: { answers: ["None of the above", "user_note: our own Kubernetes"] },
      },
    });
  });
});

describe("an MCP elicitation as Codex forwards it (mcpServer/elicitation/request)", () => {
  test("its null _meta, which the MCP SDK's schema refuses, is taken as absent", async () => {
    // The shape Codex sends: its own members, then the elicitation's, `_meta` written as null
    // when the server sent none (what the generated McpServerElicitationRequestParams allows).
    const forwarded = {
      threadId: "thr_1",
      turnId: "turn_1",
      serverName: "deployer",
      mode: "form",
      message: "Where should the app be deployed?",
      requestedSchema: {
        type: "object",
        properties: {
          region: { type: "string", title: "Region", oneOf: [{ const: "eu-west-1", title: "Ireland" }, { const: "us-east-1", title: "Virginia" }] },
        },
        required: ["region"],
      },
      _meta: null,
    };
    assert.ok(elicitation(forwarded), JSON.stringify(elicitation.errors));
    const sdk = await load("@modelcontextprotocol/sdk/types.js");
    // As the example client hands it to askd: Codex's own members left out.
    const { threadId, turnId, serverName, ...payload } = forwarded;
    assert.deepEqual([threadId, turnId, serverName], ["thr_1", "turn_1", "deployer"]);
    assert.equal(sdk.ElicitRequestParamsSchema.safeParse(payload).success, false);
    const results = await endings(engine, "mcp", payload, "21", { mcp: { requester: { name: "deployer" } } });
    assert.deepEqual(results.submit, { action: "accept", content: { region: "us-east-1" } });
    for (const [ending, result] of Object.entries(results)) {
      assert.ok(sdk.ElicitResultSchema.safeParse(result).success, ending);
    }
  });
});
