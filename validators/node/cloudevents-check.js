// Reads CloudEvents the way a Node consumer does, with the official SDK (cloudevents on npm):
// structured mode, the content type sebridge sends. Usage:
//   node cloudevents-check.js --content-type TYPE FILE...   (each FILE one envelope as sent)
// Exits 1 if the SDK refuses any.
'use strict';
const { HTTP } = require('cloudevents');
const fs = require('fs');
const args = process.argv.slice(2);
let contentType = null;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--content-type') contentType = args[++i];
  else files.push(args[i]);
}
let problems = 0;
for (const f of files) {
  try {
    const event = HTTP.toEvent({ headers: { 'content-type': contentType }, body: fs.readFileSync(f, 'utf8') });
    event.validate();
    console.log(`${f}: ${event.type} ${event.id} read by the CloudEvents SDK`);
  } catch (e) {
    console.log(`${f}: the CloudEvents SDK refuses it: ${e.message || e}`);
    problems++;
  }
}
process.exit(problems === 0 ? 0 : 1);
