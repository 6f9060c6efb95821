// The linter's configuration: eslint's recommended rules plus a few strict ones, and, per file,
// exactly the globals that file may use. The renderer module may use none beyond the language's
// own, which keeps it host-neutral.
import js from "@eslint/js";

/** Globals of a browser page that the page's own modules use. */
const pageGlobals = {
  document: "readonly",
  location: "readonly",
  history: "readonly",
  WebSocket: "readonly",
  URL: "readonly",
  URLSearchParams: "readonly",
  localStorage: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
  setInterval: "readonly",
};

/** Globals of Node that the tests and tools use. */
const nodeGlobals = {
  process: "readonly",
  console: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
  URL: "readonly",
  Buffer: "readonly",
};

/** Globals of the test pages, which the tests evaluate in the browser. */
const testPageGlobals = {
  window: "readonly",
  document: "readonly",
  performance: "readonly",
  requestAnimationFrame: "readonly",
  MutationObserver: "readonly",
  DataTransfer: "readonly",
  ClipboardEvent: "readonly",
  KeyboardEvent: "readonly",
  getComputedStyle: "readonly",
  navigator: "readonly",
  localStorage: "readonly",
};

const strict = {
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
  "no-var": "error",
  "prefer-const": "error",
  eqeqeq: ["error", "always", { null: "ignore" }],
  "no-shadow": "error",
  "no-implicit-globals": "error",
  "no-console": "error",
};

export default [
  { ignores: ["node_modules/", "tests/output/"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: {} },
    rules: strict,
  },
  { files: ["app.js", "askd-socket.js"], languageOptions: { globals: pageGlobals } },
  {
    files: ["tests/**/*.mjs", "eslint.config.js"],
    languageOptions: { globals: { ...nodeGlobals, ...testPageGlobals } },
    rules: { "no-console": "off" },
  },
  { files: ["tests/browser/page/*.js"], languageOptions: { globals: testPageGlobals } },
];
