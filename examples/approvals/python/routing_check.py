#!/usr/bin/env python3
"""Prints the partition librdkafka's murmur2_random partitioner picks for each key, by producing
one probe record per key to a scratch topic (never the commands topic):
    routing_check.py --bootstrap B --topic SCRATCH KEY...   ->   "KEY PARTITION" lines
docs/approvals.md's routing test vectors are checked against this and against Kafka's Java
Utils.murmur2."""
import argparse

from confluent_kafka import Producer

a = argparse.ArgumentParser()
a.add_argument("--bootstrap", required=True)
a.add_argument("--topic", required=True)
a.add_argument("keys", nargs="+")
args = a.parse_args()
p = Producer({"bootstrap.servers": args.bootstrap, "partitioner": "murmur2_random"})
seen = {}
for k in args.keys:
    p.produce(args.topic, key=k.encode("utf-8"), value=b"probe",
              on_delivery=lambda err, msg, k=k: seen.__setitem__(k, msg.partition()))
p.flush(30)
for k in args.keys:
    print(k, seen[k])
