#!/usr/bin/env python3
"""Approves a scheduled event through sebridge's commands topic, from Python, and waits for the
agent's result: the approval contract of docs/approvals.md, end to end.

Needs Debian's python3-confluent-kafka (librdkafka) and python3-jwcrypto:
    apt-get install python3-confluent-kafka python3-jwcrypto

    approve.py --bootstrap broker:9092 --vm VMID --event EVENTID --key private.jwk \
        --reason "CHG-1234" [--binary] [--wait 60]

Prints the command id, then the result as one JSON line ({"commandId", "resultKind", "outcome",
"reasonCode", "reason"}); exits 0 when the outcome is accepted, 1 when it is anything else, 3
when no result came in time. --aud, --ttl, --iat-offset, --resend and --id exist to try the
agent's refusals.
"""
import argparse
import json
import sys
import time
import uuid
from datetime import datetime, timezone

from confluent_kafka import Consumer, Producer
from jwcrypto import jwk, jws
from jwcrypto.common import json_encode

COMMAND_TYPE = "dev.sebridge.command.approve.v1"
RESULT_TYPE = "dev.sebridge.approval.result.v1"


def canonical(vm_id):
    """The one spelling routing and comparisons use: trimmed, lower case."""
    return vm_id.strip().lower()


def producer(bootstrap):
    # murmur2_random is Kafka Java's default partitioner: the agent reads the partition that
    # murmur2(lower-case vmId) names. librdkafka's own default (consistent_random, CRC32) is NOT it:
    # a command sent with it lands where no agent reads.
    return Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random",
                     "compression.type": "none", "enable.idempotence": True})


def sign(key, vm_id, event_ids, reason, requested_by, issuer, ttl, iat_offset, aud, command_id):
    now = int(time.time()) + iat_offset
    claims = {"jti": command_id, "iss": issuer, "aud": aud or canonical(vm_id), "iat": now,
              "nbf": now, "exp": now + ttl, "eventIds": event_ids, "requestedBy": requested_by,
              "reason": reason}
    alg = "EdDSA" if key.get("kty") == "OKP" else "ES256"
    token = jws.JWS(json.dumps(claims).encode("utf-8"))
    token.add_signature(key, alg=alg, protected=json_encode({"alg": alg, "kid": key.get("kid")}))
    return token.serialize(compact=True)


def send(args, command_id, compact):
    vm = canonical(args.vm)
    attributes = {"specversion": "1.0", "id": command_id, "source": args.source,
                  "type": COMMAND_TYPE, "subject": args.event[0],
                  "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds")
                  .replace("+00:00", "Z"),
                  "dataschema": "urn:sebridge:schema:command:approve:1.0", "partitionkey": vm}
    if args.binary:  # CloudEvents binary mode: attributes in ce_ headers, the JWS as the value
        headers = [("ce_" + k, v.encode()) for k, v in attributes.items()]
        headers.append(("content-type", b"application/jose"))
        value = compact.encode()
    else:  # structured mode: one JSON CloudEvent
        headers = [("content-type", b"application/cloudevents+json; charset=utf-8")]
        value = json.dumps(dict(attributes, datacontenttype="application/jose",
                                data=compact)).encode()
    p = producer(args.bootstrap)
    delivered = []
    p.produce(args.topic, key=vm.encode(), value=value, headers=headers,
              on_delivery=lambda err, msg: delivered.append((err, msg)))
    p.flush(30)
    err, msg = delivered[0]
    if err is not None:
        sys.exit("sebridge approve.py: not delivered: %s" % err)
    return msg.partition(), value, headers


def await_result(args, command_id, kinds):
    c = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "approve-py-" + command_id,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([args.events_topic])
    deadline = time.time() + args.wait
    try:
        while time.time() < deadline:
            m = c.poll(0.5)
            if m is None or m.error() is not None:
                continue
            try:
                e = json.loads(m.value())
            except ValueError:
                continue
            d = e.get("data") or {}
            if (e.get("type") == RESULT_TYPE and d.get("commandId") == command_id
                    and d.get("resultKind", "outcome") in kinds):
                return {"commandId": command_id, "resultKind": d.get("resultKind", "outcome"),
                        "outcome": d.get("outcome"), "reasonCode": d.get("reasonCode"),
                        "reason": d.get("reason")}
    finally:
        c.close()
    return None


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--bootstrap", required=True)
    a.add_argument("--topic", default="sebridge-commands")
    a.add_argument("--events-topic", default="scheduled-events")
    a.add_argument("--vm", required=True, help="target vmId (any case)")
    a.add_argument("--event", required=True, action="append", help="EventId (repeatable)")
    a.add_argument("--key", required=True, help="private JWK (ES256 or Ed25519) with a kid")
    a.add_argument("--reason", default="approved from approve.py")
    a.add_argument("--requested-by", default="approve.py")
    a.add_argument("--issuer", default="approve.py")
    a.add_argument("--source", default="urn:example:approve.py")
    a.add_argument("--ttl", type=int, default=300, help="seconds, at most 600")
    a.add_argument("--binary", action="store_true", help="CloudEvents binary mode")
    a.add_argument("--wait", type=float, default=60, help="seconds to wait for the result")
    a.add_argument("--aud", help="to try a refusal: another aud")
    a.add_argument("--iat-offset", type=int, default=0, help="to try a refusal: shift iat/nbf/exp")
    a.add_argument("--id", help="the command id (default: a new UUID)")
    a.add_argument("--resend", type=int, default=0,
                   help="send the same command this many more times; wait for the replay result")
    args = a.parse_args()
    key = jwk.JWK.from_json(open(args.key).read())
    command_id = args.id or str(uuid.uuid4())
    compact = sign(key, args.vm, args.event, args.reason, args.requested_by, args.issuer,
                   args.ttl, args.iat_offset, args.aud, command_id)
    partition, value, headers = send(args, command_id, compact)
    print("command %s sent to %s partition %d" % (command_id, args.topic, partition), flush=True)
    kinds = ("outcome",)
    if args.resend:
        first = await_result(args, command_id, ("outcome",))
        print(json.dumps(first), flush=True)
        p = producer(args.bootstrap)
        for _ in range(args.resend):
            p.produce(args.topic, key=canonical(args.vm).encode(), value=value, headers=headers)
        p.flush(30)
        kinds = ("replay",)
    result = await_result(args, command_id, kinds)
    if result is None:
        print(json.dumps({"commandId": command_id, "error": "no result in %ss" % args.wait}))
        return 3
    print(json.dumps(result), flush=True)
    return 0 if result["outcome"] == "accepted" else 1


if __name__ == "__main__":
    sys.exit(main())
