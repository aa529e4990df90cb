#!/usr/bin/env python3
"""Checks the Spark job against bletrace run on one machine.

A fleet is laid out in a temporary directory from every capture in the repository's Captures/
and, when the team's shared folder is there, its captures/public/ (device and app version in
Hive-style folders for most, in sidecar files for some), with containers beside them: an Android
bug report zip, an iOS sysdiagnose .tar.gz and a .pcap.gz. The shared folder holds other people's
captures, which the repository does not: $BLETRACE_SHARED, else ../shared beside the clone
(`none`: no shared folder). Without it the fleet is ours alone (the containers hold our captures
instead), and the run says so. The job runs on Spark in local mode over it; bletrace's own directory mode
(`bletrace diagnose|errors|lifecycle --format jsonl FLEET`, one machine, no Spark) gives the
reference, from which the same answers are computed here in plain Python. They must agree. The
job runs twice: reading each file where it is, and with --ship-bytes, the object-store way (each
file's bytes read by Spark and analysed from a temporary copy); both must give the same answers.

Environment: BLETRACE (the program; default `bletrace` on PATH), BLETRACE_SHARED (above).
"""

from __future__ import annotations

import collections
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BLETRACE = os.environ.get("BLETRACE", "bletrace")
DEVICES = ["pixel-7", "iphone-15", "galaxy-s23"]
APPS = ["4.1.0", "4.2.0"]
SHARED = os.environ.get("BLETRACE_SHARED") or os.path.join(ROOT, "..", "shared")
PUBLIC = os.path.join(SHARED, "captures", "public")
HAS_PUBLIC = SHARED != "none" and os.path.isdir(PUBLIC)
NO_PUBLIC = (
    "BLETRACE_SHARED=none: no shared folder"
    if SHARED == "none"
    else f"{PUBLIC} not found (the shared folder: set BLETRACE_SHARED or put shared/ beside the clone)"
)


def build_fleet(folder: str) -> dict[str, tuple[str, str]]:
    """Lays out the fleet; returns each file's (device, app version) as the test assigned them."""
    assigned = {}
    sources = []
    bases = [os.path.join(ROOT, "Captures")] + ([PUBLIC] if HAS_PUBLIC else [])
    if not HAS_PUBLIC:
        print(f"fleet: our captures only; the shared public captures are left out: {NO_PUBLIC}", file=sys.stderr)
    for base in bases:
        for name in sorted(os.listdir(base)):
            if name.endswith((".btsnoop", ".pcap", ".pcapng", ".pklg")):
                sources.append(os.path.join(base, name))
    for index, source in enumerate(sources):
        device, app = DEVICES[index % 3], APPS[index % 2]
        name = os.path.basename(source)
        if index % 5 == 0:
            # A sidecar names them; the folder says nothing.
            target = os.path.join(folder, "uploads", name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target + ".meta.json", "w") as out:
                json.dump({"device": device, "app_version": app}, out)
        else:
            target = os.path.join(folder, f"device={device}", f"app={app}", name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
        assigned[target] = (device, app)

    # The containers hold shared public captures (real Android and iPhone logs) when there are
    # some, else ours.
    ours = os.path.join(ROOT, "Captures")
    android, android_last, iphone = (
        [os.path.join(PUBLIC, name) for name in ("whoisbe-pongbot.btsnoop", "whoisbe-pongbot-last.btsnoop", "elkusbry-peripage.pklg")]
        if HAS_PUBLIC
        else [os.path.join(ours, name) for name in ("reconnect-supervision-timeout.btsnoop", "att-errors.btsnoop", "att-errors.pklg")]
    )
    # An Android bug report, as adb bugreport writes it.
    target = os.path.join(folder, "device=pixel-7", "app=4.2.0", "bugreport-panther-TQ3A-2026-01-01-10-00-00.zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("version.txt", "2.0")
        archive.writestr("main_entry.txt", "bugreport-panther-TQ3A-2026-01-01-10-00-00.txt")
        archive.writestr("bugreport-panther-TQ3A-2026-01-01-10-00-00.txt", "== dumpstate\n")
        archive.write(android, "FS/data/misc/bluetooth/logs/btsnoop_hci.log")
        archive.write(android_last, "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last")
    assigned[target] = ("pixel-7", "4.2.0")
    # An iOS sysdiagnose: one folder, its PacketLogger files in logs/Bluetooth/.
    stem = "sysdiagnose_2026.01.01_10-00-00+0000_iPhone-OS_iPhone_23A341"
    target = os.path.join(folder, "device=iphone-15", "app=4.1.0", stem + ".tar.gz")
    with tarfile.open(target, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        archive.add(iphone, f"{stem}/logs/Bluetooth/bluetoothd-hci-latest.pklg")
    assigned[target] = ("iphone-15", "4.1.0")
    # A gzip-compressed pcap.
    target = os.path.join(folder, "device=galaxy-s23", "app=4.1.0", "att-errors.pcap.gz")
    with open(os.path.join(ROOT, "Captures", "att-errors.pcap"), "rb") as source, gzip.open(target, "wb") as out:
        shutil.copyfileobj(source, out)
    assigned[target] = ("galaxy-s23", "4.1.0")
    # An upload cut short in its file header, as a phone that lost power mid-copy leaves it: bletrace
    # refuses it (exit 2), and the job must put it in its failures table.
    target = os.path.join(folder, "device=pixel-7", "app=4.1.0", "btsnoop_hci-cut.log")
    with open(os.path.join(ROOT, "Captures", "att-errors.btsnoop"), "rb") as source:
        header = source.read(10)
    with open(target, "wb") as out:
        out.write(header)
    assigned[target] = ("pixel-7", "4.1.0")
    return assigned


def bletrace_lines(command: list[str], fleet: str) -> list[dict]:
    done = subprocess.run([BLETRACE, *command, "--format", "jsonl", "--quiet", fleet], capture_output=True, text=True)
    assert done.returncode in (0, 1, 2), done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def reference_answers(fleet: str, assigned: dict) -> dict:
    """The answers from bletrace on one machine, computed without Spark."""
    findings = bletrace_lines(["diagnose"], fleet)
    errors = bletrace_lines(["errors"], fleet)
    lifecycles = bletrace_lines(["lifecycle"], fleet)

    top = collections.Counter()
    top_files = collections.defaultdict(set)
    for item in findings:
        if item["severity"] in ("error", "warning"):
            key = (assigned[item["file"]][0], item.get("peer"), item["rule"])
            top[key] += 1
            top_files[key].add(item["file"])
    top_failure_rules = sorted(
        ({"device": k[0], "peer": k[1], "rule": k[2], "findings": n, "captures": len(top_files[k])} for k, n in top.items()),
        key=lambda r: (-r["findings"], r["device"] or "", r["peer"] or "", r["rule"]))

    reasons = collections.Counter()
    reason_files = collections.defaultdict(set)
    never = []
    for document in lifecycles:
        device, app = assigned[document["file"]]
        connected = encrypted = 0
        for connection in document["connections"]:
            if connection.get("outcome") == "disconnected":
                key = (app, connection.get("reason"), connection.get("reason_name"))
                reasons[key] += 1
                reason_files[key].add(document["file"])
            connected += "connect_ts_us" in connection
            encrypted += any(c.get("kind") == "encryption" and c.get("encrypted") for c in connection.get("changes", []))
        if connected and not encrypted:
            never.append({"file": document["file"], "device": device, "app_version": app, "connected_links": connected})
    disconnect_reasons = sorted(
        ({"app_version": k[0], "reason": k[1], "reason_name": k[2], "disconnections": n, "captures": len(reason_files[k])}
         for k, n in reasons.items()),
        key=lambda r: (r["app_version"], -r["disconnections"], r["reason"]))

    rows = collections.defaultdict(dict)
    for table, items in (("findings", findings), ("errors", errors)):
        for item in items:
            rows[item["file"]][table] = rows[item["file"]].get(table, 0) + 1
    for document in lifecycles:
        if document["connections"]:
            rows[document["file"]]["connections"] = len(document["connections"])
    read = {document["file"] for document in lifecycles}
    return {
        "top_failure_rules": top_failure_rules,
        "disconnect_reasons": disconnect_reasons,
        "never_encrypted": sorted(never, key=lambda r: r["file"]),
        "captures": len(assigned),
        "failed_files": sorted(set(assigned) - read),
        "rows_per_file": dict(rows),
    }


class FleetJobTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="bletrace-spark-")
        cls.fleet = os.path.join(cls.work, "fleet")
        cls.assigned = build_fleet(cls.fleet)
        cls.spark = cls.run_job("paths")
        # The object-store way: every file's bytes read by Spark and analysed from a temporary copy.
        cls.shipped = cls.run_job("bytes", "--ship-bytes")
        cls.reference = reference_answers(cls.fleet, cls.assigned)

    @classmethod
    def run_job(cls, name: str, *options: str) -> dict:
        answers = os.path.join(cls.work, f"answers-{name}.json")
        environment = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "bletrace_fleet.py"), cls.fleet, os.path.join(cls.work, f"out-{name}"),
             "--bletrace", BLETRACE, "--answers-json", answers, "--master", "local[2]", *options],
            env=environment, capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"the Spark job ({name}) failed ({done.returncode}):\n{done.stderr[-4000:]}")
        with open(answers) as file:
            return json.load(file)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_every_file_was_analysed(self):
        self.assertEqual(self.spark["captures"], self.reference["captures"])
        self.assertGreater(self.spark["captures"], 40)

    def test_failures_are_the_files_bletrace_refuses(self):
        failed = sorted({row["file"] for row in self.spark["failures"]})
        self.assertEqual(failed, self.reference["failed_files"])
        self.assertTrue(any(name.endswith("btsnoop_hci-cut.log") for name in failed))

    @unittest.skipUnless(HAS_PUBLIC, f"the shared Ubertooth capture is not in the fleet: {NO_PUBLIC}")
    def test_a_link_layer_capture_is_read_not_refused(self):
        # Link-layer (over-the-air) captures are read like HCI ones, not refused.
        failed = sorted({row["file"] for row in self.spark["failures"]})
        self.assertFalse(any(name.endswith("mikeryan-crackle-le-sc.pcapng") for name in failed))
        self.assertTrue(any(name.endswith("mikeryan-crackle-le-sc.pcapng") for name in self.spark["rows_per_file"]))

    def test_rows_per_file_agree_with_one_machine(self):
        self.assertEqual(self.spark["rows_per_file"], self.reference["rows_per_file"])
        # The containers were read, not refused.
        for suffix in (".zip", ".tar.gz", ".pcap.gz"):
            self.assertTrue(any(name.endswith(suffix) for name in self.spark["rows_per_file"]), suffix)

    def test_bytes_read_as_from_an_object_store_give_the_same_answers(self):
        # Everything but the rows' order within a table: the same files, rows, failures, answers.
        self.assertEqual(self.shipped, self.spark)

    def test_top_failure_rules_by_device_and_peer(self):
        self.assertTrue(self.reference["top_failure_rules"])
        self.assertEqual(self.spark["top_failure_rules"], self.reference["top_failure_rules"])

    def test_disconnect_reasons_by_app_version(self):
        self.assertTrue(self.reference["disconnect_reasons"])
        self.assertEqual(self.spark["disconnect_reasons"], self.reference["disconnect_reasons"])

    def test_captures_whose_links_never_encrypted(self):
        self.assertTrue(self.reference["never_encrypted"])
        self.assertEqual(self.spark["never_encrypted"], self.reference["never_encrypted"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
