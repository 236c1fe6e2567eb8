#!/usr/bin/env python3
"""Prints every event of one Recur session tree, read straight from the event topic, as JSON lines.

It uses no Recur code: the record format (docs/consumers.md) and the published writer schemas
(schemas/generated/writer-schemas.json) are all it needs, with fastavro and kafka-python.

    KAFKA_BROKERS=127.0.0.1:19092 KAFKA_USERNAME=recur-reader KAFKA_PASSWORD=... \\
        python read_events.py --root <root session id>

Each line holds the envelope's fields (payload aside, `ts` in epoch milliseconds) and, under
`event`, the payload's fields as the current schema of its type reads them.
"""
import argparse
import json
import os
import sys
import time
from datetime import datetime, timedelta, timezone
from io import BytesIO
from pathlib import Path

from fastavro import parse_schema, schemaless_reader
from fastavro.schema import fingerprint, to_parsing_canonical_form
from kafka import KafkaConsumer, TopicPartition

SINGLE_OBJECT_MAGIC = b"\xc3\x01"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
REPO_SCHEMAS = Path(__file__).resolve().parents[3] / "schemas" / "generated" / "writer-schemas.json"


class WriterSchemas:
    """Every writer schema by the fingerprint its records carry, with the current schema of its kind to resolve it to."""

    def __init__(self, path):
        published = json.loads(Path(path).read_text("utf-8"))
        self.by_fingerprint = {}
        for kind, versions in [("Envelope", published["envelope"]), *published["events"].items()]:
            current = parse_schema(versions[-1]["schema"])
            for version in versions:
                # Avro's own fingerprint, checked against the listed one: a disagreement would decode nothing.
                fp = fingerprint(to_parsing_canonical_form(version["schema"]), "CRC-64-AVRO")
                if fp != version["fingerprint"]:
                    sys.exit(f"{path}: {kind} v{version['version']} lists {version['fingerprint']}, fastavro computes {fp}")
                writer = parse_schema(version["schema"])
                self.by_fingerprint[bytes.fromhex(fp)] = (kind, writer, None if version is versions[-1] else current)

    def decode(self, kind, value):
        """A single-object encoded value of `kind` (Envelope or an event type), read as kind's current schema."""
        if value[:2] != SINGLE_OBJECT_MAGIC:
            raise ValueError("not Avro single-object encoded")
        found = self.by_fingerprint.get(value[2:10])
        if found is None or found[0] != kind:
            raise ValueError(f"fingerprint {value[2:10].hex()} is no {kind} writer schema listed")
        _, writer, reader = found
        return schemaless_reader(BytesIO(value[10:]), writer, reader)


def in_tree(key, root):
    return key == root or key.startswith(root + "/")


def tree_records(consumer, topic, root, timeout_s):
    """(partition, offset, value) of the tree's records: every partition, from its start to its end as of now."""
    partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
    if not partitions:
        sys.exit(f"topic {topic} does not exist, or this principal may not describe it")
    consumer.assign(partitions)
    consumer.seek_to_beginning(*partitions)
    start, end = consumer.beginning_offsets(partitions), consumer.end_offsets(partitions)
    left = {tp for tp in partitions if end[tp] > start[tp]}
    deadline = time.monotonic() + timeout_s
    while left:
        if time.monotonic() > deadline:
            sys.exit(f"read did not reach the end of {sorted(tp.partition for tp in left)} within {timeout_s} s")
        for tp, records in consumer.poll(timeout_ms=500).items():
            for r in records:
                # Records are keyed by sessionId, so a session's events are in one partition, in order.
                if r.offset < end[tp] and r.key is not None and in_tree(r.key.decode("utf-8"), root):
                    yield tp.partition, r.offset, r.value
        left = {tp for tp in left if consumer.position(tp) < end[tp]}


def as_json(value):
    """What json cannot write by itself: timestamp-millis, which fastavro reads as an aware datetime."""
    if isinstance(value, datetime):
        return (value - EPOCH) // timedelta(milliseconds=1)
    raise TypeError(f"{type(value).__name__} is not a value Recur's schemas hold")


def main():
    env = os.environ.get
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True, help="root session id: its tree is every key equal to it or under root/")
    p.add_argument("--brokers", default=env("KAFKA_BROKERS", "127.0.0.1:19092"), help="comma-separated (env KAFKA_BROKERS)")
    p.add_argument("--topic", default=env("KAFKA_TOPIC", "recur.events.v1"), help="(env KAFKA_TOPIC)")
    p.add_argument("--username", default=env("KAFKA_USERNAME", "recur-reader"), help="SCRAM-SHA-512 user (env KAFKA_USERNAME)")
    p.add_argument("--password", default=env("KAFKA_PASSWORD"), help="its password (env KAFKA_PASSWORD, which ps does not show)")
    p.add_argument("--security-protocol", default=env("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT"), help="SASL_SSL for TLS")
    p.add_argument("--schemas", default=REPO_SCHEMAS, help="writer-schemas.json (default: this checkout's)")
    p.add_argument("--timeout", type=float, default=60, help="seconds to reach the end of every partition")
    args = p.parse_args()
    if not args.password:
        sys.exit("no password: set KAFKA_PASSWORD (or --password)")

    schemas = WriterSchemas(args.schemas)
    # No consumer group: it reads by assignment and commits nothing, so it needs only Read and
    # Describe on the topic.
    consumer = KafkaConsumer(
        bootstrap_servers=args.brokers.split(","), security_protocol=args.security_protocol,
        sasl_mechanism="SCRAM-SHA-512", sasl_plain_username=args.username, sasl_plain_password=args.password,
        group_id=None, enable_auto_commit=False, client_id="recur-example-python",
    )
    seen = set()
    try:
        for partition, offset, value in tree_records(consumer, args.topic, args.root, args.timeout):
            try:
                envelope = schemas.decode("Envelope", value)
                # A retried append writes the same record again; readers keep the first.
                if envelope["eventId"] in seen:
                    continue
                seen.add(envelope["eventId"])
                event = schemas.decode(envelope["type"], envelope.pop("payload"))
            except Exception as e:  # whatever the cause, a record it cannot read stops it, named
                sys.exit(f"{args.topic}/{partition}@{offset}: {type(e).__name__}: {e}")
            print(json.dumps({**envelope, "event": event}, default=as_json))
    finally:
        consumer.close()


if __name__ == "__main__":
    main()
