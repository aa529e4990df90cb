#!/usr/bin/env python3
"""The connection story of an HCI capture, built from tshark's fields alone.

Usage: scripts/tshark_story.py CAPTURE [--tshark PATH]

Prints one JSON document on standard output. It reads nothing of bletrace: it runs
`tshark -T fields` over the capture and applies the rules below, so that
Tests/BletraceCLITests/StoryCrossCheckTests.swift can hold bletrace's `lifecycle --format json`
against a story told independently (Formats/crosscheck.md, "The story against tshark").

Rules
-----
Handles are 12 bits (the flag bits above them are dropped) and are kept per controller
(`hci_mon.adapter_id` in btmon captures; one controller otherwise).

A connection opens at its completion event:
  - LE Connection Complete (LE Meta 0x3E, subevent 0x01), LE Enhanced Connection Complete
    (0x0A) and its v2 (0x29): transport `le`, role from the event (0x00 central, 0x01
    peripheral), peer from the event's BD_ADDR;
  - Connection Complete (0x03) with link type ACL (0x01): transport `classic`, no role (the
    event has none). A link type SCO (0x00) or eSCO (0x02) rides on an ACL link and is not a
    connection: it is counted in `sco_links`.
  A completion with a non-zero status is a connection attempt that failed: it is listed (with its
  status) but claims no handle.

A connection that began before the capture opens at the first frame that names a handle no
completion has opened: ACL data on it, or an HCI command or event naming it (not Command Complete
or Command Status, whose handle may be a refused one, nor LE Advertising Set Terminated).
Its transport is `le` when its ACL data uses an LE fixed channel (L2CAP CID 4 ATT, 5 LE
signalling, 6 SMP) or an LE-only command (OGF 0x08) or LE Meta subevent names the handle;
`classic` when its ACL data uses a BR/EDR fixed channel (CID 1 signalling, 2 connectionless, 3
AMP manager) or a BR/EDR-only command (link policy; link control but Disconnect and Read Remote
Version) or event (Mode Change, Sniff Subrating, ... `CLASSIC_EVENTS`) names it; `unknown` when
there is neither (or both). It has no role, peer, status or completion frame.

A Command Status with an error for Create Connection (0x0405), LE Create Connection (0x200D) or
LE Extended Create Connection (0x2043) ends that attempt with no completion event: it is listed as
a failed attempt (`refused_by_command_status`), its Command Status frame as its completion.

tshark 4.0 does not decode LE Enhanced Connection Complete v2 (subevent 0x29): for those frames
the script asks tshark for the event's bytes (`-T json -x`) and reads status, handle, role, peer
address type and peer address at their fixed places (Core 5.4, Vol 4, Part E, 7.7.65.10).

A failed completion's handle and peer address mean nothing (a cancelled LE connect reports
zeros): the story keeps its status only.

A successful Disconnection Complete (0x05, status 0) closes the open connection on its handle:
  - its `initiator` is `local` when this host sent HCI Disconnect (0x0406) for that handle while
    the connection was open (and no Command Status refused it), else `remote`;
  - a Disconnection Complete for a handle already closed (no completion since the one that closed
    it) is a repeat: listed in `repeated_disconnections` (`identical` when its reason is the same),
    never a connection;
  - a Disconnection Complete for a handle never named before in the capture is stray: listed in
    `stray_disconnections`, never a connection;
  - one with a non-zero status closes nothing (`failed_disconnections`).
A completion for a handle that is still open ends the connection before it without a
disconnection (`superseded_frame`).

Android writes vendor debug data as ACL on handle 0x0EDC: every frame on it is ignored
(`debug_frames`).

ATT is counted per connection, on the frames tshark decodes as ATT on the connection's handle:
requests (Exchange MTU, Find Information, Find By Type Value, Read By Type, Read, Read Blob, Read
Multiple, Read By Group Type, Write, Prepare Write, Execute Write, Read Multiple Variable),
responses (their answers), error responses by code, notifications (Handle Value Notification;
Multiple Handle Value Notification apart), indications, confirmations, and commands (Write
Command, Signed Write Command), both directions together. ATT on a closed handle is counted in
`att_on_closed_handles`.
"""

import json
import subprocess
import sys

FIELDS = [
    "frame.number",
    "frame.time_epoch",
    "frame.p2p_dir",
    "hci_mon.adapter_id",
    "bthci_evt.code",
    "bthci_evt.le_meta_subevent",
    "bthci_evt.status",
    "bthci_evt.connection_handle",
    "bthci_evt.reason",
    "bthci_evt.role",
    "bthci_evt.bd_addr",
    "bthci_evt.le_peer_address_type",
    "bthci_evt.link_type",
    "bthci_evt.opcode",
    "bthci_cmd.opcode",
    "bthci_cmd.connection_handle",
    "bthci_acl.chandle",
    "btl2cap.cid",
    "btatt.opcode",
    "btatt.handle",
    "btatt.error_code",
]

LE_COMPLETIONS = {0x01, 0x0A, 0x29}
# Commands whose Command Status with an error ends the attempt (no completion event follows).
CREATE_CONNECTION = {0x0405: "classic", 0x200D: "le", 0x2043: "le"}
# Commands and events that name a handle and exist only on BR/EDR: link policy (OGF 0x02) and link
# control (OGF 0x01) other than Disconnect and Read Remote Version Information; Authentication
# Complete, Change Connection Link Key Complete, Read Remote Supported Features Complete, QoS
# Setup Complete, Mode Change, Max Slots Change, Read Clock Offset Complete, Connection Packet Type
# Changed, Flow Specification Complete, Read Remote Extended Features Complete, Sniff Subrating,
# Link Supervision Timeout Changed.
BOTH_TRANSPORTS_COMMANDS = {0x0406, 0x041D}
CLASSIC_EVENTS = {0x06, 0x09, 0x0B, 0x0D, 0x14, 0x1B, 0x1C, 0x1D, 0x21, 0x23, 0x2E, 0x38}
CLASSIC_CHANNELS = {1, 2, 3}
DEBUG_HANDLE = 0x0EDC
LE_FIXED_CHANNELS = {4, 5, 6}
ATT_REQUESTS = {0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20}
ATT_RESPONSES = {0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21}
ATT_COMMANDS = {0x52, 0xD2}


def number(text):
    """A tshark number (decimal or 0x hex), or None."""
    if text is None or text == "":
        return None
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        return None


def numbers(text):
    """Every occurrence of a field (tshark joins them with commas)."""
    if not text:
        return []
    return [n for n in (number(part) for part in text.split(",")) if n is not None]


def first(text):
    values = numbers(text)
    return values[0] if values else None


def run_tshark(capture, tshark):
    arguments = [tshark, "-r", capture, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for field in FIELDS:
        arguments += ["-e", field]
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if result.returncode != 0 and not result.stdout:
        sys.stderr.write(result.stderr.decode("utf-8", "replace"))
        sys.exit(2)
    for line in result.stdout.decode("utf-8", "replace").split("\n"):
        if not line:
            continue
        values = line.split("\t")
        values += [""] * (len(FIELDS) - len(values))
        yield dict(zip(FIELDS, values))


def raw_events(capture, tshark, display_filter):
    """The HCI event bytes (from the event code on) of the frames `display_filter` selects."""
    arguments = [tshark, "-r", capture, "-Y", display_filter, "-T", "json", "-x"]
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    events = {}
    for packet in json.loads(result.stdout.decode("utf-8", "replace") or "[]"):
        layers = packet["_source"]["layers"]
        frame = number(layers["frame"]["frame.number"])
        raw = layers.get("bthci_evt_raw")
        if frame is not None and raw:
            events[frame] = bytes.fromhex(raw[0])
    return events


def tshark_version(tshark):
    try:
        out = subprocess.run([tshark, "-v"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout
        return out.decode("utf-8", "replace").split("\n")[0]
    except OSError:
        return None


class Story:
    def __init__(self):
        self.connections = []
        self.open = {}  # (controller, handle) -> connection
        self.closed = {}  # (controller, handle) -> the connection its last Disconnection Complete closed
        self.named = set()  # (controller, handle) named by any frame so far
        self.repeated = []
        self.stray = []
        self.failed_disconnections = []
        self.sco_links = []
        self.debug_frames = 0
        self.att_on_closed = 0
        self.frames = 0
        self.raw_events = {}  # frame -> bytes of an event tshark does not decode

    def new_connection(self, **values):
        connection = {
            "id": len(self.connections) + 1,
            "transport": None,
            "role": None,
            "peer": None,
            "peer_address_type": None,
            "handle": None,
            "status": None,
            "complete_frame": None,
            "complete_time": None,
            "began_before_capture": False,
            "first_frame": None,
            "disconnect_frame": None,
            "disconnect_time": None,
            "reason": None,
            "initiator": None,
            "disconnect_command_frame": None,
            "superseded_frame": None,
            "refused_by_command_status": False,
            "att": {
                "requests": 0,
                "responses": 0,
                "errors": 0,
                "errors_by_code": {},
                "notifications": 0,
                "multiple_notifications": 0,
                "indications": 0,
                "confirmations": 0,
                "commands": 0,
                "sent": 0,
                "received": 0,
            },
        }
        connection.update(values)
        self.connections.append(connection)
        return connection

    def supersede(self, key, frame):
        earlier = self.open.pop(key, None)
        if earlier is not None:
            earlier["superseded_frame"] = frame

    def evidence(self, key, frame, le=False, classic=False):
        """A frame names a handle: open a connection that began before the capture if none is."""
        if key[1] == DEBUG_HANDLE:
            return None
        connection = self.open.get(key)
        if connection is None and key not in self.closed and key not in self.named:
            connection = self.new_connection(
                transport="unknown", handle=key[1], began_before_capture=True, first_frame=frame)
            connection["evidence"] = set()
            self.open[key] = connection
        self.named.add(key)
        if connection is not None and connection["began_before_capture"]:
            if le:
                connection["evidence"].add("le")
            if classic:
                connection["evidence"].add("classic")
            seen = connection["evidence"]
            connection["transport"] = next(iter(seen)) if len(seen) == 1 else "unknown"
        return connection

    def frame(self, row):
        self.frames += 1
        frame = number(row["frame.number"])
        time = row["frame.time_epoch"] or None
        controller = first(row["hci_mon.adapter_id"]) or 0
        direction = row["frame.p2p_dir"]
        event = first(row["bthci_evt.code"])
        command = first(row["bthci_cmd.opcode"])
        acl = first(row["bthci_acl.chandle"])

        if acl is not None:
            self.acl(row, frame, controller, acl & 0x0FFF, direction)
        elif command is not None:
            handle = first(row["bthci_cmd.connection_handle"])
            if handle is None:
                return
            key = (controller, handle & 0x0FFF)
            if key[1] == DEBUG_HANDLE:
                return
            group = command >> 10
            connection = self.evidence(
                key, frame, le=group == 0x08,
                classic=group == 0x02 or (group == 0x01 and command not in BOTH_TRANSPORTS_COMMANDS))
            if command == 0x0406 and connection is not None:
                connection["disconnect_command_frame"] = frame
        elif event is not None:
            self.event(row, frame, time, controller, event)

    def acl(self, row, frame, controller, handle, direction):
        if handle == DEBUG_HANDLE:
            self.debug_frames += 1
            return
        key = (controller, handle)
        cids = numbers(row["btl2cap.cid"])
        connection = self.evidence(
            key, frame, le=any(cid in LE_FIXED_CHANNELS for cid in cids),
            classic=any(cid in CLASSIC_CHANNELS for cid in cids))
        opcodes = numbers(row["btatt.opcode"])
        if not opcodes:
            return
        if connection is None:
            self.att_on_closed += len(opcodes)
            return
        att = connection["att"]
        for opcode in opcodes:
            if direction == "0":
                att["sent"] += 1
            elif direction == "1":
                att["received"] += 1
            if opcode in ATT_REQUESTS:
                att["requests"] += 1
            elif opcode in ATT_RESPONSES:
                att["responses"] += 1
            elif opcode == 0x01:
                att["errors"] += 1
            elif opcode == 0x1B:
                att["notifications"] += 1
            elif opcode == 0x23:
                att["multiple_notifications"] += 1
            elif opcode == 0x1D:
                att["indications"] += 1
            elif opcode == 0x1E:
                att["confirmations"] += 1
            elif opcode in ATT_COMMANDS:
                att["commands"] += 1
        for code in numbers(row["btatt.error_code"]):
            name = "0x%02x" % code
            att["errors_by_code"][name] = att["errors_by_code"].get(name, 0) + 1

    def event(self, row, frame, time, controller, event):
        status = first(row["bthci_evt.status"])
        handles = [h & 0x0FFF for h in numbers(row["bthci_evt.connection_handle"])]
        handle = handles[0] if handles else None
        subevent = first(row["bthci_evt.le_meta_subevent"])

        if event == 0x3E and subevent in LE_COMPLETIONS:
            self.completion(frame, time, controller, status, handle, "le", row)
        elif event == 0x03:
            link_type = first(row["bthci_evt.link_type"])
            if link_type is not None and link_type != 0x01:
                self.sco_links.append({"frame": frame, "handle": handle, "link_type": link_type, "status": status})
                return
            self.completion(frame, time, controller, status, handle, "classic", row)
        elif event == 0x05:
            self.disconnection(row, frame, time, controller, status, handle)
        elif event == 0x0F:
            opcode = first(row["bthci_evt.opcode"])
            if opcode in CREATE_CONNECTION and status not in (None, 0):
                self.new_connection(
                    transport=CREATE_CONNECTION[opcode], status=status, complete_frame=frame, complete_time=time,
                    refused_by_command_status=True)
            # A refused HCI Disconnect did not ask for the disconnection that follows.
            if opcode == 0x0406 and status not in (None, 0):
                latest = max(
                    (c for c in self.open.values() if c["disconnect_command_frame"] is not None),
                    key=lambda c: c["disconnect_command_frame"],
                    default=None)
                if latest is not None:
                    latest["disconnect_command_frame"] = None
        elif event in (0x0E,) or (event == 0x3E and subevent == 0x12):
            return
        else:
            for h in handles:
                self.evidence((controller, h), frame, le=event == 0x3E, classic=event in CLASSIC_EVENTS)

    def completion(self, frame, time, controller, status, handle, transport, row):
        values = {
            "transport": transport,
            "handle": handle,
            "status": status,
            "complete_frame": frame,
            "complete_time": time,
        }
        addresses = [a for a in row["bthci_evt.bd_addr"].split(",") if a]
        role = first(row["bthci_evt.role"])
        address_type = first(row["bthci_evt.le_peer_address_type"])
        raw = self.raw_events.get(frame)
        if raw is not None:
            # LE Enhanced Connection Complete v2: code, length, subevent, status, handle (2), role,
            # peer address type, peer address (6, least significant byte first).
            status = raw[3]
            values["status"] = status
            handle = (raw[4] | raw[5] << 8) & 0x0FFF
            values["handle"] = handle
            role, address_type = raw[6], raw[7]
            addresses = [":".join("%02x" % b for b in reversed(raw[8:14]))]
        if status == 0:
            if addresses:
                values["peer"] = addresses[0].upper()
            if transport == "le":
                values["role"] = {0: "central", 1: "peripheral"}.get(role)
                values["peer_address_type"] = address_type
        else:
            values["handle"] = None
        connection = self.new_connection(**values)
        if status == 0 and handle is not None:
            key = (controller, handle)
            self.supersede(key, frame)
            self.open[key] = connection
            self.closed.pop(key, None)
            self.named.add(key)

    def disconnection(self, row, frame, time, controller, status, handle):
        reason = first(row["bthci_evt.reason"])
        if handle is None:
            return
        key = (controller, handle)
        entry = {"frame": frame, "handle": handle, "reason": reason, "status": status}
        if handle == DEBUG_HANDLE:
            self.debug_frames += 1
            return
        if status not in (None, 0):
            self.failed_disconnections.append(entry)
            return
        connection = self.open.pop(key, None)
        if connection is not None:
            connection["disconnect_frame"] = frame
            connection["disconnect_time"] = time
            connection["reason"] = reason
            connection["initiator"] = "local" if connection["disconnect_command_frame"] is not None else "remote"
            self.closed[key] = connection
            self.named.add(key)
        elif key in self.closed:
            closed = self.closed[key]
            entry["closed_frame"] = closed["disconnect_frame"]
            entry["identical"] = closed["reason"] == reason
            self.repeated.append(entry)
        else:
            # Named before (only by a failed completion, which claims no handle) or never.
            self.stray.append(entry)
            self.named.add(key)
            self.closed[key] = {"disconnect_frame": frame, "reason": reason}

    def document(self, capture, version):
        for connection in self.connections:
            connection.pop("evidence", None)
        return {
            "capture": capture,
            "tshark": version,
            "frames": self.frames,
            "connections": self.connections,
            "repeated_disconnections": self.repeated,
            "stray_disconnections": self.stray,
            "failed_disconnections": self.failed_disconnections,
            "sco_links": self.sco_links,
            "debug_frames": self.debug_frames,
            "att_on_closed_handles": self.att_on_closed,
        }


def main(argv):
    arguments = argv[1:]
    tshark = "tshark"
    if "--tshark" in arguments:
        at = arguments.index("--tshark")
        tshark = arguments[at + 1]
        del arguments[at : at + 2]
    if len(arguments) != 1:
        sys.stderr.write("usage: tshark_story.py CAPTURE [--tshark PATH]\n")
        return 2
    capture = arguments[0]
    story = Story()
    rows = list(run_tshark(capture, tshark))
    if any(first(row["bthci_evt.le_meta_subevent"]) == 0x29 for row in rows):
        story.raw_events = raw_events(capture, tshark, "bthci_evt.le_meta_subevent == 0x29")
    for row in rows:
        story.frame(row)
    json.dump(story.document(capture, tshark_version(tshark)), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
