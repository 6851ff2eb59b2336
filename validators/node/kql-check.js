// Parses KQL with Microsoft's Kusto.Language (the parser behind Azure Data Explorer and Log
// Analytics editors) and reports every diagnostic; optionally checks the functions called against an
// allow-list. Usage:
//   node kql-check.js --table NAME=COLUMNS.json [--allow FUNCTIONS.txt] FILE...
// COLUMNS.json is a list of {name, type}; the table is declared before each file is analysed.
// Prints one line per problem ("file:line:column: KSxxx message" or "file: function f is not
// allowed"), then the functions each file calls; exits 1 if there is any problem.
'use strict';
require('@kusto/language-service-next/bridge.min.js');
require('@kusto/language-service-next/Kusto.Language.Bridge.min.js');
const fs = require('fs');
const K = Kusto.Language;

const args = process.argv.slice(2);
let table = null;
let allow = null;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--table') {
    const [name, columns] = args[++i].split('=');
    const cols = JSON.parse(fs.readFileSync(columns, 'utf8'));
    table = `let ${name} = datatable(${cols.map(c => `['${c.name}']:${c.type}`).join(', ')})[];\n`;
  } else if (args[i] === '--allow') {
    allow = new Set(fs.readFileSync(args[++i], 'utf8').split('\n')
      .map(l => l.replace(/#.*/, '').trim()).filter(l => l.length > 0));
  } else {
    files.push(args[i]);
  }
}

let problems = 0;
for (const file of files) {
  const text = fs.readFileSync(file, 'utf8');
  const prefix = table || '';
  const code = K.KustoCode.ParseAndAnalyze(prefix + text, K.GlobalState.Default);
  const diagnostics = code.GetDiagnostics();
  for (let i = 0; i < diagnostics.Count; i++) {
    const d = diagnostics.getItem(i);
    const at = Math.max(0, d.Start - prefix.length);
    const before = text.substring(0, at).split('\n');
    console.log(`${file}:${before.length}:${before[before.length - 1].length + 1}: ${d.Severity} ${d.Code} ${d.Message}`);
    problems++;
  }
  const called = new Set();
  code.Syntax.WalkElements(el => {
    if (el instanceof K.Syntax.FunctionCallExpression && el.TextStart >= prefix.length) {
      called.add(el.Name.SimpleName);
    }
  });
  if (allow) {
    for (const f of called) {
      if (!allow.has(f)) {
        console.log(`${file}: function ${f} is not allowed`);
        problems++;
      }
    }
  }
  console.log(`${file}: calls ${[...called].sort().join(', ')}`);
}
process.exit(problems === 0 ? 0 : 1);
