/**
 * The question panel: a webview that loads the askd web renderer (`media/askd-view.js` and
 * `media/askd.css`, copied from `editors/web/` when the extension is packaged), the theme
 * mapping (`media/theme.css`) and the page script (`media/panel.js`, with the countdown of
 * `media/countdown.js` above a flow that has a deadline), under a strict
 * Content-Security-Policy: nonce'd scripts only, styles and fonts from the extension's own
 * files, nothing remote.
 */

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import type { FlowPanel } from "./flow";

/** A question panel as the extension holds it: a flow's panel it can bring to the front. */
export interface QuestionPanel extends FlowPanel {
  /** Whether the panel is the active editor (it has, or last had, the keyboard). */
  readonly active: boolean;
  /** Brings the panel to the front and gives it the keyboard. */
  reveal(): void;
}
import type { HostMessage } from "./protocol";

/** The webview panel type (used in `when` clauses: `activeWebviewPanelId == 'askd.flow'`). */
export const PANEL_VIEW_TYPE = "askd.flow";

/** A fresh nonce for one page. */
function makeNonce(): string {
  return crypto.randomBytes(18).toString("base64");
}

/** The Content-Security-Policy of a page whose scripts carry `nonce`. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** The page's HTML. `asset` turns a file of `media/` into the URI the webview loads it from. */
export function panelHtml(cspSource: string, nonce: string, title: string, asset: (file: string) => string): string {
  const escaped = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${asset("askd.css")}">
<link rel="stylesheet" href="${asset("theme.css")}">
<title>${escaped}</title>
</head>
<body>
<div id="askd-countdown" class="askd-countdown" role="timer" hidden></div>
<main id="askd-flow" class="askd askd-vscode" aria-label="${escaped}"></main>
<script type="module" nonce="${nonce}" src="${asset("panel.js")}"></script>
</body>
</html>`;
}

/**
 * Opens a question panel beside the active editor, its page loading. With `focus` false (a
 * question that arrives while the person works) the keyboard stays where it is; with `focus`
 * true (the person asked for it) the panel takes it.
 */
export function openQuestionPanel(extensionUri: vscode.Uri, title: string, focus: boolean): QuestionPanel {
  const media = vscode.Uri.joinPath(extensionUri, "media");
  const panel = vscode.window.createWebviewPanel(
    PANEL_VIEW_TYPE,
    title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: !focus },
    {
      enableScripts: true,
      localResourceRoots: [media],
      retainContextWhenHidden: true,
      enableFindWidget: false,
    },
  );
  panel.iconPath = vscode.Uri.joinPath(media, "askd.svg");
  const webview = panel.webview;
  webview.html = panelHtml(webview.cspSource, makeNonce(), title, (file) =>
    webview.asWebviewUri(vscode.Uri.joinPath(media, file)).toString(),
  );
  let closing = false;
  return {
    get active() {
      return !closing && panel.active;
    },
    reveal() {
      if (!closing) {
        panel.reveal(undefined, false);
        void webview.postMessage({ kind: "focus" } satisfies HostMessage);
      }
    },
    post(message: HostMessage) {
      if (!closing) {
        void webview.postMessage(message);
      }
    },
    onMessage(listener) {
      return webview.onDidReceiveMessage(listener);
    },
    onClosed(listener) {
      return panel.onDidDispose(() => {
        if (!closing) {
          closing = true;
          listener();
        }
      });
    },
    close() {
      if (!closing) {
        closing = true;
        panel.dispose();
      }
    },
  };
}
