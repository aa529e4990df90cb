import HCI
import TraceFiles
import Wire

/// One reason a capture cannot tell the whole story of its connections, with the records that
/// show it and how to record one that can (issue 43 §4; Formats/diagnose.md, "Can this capture
/// answer?").
public struct FitnessProblem: Hashable, Sendable {
    /// What is missing, in the words of `info` and `diagnose`'s JSON (`kind`).
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// ACL packets kept only in part (Android's filtered snoop mode, a btsnooz summary).
        case aclCutShort = "acl-cut-short"
        /// Connections that were up before the capture began: no connection, no discovery, no MTU.
        case startedMidConnection = "started-mid-connection"
        /// The first records answer exchanges the capture does not hold: a log cut from a longer
        /// one (Android's rotation) or started in the middle of the stack's traffic.
        case lostItsStart = "lost-its-start"
        /// An over-the-air capture whose encrypted packets could not be read.
        case encryptedWithoutKey = "encrypted-without-key"
        /// Only one side's packets were recorded.
        case oneSideOnly = "one-side-only"
    }

    public var kind: Kind
    /// One plain sentence: what the capture lacks, and what it therefore cannot say.
    public var problem: String
    /// The records (0-based) that show it, a few at most.
    public var evidence: [Int]
    /// How to record a capture that can answer, per platform.
    public var remedy: String
}

/// Whether a capture can answer at all: fed every record as its file holds it, in the same pass
/// as `info`'s count or `diagnose`'s analysis, it finds the problems of ``FitnessProblem/Kind``.
/// A capture whose problems are empty shows its connections from their start, both sides, whole.
///
/// Cheap per record (the handles are a bit set, no hashing): it runs beside the analyses.
public struct CaptureFitness {
    private let format: CaptureFormat
    /// An over-the-air capture read record by record (`info`): its links as the analyses see them.
    private var air: AirTranslator?
    private var airLinks: [AirLink] = []

    /// ACL records cut short: how many, and the first few with their kept and whole lengths.
    private var cutShort = 0
    private var firstCut: [(record: Int, kept: Int, whole: Int)] = []
    /// Connection handles open (completed in the capture), and those seen in use without their
    /// completion: the first ACL record of each, in order.
    private var open = HandleSet()
    private var seen = HandleSet()
    private var unknownHandles: [(handle: UInt16, record: Int)] = []
    /// Whether the capture has shown any command, and the first records that answer commands it
    /// does not hold, or continue an L2CAP frame it does not hold, before the first command.
    private var commandSeen = false
    private var resetSeen = false
    private var orphans: [Int] = []
    private var records = 0
    /// HCI records by direction: commands, events, ACL sent, ACL received (and the first of each).
    private var counts = (commands: 0, events: 0, aclSent: 0, aclReceived: 0)
    private var firsts: (command: Int?, event: Int?, aclSent: Int?, aclReceived: Int?)

    /// `format`: the capture's own (an over-the-air capture's records are read as the sniffer
    /// wrote them, unless ``attach(_:)`` gives its links instead).
    public init(format: CaptureFormat) {
        self.format = format
        if let linkType = format.linkLayerType { air = AirTranslator(linkType: linkType, options: AirOptions()) }
    }

    /// An over-the-air capture's links as the analysis already translated them (`diagnose`): its
    /// records need not be added.
    public mutating func attach(_ capture: AirCapture?) {
        guard let capture else { return }
        airLinks = capture.links
        air = nil
    }

    /// Adds a record as the capture's file holds it (an over-the-air one as the sniffer wrote it).
    @inline(__always)
    public mutating func add(_ record: borrowing CaptureRecord) {
        if air != nil {
            _ = air!.translate(record)
            return
        }
        if format.linkLayerType != nil { return }
        records += 1
        let bytes = record.bytes
        switch record.kind {
        case .acl:
            if record.direction == .sent {
                counts.aclSent += 1
                if firsts.aclSent == nil { firsts.aclSent = record.index }
            } else if record.direction == .received {
                counts.aclReceived += 1
                if firsts.aclReceived == nil { firsts.aclReceived = record.index }
            }
            guard bytes.count >= 4 else { return }
            let word = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
            let handle = word & 0x0FFF
            guard handle != ACLPacket.androidDebugHandle else { return }
            let length = Int(bytes[2]) | Int(bytes[3]) << 8
            let (index, original) = (record.index, record.originalLength)
            if length > bytes.count - 4 || original > bytes.count {
                cut(index, kept: bytes.count, whole: max(length + 4, original))
            }
            if !open.contains(handle) { unknown(handle, index, continuation: word >> 12 & 0x3 == 0x1) }
        case .command:
            counts.commands += 1
            if firsts.command == nil { firsts.command = record.index }
            commandSeen = true
            if bytes.count >= 2, bytes[0] == 0x03, bytes[1] == 0x0C { resetSeen = true }
        case .event:
            counts.events += 1
            if firsts.event == nil { firsts.event = record.index }
            guard bytes.count >= 2 else { return }
            event(bytes, record.index)
        default:
            break
        }
    }

    @inline(never)
    private mutating func cut(_ record: Int, kept: Int, whole: Int) {
        cutShort += 1
        if firstCut.count < 3 { firstCut.append((record, kept, whole)) }
    }

    /// ACL on a handle no completion in the capture opened.
    @inline(never)
    private mutating func unknown(_ handle: UInt16, _ record: Int, continuation: Bool) {
        if continuation && !commandSeen && orphans.count < 3 { orphans.append(record) }
        guard !seen.contains(handle) else { return }
        seen.insert(handle)
        unknownHandles.append((handle, record))
    }

    /// The events that open and close connections, and the answers to commands not in the capture.
    private mutating func event(_ bytes: UnsafeRawBufferPointer, _ record: Int) {
        func handle(at offset: Int) -> UInt16? {
            bytes.count >= offset + 2 ? (UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8) & 0x0FFF : nil
        }
        switch bytes[0] {
        case 0x03:  // Connection Complete: status, handle.
            if bytes.count >= 3, bytes[2] == 0x00, let h = handle(at: 3) { opened(h) }
        case 0x3E:  // LE Connection Complete, Enhanced (v1, v2): subevent, status, handle.
            if bytes.count >= 4, [0x01, 0x0A, 0x29].contains(bytes[2]), bytes[3] == 0x00, let h = handle(at: 4) {
                opened(h)
            }
        case 0x05:  // Disconnection Complete: status, handle.
            if let h = handle(at: 3) { open.remove(h) }
        case 0x0E, 0x0F:  // Command Complete (opcode at 3), Command Status (at 4).
            let at = bytes[0] == 0x0E ? 3 : 4
            guard !commandSeen, bytes.count >= at + 2, bytes[at] != 0 || bytes[at + 1] != 0, orphans.count < 3 else {
                return
            }
            orphans.append(record)
        default:
            break
        }
    }

    private mutating func opened(_ handle: UInt16) {
        open.insert(handle)
        // A handle used before and opened now: its earlier use belonged to a connection before
        // the capture (kept among the unknown), the new one is whole.
        seen.insert(handle)
    }

    /// The problems found, in the order of ``FitnessProblem/Kind``; empty when the capture can answer.
    public var problems: [FitnessProblem] {
        var problems: [FitnessProblem] = []
        if let linkType = format.linkLayerType { return Self.airProblems(air?.links ?? airLinks, linkType: linkType) }
        if cutShort > 0, let first = firstCut.first {
            problems.append(
                FitnessProblem(
                    kind: .aclCutShort,
                    problem:
                        "\(cutShort) ACL packet\(cutShort == 1 ? " was" : "s were") cut short by the capture (frame \(first.record + 1) keeps \(first.kept) of \(first.whole) bytes): the values, the GATT database and the ATT errors in them cannot be read. Android's filtered snoop log keeps the first bytes of each packet, and a bug report's btsnooz summary (with the snoop log off) keeps only the last packets, cut the same way.",
                    evidence: firstCut.map(\.record),
                    remedy: Self.androidFull + " A btsnooz summary is never whole: turn the snoop log on."))
        }
        if !unknownHandles.isEmpty {
            let count = unknownHandles.count
            let listed = unknownHandles.prefix(3).map {
                "handle \(hex($0.handle, digits: 4)) from frame \($0.record + 1)"
            }.joined(separator: ", ")
            problems.append(
                FitnessProblem(
                    kind: .startedMidConnection,
                    problem:
                        "The capture began in the middle of \(Wording.count(count, "connection")) (\(listed)\(count > 3 ? ", …" : "")): their peers, how and when they connected, the MTU and the GATT discovery are not in it, so the handles' attributes and why the links were made cannot be told.",
                    evidence: unknownHandles.prefix(3).map(\.record),
                    remedy:
                        "Start recording before the app connects. " + Self.androidFull + " " + Self.iOS
                        + " A log cut by rotation: take the bug report's btsnoop_hci.log.last too (the log before it).")
            )
        }
        if !orphans.isEmpty {
            let rotated = Self.androidRotation(format: format, records: records)
            problems.append(
                FitnessProblem(
                    kind: .lostItsStart,
                    problem:
                        "The capture begins in the middle of the stack's traffic: frame \(orphans[0] + 1) answers a command (or continues a packet) that the capture does not hold"
                        + (resetSeen ? "" : ", and no HCI Reset starts it")
                        + (rotated
                            ? "; it holds exactly 65,535 records, the size at which Android's snoop logger starts a new file, so it is one of a rotated pair."
                            : ": it was cut from a longer log (Android's snoop log rotates every 65,535 records, keeping one file before) or started while Bluetooth was on."),
                    evidence: orphans,
                    remedy:
                        "Android: take both btsnoop_hci.log and btsnoop_hci.log.last from the bug report (FS/data/misc/bluetooth/logs/) and read the older first, or raise the packets a file holds (adb shell setprop persist.bluetooth.btsnoopsize with a number above 65535) and turn Bluetooth off and on before reproducing, so that the log starts with the stack. "
                        + Self.iOS))
        }
        if let oneSide = oneSide {
            problems.append(oneSide)
        }
        return problems
    }

    /// Only one side recorded: commands with no event (or events with no command), or ACL data in
    /// one direction only, among enough records that the other side must have spoken.
    private var oneSide: FitnessProblem? {
        let minimum = 10
        var what: String?
        var evidence: [Int] = []
        if counts.commands >= minimum, counts.events == 0, let first = firsts.command {
            what = "\(counts.commands) commands and no event: the controller's side was not recorded"
            evidence = [first]
        } else if counts.events >= minimum, counts.commands == 0, counts.aclSent == 0, let first = firsts.event {
            what = "\(counts.events) events and no command: the host's side was not recorded"
            evidence = [first]
        } else if counts.aclSent >= minimum, counts.aclReceived == 0, let first = firsts.aclSent {
            what = "\(counts.aclSent) ACL packets sent and none received: the peer's answers were not recorded"
            evidence = [first]
        } else if counts.aclReceived >= minimum, counts.aclSent == 0, let first = firsts.aclReceived {
            what = "\(counts.aclReceived) ACL packets received and none sent: this host's requests were not recorded"
            evidence = [first]
        }
        guard let what else { return nil }
        return FitnessProblem(
            kind: .oneSideOnly,
            problem: "The capture holds one side only (\(what)), so no request can be matched with its answer.",
            evidence: evidence,
            remedy: "Record the host's own HCI log, which holds both directions: " + Self.androidFull + " " + Self.iOS)
    }

    /// The problems of an over-the-air capture's links (`linkType`: its pcap link type).
    private static func airProblems(_ links: [AirLink], linkType: Int32) -> [FitnessProblem] {
        var problems: [FitnessProblem] = []
        let joined = links.filter { $0.connectRecord == nil && $0.events > 0 }
        if let first = joined.first {
            problems.append(
                FitnessProblem(
                    kind: .startedMidConnection,
                    problem:
                        "The sniffer joined \(Wording.count(joined.count, "link")) after \(joined.count == 1 ? "it" : "they") began (no CONNECT_IND; link \(first.index) from frame \((first.joinedRecord ?? 0) + 1)): the connection's start, its parameters and any key exchange are not in the capture.",
                    evidence: joined.compactMap(\.joinedRecord).prefix(3).map { $0 },
                    remedy: sniffer))
        }
        let unread = links.filter { $0.undecryptedPackets > 0 && $0.decryptedPackets == 0 }
        if let first = unread.first {
            let packets = unread.reduce(0) { $0 + $1.undecryptedPackets }
            problems.append(
                FitnessProblem(
                    kind: .encryptedWithoutKey,
                    problem:
                        "\(Wording.count(packets, "encrypted packet")) on \(Wording.count(unread.count, "link")) could not be read (link \(first.index)\(first.firstUndecryptedRecord.map { ", from frame \($0 + 1)" } ?? "")): without the link's key, nothing after the encryption started (ATT, SMP, the link's end) can be told.",
                    evidence: unread.compactMap(\.firstUndecryptedRecord).prefix(3).map { $0 },
                    remedy:
                        "Give the long-term key: bletrace diagnose --ltk HEX (the Encryption Information of the pairing, or the key from the phone's bond). nRF Sniffer: enter the LE Secure Connections private key, the legacy passkey or OOB key, or the LTK in Wireshark's nRF Sniffer toolbar before the devices pair or connect, and capture the pairing itself; a bond made before the capture can be read only with its LTK."
                ))
        }
        // Link type 251 carries no direction (the decoder guesses it): it cannot say who was heard.
        let oneSided =
            linkType == 251
            ? [] : links.filter { $0.events >= 10 && ($0.centralPackets == 0 || $0.peripheralPackets == 0) }
        if let first = oneSided.first {
            problems.append(
                FitnessProblem(
                    kind: .oneSideOnly,
                    problem:
                        "The sniffer heard one side only on \(Wording.count(oneSided.count, "link")) (link \(first.index): \(first.centralPackets) packets from the central, \(first.peripheralPackets) from the peripheral), so no request can be matched with its answer.",
                    evidence: first.connectRecord.map { [$0] } ?? [],
                    remedy:
                        "Place the sniffer between the two devices, close to both, and follow the link from its CONNECT_IND. "
                        + sniffer))
        }
        return problems
    }

    /// Android's full snoop log, step by step.
    static let androidFull =
        "Android: Developer options > Enable Bluetooth HCI snoop log > Enabled (not Filtered), or adb shell setprop persist.bluetooth.btsnooplogmode full (the default mode is the global setting bluetooth_btsnoop_default_mode: adb shell settings put global bluetooth_btsnoop_default_mode full); turn Bluetooth off and on, reproduce, then adb bugreport: the log is FS/data/misc/bluetooth/logs/btsnoop_hci.log in the zip."
    /// iOS's Bluetooth logging, step by step.
    static let iOS =
        "iOS: install Apple's Bluetooth logging profile (developer.apple.com, Profiles and Logs), reproduce, then take a sysdiagnose: the log is logs/Bluetooth/bluetoothd-hci-latest.pklg in it (PacketLogger on a Mac shows it live)."
    /// The nRF Sniffer, step by step.
    static let sniffer =
        "nRF Sniffer: start capturing before the devices connect, choose the peripheral in the Device list so the sniffer follows it from its CONNECT_IND, and give the pairing's key (passkey, OOB or LTK) for an encrypted link."

    /// Whether the capture is a whole file of Android's rotating snoop log: btsnoop H4 with
    /// exactly the 65,535 records a file holds before rotation (AOSP's snoop logger).
    static func androidRotation(format: CaptureFormat, records: Int) -> Bool {
        format == .btsnoop(datalink: 1002) && records == 0xFFFF
    }
}

/// A set of 12-bit connection handles, as bits: no hashing for each ACL record.
struct HandleSet {
    private var words = [UInt64](repeating: 0, count: 64)

    func contains(_ handle: UInt16) -> Bool { words[Int(handle >> 6)] & (1 << UInt64(handle & 63)) != 0 }
    mutating func insert(_ handle: UInt16) { words[Int(handle >> 6)] |= 1 << UInt64(handle & 63) }
    mutating func remove(_ handle: UInt16) { words[Int(handle >> 6)] &= ~(1 << UInt64(handle & 63)) }
}
