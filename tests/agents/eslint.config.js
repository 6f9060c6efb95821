// The linter's configuration for the agents' tests and their harness: eslint's recommended
// rules plus a few strict ones, with Node's globals.
import js from "@eslint/js";

const nodeGlobals = {
  process: "readonly",
  console: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
  setInterval: "readonly",
  clearInterval: "readonly",
  URL: "readonly",
  Buffer: "readonly",
  fetch: "readonly",
  AbortController: "readonly",
  performance: "readonly",
};

export default [
  { ignores: ["node_modules/", "output/"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: nodeGlobals },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-shadow": "error",
      "no-implicit-globals": "error",
    },
  },
];
