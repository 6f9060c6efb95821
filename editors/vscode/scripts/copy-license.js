// @ts-check
/**
 * Writes `LICENSE.md` (a build product, git-ignored) from the repository's two licence files,
 * so that the packaged extension carries the licence its manifest names.
 */
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..", "..");
const text = (name) => fs.readFileSync(path.join(root, name), "utf8").trimEnd();

const page = [
  "askd for VS Code is licensed under either of the Apache License, Version 2.0 or the MIT",
  "license, at your option.",
  "",
  "## MIT license",
  "",
  "```",
  text("LICENSE-MIT"),
  "```",
  "",
  "## Apache License, Version 2.0",
  "",
  "```",
  text("LICENSE-APACHE"),
  "```",
  "",
];
fs.writeFileSync(path.resolve(__dirname, "..", "LICENSE.md"), page.join("\n"));
