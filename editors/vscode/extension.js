// Starts `metro lsp` (the language server of the metro toolkit) for .metro files.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("metro");
  const server = {
    command: config.get("server.command", "metro"),
    args: config.get("server.args", ["lsp"]),
  };
  client = new LanguageClient(
    "metro",
    "Metro language server",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "metro" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
