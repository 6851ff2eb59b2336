// Compiles JSON Schemas with Ajv (draft 2020-12) in strict mode, formats asserted, then validates
// examples: every file under a "valid" directory must pass its schema, every one under "invalid"
// must fail. Usage: node schema-check.js --schema S.json [--valid DIR] [--invalid DIR] ...
// (each --valid/--invalid applies to the --schema before it; --def NAME validates them against
// the schema's $defs/NAME instead; --skip NAME leaves out an invalid example whose fault is not
// the schema's). Exits 1 on any problem.
'use strict';
const Ajv2020 = require('ajv/dist/2020');
const addFormats = require('ajv-formats');
const fs = require('fs');
const path = require('path');

const args = process.argv.slice(2);
const jobs = [];
const skip = new Set(); // --skip NAME: an invalid example whose fault is not the schema's
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--schema') jobs.push({ schema: args[++i], valid: [], invalid: [], def: null });
  else if (args[i] === '--def') jobs[jobs.length - 1].def = args[++i];
  else if (args[i] === '--skip') skip.add(args[++i]);
  else if (args[i] === '--valid') jobs[jobs.length - 1].valid.push(args[++i]);
  else if (args[i] === '--invalid') jobs[jobs.length - 1].invalid.push(args[++i]);
}
const files = dir => fs.existsSync(dir)
  ? fs.readdirSync(dir).filter(f => f.endsWith('.json')).map(f => path.join(dir, f)) : [];

let problems = 0;
for (const job of jobs) {
  const ajv = new Ajv2020({ strict: true, strictTypes: true, strictTuples: true,
    strictRequired: true, allErrors: true, logger: { log() {}, warn(m) { throw new Error(m); }, error(m) { throw new Error(m); } } });
  addFormats(ajv);
  let validate;
  try {
    const schema = JSON.parse(fs.readFileSync(job.schema, 'utf8'));
    validate = ajv.compile(schema);
    if (job.def) {
      validate = ajv.getSchema(`${schema.$id}#/$defs/${job.def}`);
    }
    console.log(`${job.schema}${job.def ? '#' + job.def : ''}: compiles in strict mode`);
  } catch (e) {
    console.log(`${job.schema}: ${e.message}`);
    problems++;
    continue;
  }
  for (const f of job.valid.flatMap(files)) {
    if (!validate(JSON.parse(fs.readFileSync(f, 'utf8')))) {
      console.log(`${f}: should be valid: ${ajv.errorsText(validate.errors)}`);
      problems++;
    }
  }
  for (const f of job.invalid.flatMap(files).filter(f => !skip.has(path.basename(f)))) {
    if (validate(JSON.parse(fs.readFileSync(f, 'utf8')))) {
      console.log(`${f}: should be invalid, but passes`);
      problems++;
    }
  }
}
process.exit(problems === 0 ? 0 : 1);
