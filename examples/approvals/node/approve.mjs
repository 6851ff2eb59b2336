#!/usr/bin/env node
// Approves a scheduled event through sebridge's commands topic, from Node.js, and waits for the
// agent's result (docs/approvals.md). npm install (kafkajs, jose), then:
//   node approve.mjs --bootstrap broker:9092 --vm VMID --event EVENTID --key private.jwk \
//     [--topic sebridge-commands] [--events-topic scheduled-events] [--reason R] [--wait 60]
// Prints the command id, then the result as one JSON line; exits 0 when accepted, 1 otherwise,
// 3 when no result came in time.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CompactSign, importJWK } from 'jose';
import { Kafka, logLevel } from 'kafkajs';

const { values: a } = parseArgs({
  options: {
    bootstrap: { type: 'string' }, vm: { type: 'string' }, event: { type: 'string' },
    key: { type: 'string' }, topic: { type: 'string', default: 'sebridge-commands' },
    'events-topic': { type: 'string', default: 'scheduled-events' },
    reason: { type: 'string', default: 'approved from approve.mjs' },
    wait: { type: 'string', default: '60' },
  },
});
const vm = a.vm.trim().toLowerCase(); // the canonical vmId: routing and aud use it
const jwk = JSON.parse(readFileSync(a.key, 'utf8'));
const alg = jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
const id = randomUUID();
const now = Math.floor(Date.now() / 1000);
const claims = { jti: id, iss: 'approve.mjs', aud: vm, iat: now, nbf: now, exp: now + 300,
  eventIds: [a.event], requestedBy: 'approve.mjs', reason: a.reason };
const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
  .setProtectedHeader({ alg, kid: jwk.kid })
  .sign(await importJWK(jwk, alg));
const command = { specversion: '1.0', id, source: 'urn:example:approve.mjs',
  type: 'dev.sebridge.command.approve.v1', subject: a.event, time: new Date().toISOString(),
  datacontenttype: 'application/jose', dataschema: 'urn:sebridge:schema:command:approve:1.0',
  partitionkey: vm, data: jws };

const kafka = new Kafka({ brokers: [a.bootstrap], logLevel: logLevel.ERROR });
// kafkajs' default partitioner is Java-compatible murmur2: the agent's partition for this key.
const producer = kafka.producer();
await producer.connect();
const [sent] = await producer.send({ topic: a.topic, messages: [{ key: vm,
  value: JSON.stringify(command),
  headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' } }] });
await producer.disconnect();
console.log(`command ${id} sent to ${a.topic} partition ${sent.partition}`);

const consumer = kafka.consumer({ groupId: `approve-mjs-${id}` });
await consumer.connect();
await consumer.subscribe({ topic: a['events-topic'], fromBeginning: true });
const result = await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(null), Number(a.wait) * 1000);
  consumer.run({ eachMessage: async ({ message }) => {
    let e;
    try { e = JSON.parse(message.value.toString()); } catch { return; }
    const d = e.data || {};
    if (e.type === 'dev.sebridge.approval.result.v1' && d.commandId === id
        && (d.resultKind || 'outcome') === 'outcome') {
      clearTimeout(timer);
      resolve({ commandId: id, resultKind: d.resultKind || 'outcome', outcome: d.outcome,
        reasonCode: d.reasonCode, reason: d.reason });
    }
  } });
});
await consumer.disconnect();
console.log(JSON.stringify(result ?? { commandId: id, error: `no result in ${a.wait}s` }));
process.exit(result === null ? 3 : result.outcome === 'accepted' ? 0 : 1);
