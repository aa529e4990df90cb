#!/usr/bin/env python3
"""A fleet of Bluetooth captures on Spark: bletrace is the map step, Parquet the result.

Each capture or container (an Android bug report zip, an iOS sysdiagnose .tar.gz, a .gz, a
plain btsnoop/pcap/pcapng/pklg) under INPUT is analysed on an executor by the bletrace command
line, one process per file:

    bletrace diagnose  --format jsonl FILE   -> table findings
    bletrace errors    --format jsonl FILE   -> table errors
    bletrace lifecycle --format json  FILE   -> table connections (one row per connection)

Files bletrace refuses go to the table failures with its exit code and message. Each row
carries the file and, where known, the device and the app version (see metadata()). The
tables are written as Parquet under OUTPUT, then the questions a support team asks are answered
from them with Spark SQL and written beside them (OUTPUT/answers/NAME, and as JSON with
--answers-json):

    top_failure_rules        error and warning findings counted by device, peer and rule
    disconnect_reasons       disconnections counted by app version and HCI reason
    never_encrypted          captures with connected links none of which was ever encrypted

INPUT is a local directory or any prefix Spark's Hadoop file systems read (s3a://, gs://,
abfs://, hdfs://); README.md says how to run it on a cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

# What bletrace reads: the extensions its own directory mode takes, containers included.
CAPTURE_SUFFIXES = (".btsnoop", ".log", ".cfa", ".pcap", ".pcapng", ".cap", ".pklg", ".zip", ".gz", ".tgz")
SIDECAR_SUFFIX = ".meta.json"


def metadata(path: str, sidecar: dict | None) -> tuple[str | None, str | None]:
    """The device and app version of a capture.

    A sidecar file beside the capture, NAME.meta.json holding {"device": ..., "app_version": ...},
    wins; else the path's Hive-style folders device=ID and app=VERSION (as a fleet's upload
    service lays them out: .../device=pixel-7/app=4.2.0/btsnoop_hci.log); else none.
    """
    device = app = None
    for part in path.split("/"):
        if part.startswith("device="):
            device = part[len("device="):]
        elif part.startswith("app="):
            app = part[len("app="):]
    if sidecar:
        device = sidecar.get("device", device)
        app = sidecar.get("app_version", app)
    return device, app


def bletrace_binary(name: str) -> str:
    """The bletrace to run: a path, a program on PATH, or a file shipped with --files."""
    if "/" not in name:
        try:
            from pyspark import SparkFiles

            shipped = SparkFiles.get(name)
            if os.path.exists(shipped):
                mode = os.stat(shipped).st_mode
                if not mode & stat.S_IXUSR:
                    os.chmod(shipped, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
                return shipped
        except Exception:
            pass
        found = shutil.which(name)
        if found:
            return found
    return name


def analyse(binary: str, path: str, local: str, device: str | None, app: str | None):
    """The map step: bletrace on one file (`local` is where it can be read), as tagged rows."""
    base = {"file": path, "device": device, "app_version": app}

    def run(arguments):
        done = subprocess.run([binary, *arguments, local], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    rows = []
    for command in ("diagnose", "errors"):
        code, out, err = run([command, "--format", "jsonl", "--quiet"])
        if code >= 2:
            rows.append(("failure", {**base, "command": command, "exit_code": code, "message": err.strip().splitlines()[0] if err.strip() else ""}))
            return rows  # the file is not a capture bletrace reads: nothing else will be
        for line in out.splitlines():
            item = json.loads(line)
            if command == "diagnose":
                rows.append(("finding", {
                    **base, "rule": item["rule"], "severity": item["severity"], "peer": item.get("peer"),
                    "connection": item.get("connection"), "frame": item.get("frame"), "ts_us": item.get("ts_us"),
                }))
            else:
                rows.append(("error", {
                    **base, "layer": item.get("layer"), "code": item.get("code"), "name": item.get("name"),
                    "peer": item.get("peer"), "expected": item.get("expected"), "procedure": item.get("procedure"),
                    "frame": item.get("frame"),
                }))
    code, out, err = run(["lifecycle", "--format", "json", "--quiet"])
    if code >= 2:
        rows.append(("failure", {**base, "command": "lifecycle", "exit_code": code, "message": err.strip()}))
        return rows
    document = json.loads(out)
    for connection in document.get("connections", []):
        encrypted = any(
            change.get("kind") == "encryption" and change.get("encrypted") for change in connection.get("changes", [])
        )
        rows.append(("connection", {
            **base, "id": connection["id"], "transport": connection.get("transport"), "role": connection.get("role"),
            "peer": connection.get("peer"), "peer_name": connection.get("peer_name"), "outcome": connection.get("outcome"),
            "connected": "connect_ts_us" in connection, "encrypted": encrypted, "reason": connection.get("reason"),
            "reason_name": connection.get("reason_name"), "initiator": connection.get("initiator"),
        }))
    return rows


def analyse_partition(binary_name: str, items):
    binary = bletrace_binary(binary_name)
    for path, content, device, app in items:
        if content is None:  # a local file: read where it is
            yield from analyse(binary, path, local_path(path), device, app)
            continue
        # Bytes read by Spark (an object store, or --ship-bytes): kept in a temporary file for the
        # time of the command, named as the object (bletrace tells containers by their content,
        # not their name). A file: URI is named by its path, as when it is read where it is.
        with tempfile.TemporaryDirectory() as folder:
            local = os.path.join(folder, os.path.basename(urlparse(path).path) or "capture")
            with open(local, "wb") as out:
                out.write(content)
            yield from analyse(binary, local_path(path), local, device, app)


def local_path(path: str) -> str:
    return urlparse(path).path if path.startswith("file:") else path


def list_inputs(spark, prefix: str) -> tuple[list[str], dict[str, dict]]:
    """Every capture and container under `prefix` (any Hadoop file system), by path, and the
    sidecars' contents by the path of the capture they describe."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    root = jvm.org.apache.hadoop.fs.Path(prefix)
    files = root.getFileSystem(conf).listFiles(root, True)
    captures, sidecars = [], []
    while files.hasNext():
        path = files.next().getPath().toString()
        name = path.rsplit("/", 1)[-1]
        if name.startswith("."):
            continue
        if name.endswith(SIDECAR_SUFFIX):
            sidecars.append(path)
        elif name.lower().endswith(CAPTURE_SUFFIXES):
            captures.append(path)
    meta = {}
    if sidecars:
        for path, text in spark.sparkContext.wholeTextFiles(",".join(sidecars)).collect():
            meta[path[: -len(SIDECAR_SUFFIX)]] = json.loads(text)
    return sorted(captures), meta


SCHEMAS = {
    "finding": "file string, device string, app_version string, rule string, severity string, peer string, connection long, frame long, ts_us long",
    "error": "file string, device string, app_version string, layer string, code long, name string, peer string, expected boolean, procedure string, frame long",
    "connection": "file string, device string, app_version string, id long, transport string, role string, peer string, peer_name string, outcome string, connected boolean, encrypted boolean, reason long, reason_name string, initiator string",
    "failure": "file string, device string, app_version string, command string, exit_code long, message string",
}
TABLES = {"finding": "findings", "error": "errors", "connection": "connections", "failure": "failures"}

QUESTIONS = {
    "top_failure_rules": """
        SELECT device, peer, rule, count(*) AS findings, count(DISTINCT file) AS captures
        FROM findings WHERE severity IN ('error', 'warning')
        GROUP BY device, peer, rule
        ORDER BY findings DESC, device, peer, rule""",
    "disconnect_reasons": """
        SELECT app_version, reason, reason_name, count(*) AS disconnections, count(DISTINCT file) AS captures
        FROM connections WHERE outcome = 'disconnected'
        GROUP BY app_version, reason, reason_name
        ORDER BY app_version, disconnections DESC, reason""",
    "never_encrypted": """
        SELECT file, device, app_version, sum(CAST(connected AS INT)) AS connected_links
        FROM connections
        GROUP BY file, device, app_version
        HAVING sum(CAST(connected AS INT)) > 0 AND sum(CAST(encrypted AS INT)) = 0
        ORDER BY file""",
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="a directory or object-store prefix of captures and containers")
    parser.add_argument("output", help="where the Parquet tables and answers go (a directory or prefix)")
    parser.add_argument("--bletrace", default="bletrace", help="the bletrace program: a path, a name on PATH, or a file shipped with spark-submit --files")
    parser.add_argument("--partitions", type=int, default=0, help="map tasks (default: one per file, at most 200)")
    parser.add_argument("--answers-json", help="also write the answers as one JSON document to this local file")
    parser.add_argument("--show", action="store_true", help="print the answers")
    parser.add_argument(
        "--ship-bytes", action="store_true",
        help="read every file's bytes through Spark (binaryFiles), as for an object store, even on a local or "
        "shared file system: for executors that do not see the driver's disk")
    parser.add_argument("--master", help="Spark master when run without spark-submit (e.g. local[2]; pyspark's default is local[*])")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("bletrace-fleet")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    captures, meta = list_inputs(spark, args.input)
    if not captures:
        print(f"{args.input}: no captures or containers in it ({', '.join(CAPTURE_SUFFIXES)})", file=sys.stderr)
        return 2
    partitions = args.partitions or min(len(captures), 200)
    local = not args.ship_bytes and all(path.startswith("file:") or "://" not in path for path in captures)
    sc = spark.sparkContext
    if local:
        # Every executor sees the same file system (one machine, or a shared mount): only the
        # paths travel.
        items = sc.parallelize(
            [(local_path(path), None, *metadata(path, meta.get(path))) for path in captures], partitions)
    else:
        # An object store: the bytes come through Spark's own readers, one file at a time.
        items = sc.binaryFiles(",".join(captures), partitions).map(
            lambda pair: (pair[0], pair[1], *metadata(pair[0], meta.get(pair[0]))))
    binary = args.bletrace
    rows = items.mapPartitions(lambda part: analyse_partition(binary, part)).cache()

    for tag, table in TABLES.items():
        frame = spark.createDataFrame(rows.filter(lambda row, tag=tag: row[0] == tag).map(lambda row: row[1]), SCHEMAS[tag])
        frame.write.mode("overwrite").parquet(f"{args.output}/{table}")
        spark.read.parquet(f"{args.output}/{table}").createOrReplaceTempView(table)

    answers = {}
    for name, query in QUESTIONS.items():
        result = spark.sql(query)
        result.write.mode("overwrite").parquet(f"{args.output}/answers/{name}")
        answers[name] = [row.asDict() for row in result.collect()]
        if args.show:
            print(f"== {name}")
            result.show(20, truncate=False)
    answers["captures"] = len(captures)
    # Rows per file and table: what a check against bletrace run on one machine compares.
    per_file = {}
    for table in ("findings", "errors", "connections"):
        for row in spark.sql(f"SELECT file, count(*) AS n FROM {table} GROUP BY file").collect():
            per_file.setdefault(row["file"], {})[table] = row["n"]
    answers["rows_per_file"] = per_file
    answers["failures"] = [row.asDict() for row in spark.sql("SELECT file, command, exit_code FROM failures ORDER BY file").collect()]
    if args.answers_json:
        with open(args.answers_json, "w") as out:
            json.dump(answers, out, indent=1, sort_keys=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
