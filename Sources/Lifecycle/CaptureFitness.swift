import HCI
import TraceFiles
import Wire

/// One reason a capture cannot tell the whole story of its connections, with the records that
/// show it (issue 43 §4; Formats/diagnose.md, "Can this capture answer?"). The analysis finds the
/// facts; the sentence that says it and how to record a capture that can, per platform, are
/// written from them by the Reports module (`Sources/Reports/FitnessWords.swift`), and nowhere
/// else.
package struct FitnessProblem: Hashable, Sendable {
    /// What is missing, in the words of `info` and `diagnose`'s JSON (`kind`).
    package enum Kind: String, Hashable, Sendable, CaseIterable {
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

    /// What was found, as the values it was found from: one case per check (an HCI capture's and
    /// an over-the-air capture's checks of the same ``Kind`` are two).
    package enum Facts: Hashable, Sendable {
        /// `packets` ACL packets kept only in part; the first at record `first`, which keeps `kept`
        /// of its `whole` bytes.
        case aclCutShort(packets: Int, first: Int, kept: Int, whole: Int)
        /// ACL on `connections` handles that no completion in the capture opened; the first few,
        /// each with the record of its first ACL packet.
        case startedMidConnection(connections: Int, first: [HandleInUse])
        /// Record `first` answers a command (or continues a packet) the capture does not hold;
        /// whether an HCI Reset starts the capture; whether it is a whole file of Android's
        /// rotating snoop log (btsnoop H4 with exactly the 65,535 records a file holds).
        case lostItsStart(first: Int, resetSeen: Bool, rotatedFile: Bool)
        /// `count` records of one side's kind (`recorded`) and none of the other's.
        case oneSideOnly(recorded: HCISide, count: Int)
        /// The sniffer joined `links` links after they began: the first, by its index, from record
        /// `from` (its first data PDU, where known).
        case linksJoined(links: Int, first: Int, from: Int?)
        /// `packets` encrypted packets on `links` links could not be read: the first such link,
        /// by its index, from record `from` (its first unread packet, where known).
        case encryptedWithoutKey(packets: Int, links: Int, first: Int, from: Int?)
        /// The sniffer heard one side only on `links` links: the first, by its index, with the
        /// packets it heard from each side.
        case oneSideHeard(links: Int, first: Int, central: Int, peripheral: Int)
    }

    /// A connection handle used before the capture saw it open, and its first ACL record.
    package struct HandleInUse: Hashable, Sendable {
        package var handle: UInt16
        package var record: Int
    }

    /// What a one-sided HCI log holds: commands and no event, events and no command, ACL packets
    /// sent and none received, or received and none sent.
    package enum HCISide: Hashable, Sendable {
        case commands, events, aclSent, aclReceived
    }

    /// The records (0-based) that show it, a few at most.
    package var evidence: [Int]
    /// What was found: the problem's sentence and its remedy (`problem`, `remedy`) are written
    /// from it by the Reports module.
    package var facts: Facts

    /// What is missing, from the facts.
    package var kind: Kind {
        switch facts {
        case .aclCutShort: .aclCutShort
        case .startedMidConnection, .linksJoined: .startedMidConnection
        case .lostItsStart: .lostItsStart
        case .encryptedWithoutKey: .encryptedWithoutKey
        case .oneSideOnly, .oneSideHeard: .oneSideOnly
        }
    }
}

/// Whether a capture can answer at all: fed every record as its file holds it, in the same pass
/// as `info`'s count or `diagnose`'s analysis, it finds the problems of ``FitnessProblem/Kind``.
/// A capture whose problems are empty shows its connections from their start, both sides, whole.
///
/// Cheap per record (the handles are a bit set, no hashing): it runs beside the analyses.
package struct CaptureFitness {
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
    private var unknownHandles: [FitnessProblem.HandleInUse] = []
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
    package init(format: CaptureFormat) {
        self.format = format
        if let linkType = format.linkLayerType { air = AirTranslator(linkType: linkType, options: AirOptions()) }
    }

    /// An over-the-air capture's links as the analysis already translated them (`diagnose`): its
    /// records need not be added.
    package mutating func attach(_ capture: AirCapture?) {
        guard let capture else { return }
        airLinks = capture.links
        air = nil
    }

    /// Adds a record as the capture's file holds it (an over-the-air one as the sniffer wrote it).
    @inline(__always)
    package mutating func add(_ record: borrowing CaptureRecord) {
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
        unknownHandles.append(FitnessProblem.HandleInUse(handle: handle, record: record))
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
    package var problems: [FitnessProblem] {
        var problems: [FitnessProblem] = []
        if let linkType = format.linkLayerType { return Self.airProblems(air?.links ?? airLinks, linkType: linkType) }
        if cutShort > 0, let first = firstCut.first {
            problems.append(
                FitnessProblem(
                    evidence: firstCut.map(\.record),
                    facts: .aclCutShort(packets: cutShort, first: first.record, kept: first.kept, whole: first.whole)))
        }
        if !unknownHandles.isEmpty {
            let first = Array(unknownHandles.prefix(3))
            problems.append(
                FitnessProblem(
                    evidence: first.map(\.record),
                    facts: .startedMidConnection(connections: unknownHandles.count, first: first)))
        }
        if !orphans.isEmpty {
            problems.append(
                FitnessProblem(
                    evidence: orphans,
                    facts: .lostItsStart(
                        first: orphans[0], resetSeen: resetSeen,
                        rotatedFile: Self.androidRotation(format: format, records: records))))
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
        let side: (FitnessProblem.HCISide, count: Int, first: Int)?
        if counts.commands >= minimum, counts.events == 0, let first = firsts.command {
            side = (.commands, counts.commands, first)
        } else if counts.events >= minimum, counts.commands == 0, counts.aclSent == 0, let first = firsts.event {
            side = (.events, counts.events, first)
        } else if counts.aclSent >= minimum, counts.aclReceived == 0, let first = firsts.aclSent {
            side = (.aclSent, counts.aclSent, first)
        } else if counts.aclReceived >= minimum, counts.aclSent == 0, let first = firsts.aclReceived {
            side = (.aclReceived, counts.aclReceived, first)
        } else {
            side = nil
        }
        guard let side else { return nil }
        return FitnessProblem(evidence: [side.first], facts: .oneSideOnly(recorded: side.0, count: side.count))
    }

    /// The problems of an over-the-air capture's links (`linkType`: its pcap link type).
    private static func airProblems(_ links: [AirLink], linkType: Int32) -> [FitnessProblem] {
        var problems: [FitnessProblem] = []
        let joined = links.filter { $0.connectRecord == nil && $0.events > 0 }
        if let first = joined.first {
            problems.append(
                FitnessProblem(
                    evidence: joined.compactMap(\.joinedRecord).prefix(3).map { $0 },
                    facts: .linksJoined(links: joined.count, first: first.index, from: first.joinedRecord)))
        }
        let unread = links.filter { $0.undecryptedPackets > 0 && $0.decryptedPackets == 0 }
        if let first = unread.first {
            problems.append(
                FitnessProblem(
                    evidence: unread.compactMap(\.firstUndecryptedRecord).prefix(3).map { $0 },
                    facts: .encryptedWithoutKey(
                        packets: unread.reduce(0) { $0 + $1.undecryptedPackets }, links: unread.count,
                        first: first.index, from: first.firstUndecryptedRecord)))
        }
        // Link type 251 carries no direction (the decoder guesses it): it cannot say who was heard.
        let oneSided =
            linkType == 251
            ? [] : links.filter { $0.events >= 10 && ($0.centralPackets == 0 || $0.peripheralPackets == 0) }
        if let first = oneSided.first {
            problems.append(
                FitnessProblem(
                    evidence: first.connectRecord.map { [$0] } ?? [],
                    facts: .oneSideHeard(
                        links: oneSided.count, first: first.index, central: first.centralPackets,
                        peripheral: first.peripheralPackets)))
        }
        return problems
    }

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
