// MCP elicitation against the MCP SDK's own artifacts (@modelcontextprotocol/sdk, its zod
// request and result schemas and its ajv validator, and a round trip through its
// `Server.elicitInput()` and `Client`), and the pydantic models of PyPI `mcp` (a venv).
//
// Example requests: the ones the SDK's own example servers send, read from its package at
// `dist/esm/examples/server/elicitationFormExample.js` and `elicitationUrlExample.js` (each
// `elicitInput` argument and URL elicitation of those files, evaluated as written); then the
// cases of issue 29 (the SDK's patterns, formats, URL mode, forms no answer can satisfy).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { answer, askd, endings, load, packageFile } from "./lib.mjs";

/** The object literals of `source` that contain `marker`, evaluated with `scope`. */
function literals(source, marker, scope) {
  const found = [];
  let at = source.indexOf(marker);
  while (at !== -1) {
    let depth = 0;
    let start = at;
    for (; start >= 0; start--) {
      if (source[start] === "}") depth++;
      if (source[start] === "{" && depth-- === 0) break;
    }
    let end = start;
    for (depth = 0; end < source.length; end++) {
      if (source[end] === "{") depth++;
      if (source[end] === "}" && --depth === 0) break;
    }
    const text = source.slice(start, end + 1);
    const names = Object.keys(scope);
    found.push(new Function(...names, `return (${text});`)(...names.map((n) => scope[n])));
    at = source.indexOf(marker, end);
  }
  return found;
}

const examples = () => {
  const read = (file) => readFileSync(packageFile("@modelcontextprotocol/sdk", `dist/esm/examples/server/${file}`), "utf8");
  const scope = { MCP_PORT: 3000, sessionId: "s1", elicitationId: "e1", cartId: "c1" };
  const forms = literals(read("elicitationFormExample.js"), "requestedSchema:", scope);
  const urls = literals(read("elicitationUrlExample.js"), "mode: 'url'", scope);
  return [...forms, ...urls];
};

let engine;
let sdk;
/** What the tests met, for the pydantic models: the requests askd asked, the results it gave. */
const met = { requests: [], results: [] };
before(async () => {
  engine = askd();
  sdk = await load("@modelcontextprotocol/sdk/types.js");
});
after(() => engine.close());

/** Whether the SDK's request schema takes `params`. */
const sdkTakes = (params) => sdk.ElicitRequestParamsSchema.safeParse(params).success;

const form = (properties, required) => ({
  message: "Fill in the form",
  requestedSchema: { type: "object", properties, ...(required && { required }) },
});

/** The cases of issue 29 (and others at the edge of the SDK's schemas). */
const cases = [
  form({ n: { type: "string", pattern: "^\\d+$" } }),
  form({ e: { type: "string", format: "email" } }),
  form({ d: { type: "string", format: "date-time" } }),
  form({ x: { type: "string", enum: [] } }),
  form({ x: { type: "string", minLength: 4, maxLength: 2 } }),
  form({ x: { type: "integer", minimum: 5, maximum: 1 } }),
  form({ x: { type: "boolean" } }, ["y"]),
  form({ x: { type: "string", enum: ["a", "a"] } }),
  form({ x: { type: "string", enum: ["a", "b"], enumNames: ["A"] } }),
  form({ x: { type: "string", enum: ["a", "b"], oneOf: [{ const: "b", title: "B" }] } }),
  form({ x: { type: "string", pattern: "[a-" } }),
  form({ x: { type: "string", pattern: "^(a)\\1$" } }),
  form({ x: { type: "string", format: "phone" } }),
  form({ x: { type: "string", title: null } }),
  form({ x: { type: "object" } }),
  form({ x: { type: "array", items: { enum: ["a"] } } }),
  form({ x: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1 } }),
  form({ x: { type: "number", minimum: "1" } }),
  form({ x: { type: "boolean", default: null } }),
  { mode: "url", message: "Sign in", elicitationId: "e", url: "https://example.com/a" },
  { mode: "url", message: "Sign in", url: "https://example.com/a" },
  { mode: "url", message: "Sign in", elicitationId: "e", url: "not a url" },
  { mode: "form", message: null, requestedSchema: { type: "object", properties: {} } },
  { message: "m", requestedSchema: { type: "object", properties: {} }, task: { ttl: "x" } },
];

describe("the MCP SDK's request schema", () => {
  test("askd takes exactly the requests the SDK takes, and refuses the others naming the field", async () => {
    for (const params of [...examples(), ...cases]) {
      const reply = await engine.open("mcp", params, { mcp: { requester: { name: "server" } } });
      const label = JSON.stringify(params).slice(0, 160);
      assert.equal(!reply.error, sdkTakes(params), label);
      if (!reply.error) met.requests.push(params);
      if (reply.error) {
        assert.equal(reply.error.code, -32602, label);
        assert.ok(reply.error.data.issues.length > 0, label);
      }
    }
  });
});

/** Keys that answer every field of a form with a value its checks take, then Accept. */
const fills = {
  username: "<C-u>ada_l<CR>",
  email: "<C-u>ada@example.com<CR>",
  password: "<C-u>correct horse<CR>",
  title: "<C-u>Launch<CR>",
  date: "<C-u>2026-05-01<CR>",
  startTime: "<C-u>10:00<CR>",
  duration: "<C-u>60<CR>",
  state: "<C-u>CA<CR>",
  zipCode: "<C-u>94103<CR>",
};

describe("every answer passes the SDK's validators", () => {
  test("the example forms: every ending's result is an ElicitResult whose content the server's ajv check takes", async () => {
    const { AjvJsonSchemaValidator } = await load("@modelcontextprotocol/sdk/validation/ajv");
    const validator = new AjvJsonSchemaValidator();
    for (const params of examples()) {
      const results = await endings(engine, "mcp", params, fillKeys(params));
      met.results.push(...Object.values(results));
      for (const [ending, result] of Object.entries(results)) {
        const label = `${params.message}: ${ending}`;
        assert.ok(sdk.ElicitResultSchema.safeParse(result).success, label);
        if (result.content) {
          const check = validator.getValidator(params.requestedSchema)(result.content);
          assert.ok(check.valid, `${label}: ${check.errorMessage}`);
        }
      }
      assert.equal(results.submit.action, "accept", params.message);
      assert.equal(results.user.action, "cancel");
      assert.equal(results.timeout.action, "cancel");
    }
  });
});

/** Keys that fill in a form's fields (those `fills` names, else the first option) and accept. */
function fillKeys(params) {
  if (params.mode === "url") return "1";
  let keys = "";
  for (const [key, schema] of Object.entries(params.requestedSchema.properties)) {
    if (fills[key]) keys += fills[key];
    else if (schema.type === "string" && !schema.enum && !schema.oneOf) keys += "<C-u>x<CR>";
    else if (schema.type === "array") keys += "1<Tab>";
    else if (schema.type === "number" || schema.type === "integer") keys += `<C-u>${schema.minimum ?? 1}<CR>`;
    else keys += "1";
  }
  return `${keys}1`;
}

describe("a round trip through the SDK's Server.elicitInput() and Client", () => {
  test("the server receives what the person answered, checked by its own validator", async () => {
    const { Server } = await load("@modelcontextprotocol/sdk/server/index.js");
    const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
    const { InMemoryTransport } = await load("@modelcontextprotocol/sdk/inMemory.js");
    const server = new Server({ name: "deploy-server", version: "1.0.0" }, { capabilities: {} });
    const client = new Client(
      { name: "askd-host", version: "1.0.0" },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    const script = [];
    client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => {
      const keys = script.shift();
      const reply = await answer(engine, "mcp", request.params, keys, { mcp: { requester: { name: "deploy-server" } } });
      if (reply.error) throw new Error(reply.error.message);
      if (reply.result.status !== "done") throw new Error(`still open: ${JSON.stringify(reply.result.view)}`);
      return reply.result.result;
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const params = form(
      {
        name: { type: "string", title: "App name", minLength: 3, pattern: "^[a-z]+$" },
        replicas: { type: "integer", minimum: 1, maximum: 5, default: 2 },
        public: { type: "boolean", default: false },
        region: { type: "string", oneOf: [{ const: "eu", title: "Ireland" }, { const: "us", title: "Virginia" }] },
        features: { type: "array", items: { anyOf: [{ const: "logs", title: "Logs" }, { const: "traces", title: "Traces" }] } },
      },
      ["name", "region"],
    );
    script.push("shop<CR><CR>1212<Tab>1");
    assert.deepEqual(await server.elicitInput(params), {
      action: "accept",
      content: { name: "shop", replicas: 2, public: true, region: "us", features: ["logs", "traces"] },
    });
    script.push("<Esc><S-Tab>2");
    assert.deepEqual(await server.elicitInput(params), { action: "decline" });
    script.push("1");
    assert.deepEqual(
      await server.elicitInput({ mode: "url", message: "Sign in", elicitationId: "e1", url: "https://example.com/login" }),
      { action: "accept" },
    );
    await client.close();
  });
});

describe("every ending of the forms no answer can satisfy", () => {
  test("is an ElicitResult the SDK takes", async () => {
    for (const params of cases) {
      if ((await engine.open("mcp", params)).error) continue;
      const results = await endings(engine, "mcp", params, null);
      for (const [ending, result] of Object.entries(results)) {
        assert.ok(sdk.ElicitResultSchema.safeParse(result).success, `${JSON.stringify(params)}: ${ending}`);
      }
      met.results.push(...Object.values(results));
    }
  });
});

describe("PyPI mcp's pydantic models", () => {
  test("take every request askd asked and every result it gave", { skip: !process.env.ARTIFACTS_PYTHON }, () => {
    const run = spawnSync(process.env.ARTIFACTS_PYTHON, [new URL("./pydantic_check.py", import.meta.url).pathname], {
      input: JSON.stringify(met),
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /^checked \d+ requests and \d+ results$/m);
    assert.ok(met.results.length > 50, `${met.results.length} results`);
  });
});
