// A tiny MCP server on stdio for the seams tests: one tool, `deploy`, that asks the client's
// person for a form through `elicitation/create` and answers with what came back, so that a
// test can find the person's answer in the model's next request.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "deployer", version: "1.0.0" });

server.registerTool("deploy", { description: "Deploys the app after asking where to." }, async () => {
  const result = await server.server.elicitInput({
    message: "Where should the app be deployed?",
    requestedSchema: {
      type: "object",
      properties: {
        region: {
          type: "string",
          title: "Region",
          oneOf: [
            { const: "eu-west-1", title: "Ireland" },
            { const: "us-east-1", title: "Virginia" },
          ],
        },
      },
      required: ["region"],
    },
  });
  return { content: [{ type: "text", text: `Elicitation: ${JSON.stringify(result)}` }] };
});

await server.connect(new StdioServerTransport());
