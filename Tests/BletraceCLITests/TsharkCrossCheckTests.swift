import Foundation
import TestSupport
import Testing

/// bletrace and tshark (Wireshark's decoder, independent of ours) read every capture, and must
/// agree record by record: count, time, direction, kind, HCI command opcode, event code, LE
/// subevent, status, connection handle, device address (BD_ADDR), disconnection reason, ATT
/// opcode, attribute handle, ATT error code and the request opcode in error, SMP command code.
/// For the BR/EDR link events and LE Advertising Set Terminated, which bletrace's summary keeps
/// raw and its full decoder decodes (``decodedBrEdrEvents``), status, handle and address are
/// compared both ways: where tshark has none, bletrace must have none either.
///
/// Documented differences are allowed, each checked exactly rather than skipped:
/// - Android writes vendor debug data as ACL on handle 0x0EDC; tshark decodes some of it as ATT
///   or SMP, bletrace does not (it is not a connection).
/// - Times before 1970 (btsnoop from a phone whose clock was never set): tshark wraps the seconds
///   through 32 bits and prints `-(2^32 + s)`; bletrace keeps the signed value `s`.
/// - The handle of an ATT response comes from its request. bletrace pairs them per connection,
///   one outstanding request a side; tshark 4.0 sometimes pairs a response with a request on
///   another connection, with one an earlier response already answered, or with none (seen with
///   concurrent connections in whoisbe-pongbot). Where the two differ, bletrace's request must be
///   on the response's connection, and tshark's must be one of those three.
/// - A connection handle is 12 bits; bletrace masks off the 4 reserved bits above them, tshark
///   shows them (a controller in syssi-jkbms-can-rs485 sets one in Number Of Completed Packets).
/// - The Command Complete of BR/EDR link control and link policy commands (OGF 1 and 2), whose
///   return parameters bletrace keeps raw: their status and handle are not compared.
@Suite struct TsharkCrossCheckTests {
    static let fields = [
        "frame.time_epoch", "frame.p2p_dir", "packetlogger.type", "frame.protocols", "bthci_cmd.opcode",
        "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_evt.reason", "bthci_acl.chandle",
        "btatt.opcode", "btatt.error_code", "bthci_evt.status", "bthci_evt.connection_handle", "btatt.handle",
        "btatt.req_opcode_in_error", "btatt.request_in_frame", "bthci_evt.opcode", "bthci_evt.bd_addr",
        "btsmp.opcode",
    ]

    /// The BR/EDR link events the summary keeps raw and `decode` decodes in full (Core 6.0, Vol 4,
    /// Part E, §7.7): Inquiry Complete, Connection Request, Authentication Complete, Remote Name
    /// Request Complete, Read Remote Supported Features Complete, Mode Change, Link Key Request,
    /// Max Slots Change, Read Clock Offset Complete, Connection Packet Type Changed, Read Remote
    /// Extended Features Complete, Sniff Subrating. (And LE Advertising Set Terminated, LE Meta
    /// subevent 0x12: ``decodedBrEdrSubevents``.)
    static let decodedBrEdrEvents: Set<Int> = [0x01, 0x04, 0x06, 0x07, 0x0B, 0x14, 0x17, 0x1B, 0x1C, 0x1D, 0x23, 0x2E]
    static let decodedBrEdrSubevents: Set<Int> = [0x12]

    /// The events whose device address (BD_ADDR) `decode` gives as `hci.address`: Connection
    /// Complete, Connection Request, Remote Name Request Complete, Link Key Request.
    static let addressEvents: Set<Int> = [0x03, 0x04, 0x07, 0x17]

    /// How many of each field the cross-check compared, over every capture (printed at the end of
    /// each capture's check, summed by the reader of the output).
    struct Counts: CustomStringConvertible {
        var records = 0
        var statuses = 0
        var handles = 0
        var addresses = 0
        var smpOpcodes = 0
        var brEdrEvents = 0
        var description: String {
            "\(records) records; \(brEdrEvents) decoded BR/EDR events; \(statuses) statuses, \(handles) handles, "
                + "\(addresses) addresses, \(smpOpcodes) SMP opcodes equal to tshark's"
        }
    }

    static let captures: [String] = (try? Fixtures.allReadableCaptures()) ?? ["<the captures could not be listed>"]

    @Test(arguments: captures)
    func agreesWithTshark(_ path: String) throws {
        Fixtures.noteSharedSkipped("TsharkCrossCheckTests.agreesWithTshark")
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        var arguments = ["-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
        for field in Self.fields { arguments += ["-e", field] }
        let theirs = try run(tshark, arguments).stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map { line in
                Dictionary(
                    uniqueKeysWithValues: zip(
                        Self.fields, line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)))
            }
        let decoded = try bletrace("decode", path, "--format", "jsonl")
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let ours = try jsonLines(decoded.stdout)
        #expect(ours.count == theirs.count, "record count")

        var mismatches: [String] = []
        var counts = Counts()
        for (index, (their, our)) in zip(theirs, ours).enumerated() {
            let hci = our["hci"] as? [String: Any] ?? [:]
            let att = our["att"] as? [String: Any] ?? [:]
            let smp = our["smp"] as? [String: Any] ?? [:]
            counts.records += 1
            func check(
                _ what: String, _ expected: AnyHashable?, _ actual: AnyHashable?,
                counting count: WritableKeyPath<Counts, Int>? = nil
            ) {
                if expected != actual, mismatches.count < 10 {
                    mismatches.append(
                        "record \(index) \(what): tshark \(expected.map { "\($0)" } ?? "nil"), bletrace \(actual.map { "\($0)" } ?? "nil")"
                    )
                }
                if expected == actual, expected != nil, let count { counts[keyPath: count] += 1 }
            }
            let ts = (our["ts_us"] as? NSNumber)?.int64Value ?? 0
            check("time", Self.tsharkMicroseconds(their["frame.time_epoch"]!), ts)
            check("kind", Self.kind(their["frame.protocols"]!), our["kind"] as? String)
            if let direction = their["frame.p2p_dir"], !direction.isEmpty {
                check("direction", direction == "0" ? "sent" : "received", our["direction"] as? String)
            }
            if let opcode = Self.number(their["bthci_cmd.opcode"]), our["kind"] as? String == "command" {
                check("command opcode", opcode, hci["opcode"] as? Int)
            }
            if let code = Self.number(their["bthci_evt.code"]) {
                check("event code", code, hci["event"] as? Int)
                if code == 0x05 { check("reason", Self.number(their["bthci_evt.reason"]), hci["reason"] as? Int) }
            }
            if let subevent = Self.number(their["bthci_evt.le_meta_subevent"]) {
                check("LE subevent", subevent, hci["subevent"] as? Int)
            }
            // tshark fills these for the events it decodes them in (for Command Complete, only some
            // commands); where it does, ours must say the same.
            let answered = (Self.number(their["bthci_evt.opcode"]) ?? 0) >> 10
            let brEdrCommand = answered == 1 || answered == 2
            let code = Self.number(their["bthci_evt.code"])
            let subevent = Self.number(their["bthci_evt.le_meta_subevent"])
            let decodedBrEdr =
                code.map(Self.decodedBrEdrEvents.contains) == true
                || (code == 0x3E && subevent.map(Self.decodedBrEdrSubevents.contains) == true)
            if decodedBrEdr {
                // Both ways: the same fields, and none where tshark has none.
                counts.brEdrEvents += 1
                check(
                    "event status", Self.number(their["bthci_evt.status"]), hci["status"] as? Int, counting: \.statuses)
                check(
                    "event connection handle", Self.number(their["bthci_evt.connection_handle"]).map { $0 & 0x0FFF },
                    hci["handle"] as? Int, counting: \.handles)
            } else if code != nil, !brEdrCommand {
                if let status = Self.number(their["bthci_evt.status"]) {
                    check("event status", status, hci["status"] as? Int, counting: \.statuses)
                }
                if let handle = Self.number(their["bthci_evt.connection_handle"]) {
                    check("event connection handle", handle & 0x0FFF, hci["handle"] as? Int, counting: \.handles)
                }
            }
            if let code, Self.addressEvents.contains(code) {
                let address = their["bthci_evt.bd_addr"].flatMap { $0.isEmpty ? nil : $0 }
                check("device address", address, hci["address"] as? String, counting: \.addresses)
            } else {
                check(
                    "device address (none but on Connection Complete, Connection Request, Remote Name Request Complete, Link Key Request)",
                    nil, hci["address"] as? String)
            }
            let androidDebug = Self.number(their["bthci_acl.chandle"]) == 0x0EDC
            if !androidDebug {
                check("SMP opcode", Self.number(their["btsmp.opcode"]), smp["opcode"] as? Int, counting: \.smpOpcodes)
                check("ATT opcode", Self.number(their["btatt.opcode"]), att["opcode"] as? Int)
                check("ATT error", Self.number(their["btatt.error_code"]), att["error"] as? Int)
                if their["btatt.error_code"].map({ !$0.isEmpty }) ?? false {
                    check(
                        "request opcode in error", Self.number(their["btatt.req_opcode_in_error"]),
                        att["request_opcode"] as? Int)
                }
                if att["opcode"] != nil {
                    let theirHandle = Self.number(their["btatt.handle"])
                    let ourHandle = att["handle"] as? Int
                    if theirHandle != ourHandle, !Self.tsharkPairedWrongly(index, theirs, ours) {
                        check("attribute handle", theirHandle, ourHandle)
                    }
                }
            } else {
                check("ATT on the Android debug handle", nil, att["opcode"] as? Int)
                check("SMP on the Android debug handle", nil, smp["opcode"] as? Int)
            }
        }
        print("TsharkCrossCheckTests \((path as NSString).lastPathComponent): \(counts)")
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// The allowed difference in response pairing: ours answers a request on the same connection;
    /// tshark's answers none, one on another connection, or one an earlier response answered.
    static func tsharkPairedWrongly(_ index: Int, _ theirs: [[String: String]], _ ours: [[String: Any]]) -> Bool {
        let connection = Self.number(theirs[index]["bthci_acl.chandle"])
        guard let ourRequest = (ours[index]["att"] as? [String: Any])?["request_index"] as? Int,
            (ours[ourRequest]["hci"] as? [String: Any])?["handle"] as? Int == connection
        else { return false }
        guard let theirFrame = Self.number(theirs[index]["btatt.request_in_frame"]) else { return true }
        let answeredBefore = theirs[..<index].contains { Self.number($0["btatt.request_in_frame"]) == theirFrame }
        return answeredBefore || Self.number(theirs[theirFrame - 1]["bthci_acl.chandle"]) != connection
    }

    static func kind(_ protocols: String) -> String {
        let layers = protocols.split(separator: ":")
        for (layer, kind) in [
            ("bthci_cmd", "command"), ("bthci_evt", "event"), ("bthci_acl", "acl"), ("bthci_sco", "sco"),
            ("bthci_iso", "iso"),
        ]
        where layers.contains(Substring(layer)) {
            return kind
        }
        return "other"
    }

    static func number(_ text: String?) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        return text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
    }

    /// tshark's `frame.time_epoch` in microseconds, undoing its 32-bit wrap of times before 1970.
    static func tsharkMicroseconds(_ text: String) -> Int64? {
        let negative = text.hasPrefix("-")
        let parts = text.drop(while: { $0 == "-" }).split(separator: ".")
        guard parts.count == 2, let whole = Int64(parts[0]), let fraction = Int64(parts[1].prefix(6)) else {
            return nil
        }
        if negative {
            // tshark prints -(2^32 + s) seconds, s < 0, with the fraction of the true value.
            let seconds = whole - (1 << 32)
            return seconds * 1_000_000 - fraction
        }
        return whole * 1_000_000 + fraction
    }
}
