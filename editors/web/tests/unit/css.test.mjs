// askd.css against the styles askd names and the custom properties hosts set.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { STYLES } from "../../askd-view.js";

const css = readFileSync(new URL("../../askd.css", import.meta.url), "utf8");

test("STYLES are the ten style names of the protocol", () => {
  assert.deepEqual(STYLES, [
    "text",
    "title",
    "accent",
    "success",
    "muted",
    "dim",
    "warning",
    "selected",
    "cursor",
    "border",
  ]);
});

test("askd.css has a rule for every style's class", () => {
  const classes = [...css.matchAll(/^\.askd-([a-z]+) \{$/gm)].map((match) => match[1]);
  for (const style of STYLES) assert.ok(classes.includes(style), `.askd-${style}`);
});

test("every colour and the font come from the custom properties hosts set", () => {
  const used = new Set([...css.matchAll(/var\(\s*(--askd-[a-z-]+)/g)].map((match) => match[1]));
  const hostProperties = [
    "--askd-fg",
    "--askd-bg",
    "--askd-title",
    "--askd-accent",
    "--askd-success",
    "--askd-muted",
    "--askd-dim",
    "--askd-warning",
    "--askd-selected",
    "--askd-cursor-fg",
    "--askd-cursor-bg",
    "--askd-border",
    "--askd-error",
    "--askd-font-family",
    "--askd-font-size",
    "--askd-line-height",
    // The form look's.
    "--askd-on-accent",
    "--askd-surface",
    "--askd-focus",
    "--askd-ui-font-family",
    "--askd-ui-font-size",
    "--askd-radius",
  ];
  for (const property of hostProperties) assert.ok(used.has(property), property);
  // No colour is written out in a rule: each comes through a property, with a default.
  const outsideDefaults = css.replace(/--askd-default-[a-z-]+: #[0-9a-f]{6};/g, "");
  assert.deepEqual(outsideDefaults.match(/#[0-9a-f]{3,8}\b/gi), null);
  // Light and dark defaults define the same properties.
  const [light, dark] = css.split("@media (prefers-color-scheme: dark)");
  const names = (part) => [...part.matchAll(/(--askd-default-[a-z-]+):/g)].map((m) => m[1]).sort();
  assert.deepEqual(names(dark), names(light));
  assert.equal(names(light).length, 13);
});
