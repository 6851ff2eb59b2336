#!/usr/bin/env python3
"""The documentation's reference loop (Azure "Scheduled Events" docs, paraphrased): poll IMDS every
second with `requests`, and when DocumentIncarnation changes, handle the events of the document.
Used by the sebridge benchmarks as the baseline. It prints one line per document change:
    <unix time, seconds with microseconds> <DocumentIncarnation> <EventId>:<EventStatus> ...
"""
import sys
import time

import requests

ENDPOINT = sys.argv[1] if len(sys.argv) > 1 else "http://169.254.169.254"
URL = ENDPOINT + "/metadata/scheduledevents?api-version=2020-07-01"
HEADERS = {"Metadata": "true"}
NO_PROXY = {"http": None, "https": None}


def main():
    last_incarnation = None
    session = requests.Session()
    session.trust_env = False  # IMDS must not go through a proxy
    while True:
        started = time.time()
        try:
            doc = session.get(URL, headers=HEADERS, proxies=NO_PROXY, timeout=5).json()
            incarnation = doc["DocumentIncarnation"]
            if incarnation != last_incarnation:
                events = " ".join(e["EventId"] + ":" + e["EventStatus"] for e in doc["Events"])
                print("%.6f %d %s" % (time.time(), incarnation, events), flush=True)
                last_incarnation = incarnation
        except Exception as e:  # the reference loop just logs and retries
            print("%.6f error %s" % (time.time(), e), file=sys.stderr, flush=True)
        time.sleep(max(0.0, 1.0 - (time.time() - started)))


if __name__ == "__main__":
    main()
