// Tokenizes a file with the real TextMate engine (vscode-textmate + Oniguruma) and prints
// JSON [[text, innermost scope], ...] per line: tests/test_syntax.py compares it with its
// own reading of the grammar when these packages are installed (npm install in editors/vscode).
"use strict";

const fs = require("fs");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const [grammarPath, textPath] = process.argv.slice(2);
const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
const onigLib = oniguruma.loadWASM(wasm).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (text) => new oniguruma.OnigString(text),
}));
const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
});

registry.loadGrammar("source.metro").then((grammar) => {
  let stack = vsctm.INITIAL;
  const lines = [];
  for (const line of fs.readFileSync(textPath, "utf8").split("\n")) {
    const result = grammar.tokenizeLine(line, stack);
    lines.push(result.tokens.map((t) => [line.substring(t.startIndex, t.endIndex), t.scopes[t.scopes.length - 1]]));
    stack = result.ruleStack;
  }
  process.stdout.write(JSON.stringify(lines));
});
