import ArgumentParser
import BLETrace

/// `bletrace stats FILE`: decode every layer of every record and count what is there.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode every layer of every record and count: records by kind, HCI commands and events, ATT PDUs, errors.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if selection.brief { throw ValidationError("--brief: stats has no shorter form (it is the counts)") }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        let reader = try openCapture(path)
        var progress = output.progress(for: path, streamsOutput: false)
        var counts = TraceCounts()
        var fault: (any Error)?
        do {
            if let filter = RecordFilter(selection) {
                // Only the records the selection keeps are counted (as decode would show them),
                // each decoded in full for the test; the analysis still sees every record.
                var decoder = TraceDecoder()
                var origin: Timestamp?
                try reader.forEach { record in
                    progress?.advance(record)
                    let quick = counts.analysis.add(record)
                    if origin == nil { origin = record.timestamp }
                    let context = RecordFilter.Context(analyzer: counts.analyzer, origin: origin!)
                    if filter.matches(record, decoder.decode(record), context) { counts.count(record, quick) }
                }
                counts.selection = (selection, origin)
            } else {
                try reader.forEach { record in
                    progress?.advance(record)
                    counts.add(record)
                }
            }
        } catch { fault = error }
        progress?.finish()
        if format != .text {
            try Output.json(counts.json(file: capture.file), pretty: format == .json)
        } else {
            counts.printText(file: capture.file, format: reader.format)
        }
        try finish(fault)
        _ = selection.warnIfPeerMatchesNothing(counts.analyzer.connections, names: counts.analyzer.scanning.names, path: capture.file)
    }
}

/// Counts over a whole capture, kept in fixed tables: nothing is allocated per record.
struct TraceCounts {
    var analysis = CaptureAnalyzer()
    var analyzer: LifecycleAnalyzer { analysis.lifecycle }
    var collector: ErrorCollector { analysis.errors }
    var records = 0
    var bytes = 0
    let kinds = Tally()
    var commands: [UInt16: Int] = [:]
    let events = Tally()
    let subevents = Tally()
    let att = Tally()
    let smp = Tally()
    var faults = 0
    var lostFragments = 0

    /// With the selection options: the records counted are those it keeps, and so are the
    /// connections and errors (from the first record's time).
    var selection: (options: SelectionOptions, origin: Timestamp?)?

    @inline(__always)
    mutating func add(_ record: CaptureRecord) {
        count(record, analysis.add(record))
    }

    /// Counts `record`, which ``analysis`` has seen (`quick`: what it made of it, when it did not
    /// decode it in full).
    @inline(__always)
    mutating func count(_ record: CaptureRecord, _ quick: QuickRecord?) {
        records += 1
        bytes += record.bytes.count
        kinds[Int(record.kind.rawValue)] += 1
        if let quick {
            switch quick {
            case .att(_, let opcode, _, _): att[Int(opcode.rawValue)] += 1
            case .event(let code): events[Int(code.rawValue)] += 1
            case .fragment: break
            }
            return
        }
        // (Each layer read where it is, not the whole decoded record copied.)
        switch analysis.decoded.packet {
        case .command(let command): commands[command.opcode.rawValue, default: 0] += 1
        case .event(let event):
            events[Int(event.code.rawValue)] += 1
            if case .le(let meta) = event { subevents[Int(meta.subevent.rawValue)] += 1 }
        default: break
        }
        if let pdu = analysis.decoded.att { att[Int(pdu.opcode.rawValue)] += 1 }
        if let command = analysis.decoded.smp { smp[Int(command.code.rawValue)] += 1 }
        if analysis.decoded.fault != nil { faults += 1 }
        if analysis.decoded.lostFragments != nil { lostFragments += 1 }
    }

    struct Row: Encodable {
        var code: Int
        var name: String
        var count: Int
    }

    struct ErrorRow: Encodable {
        var layer: String
        var code: Int
        var name: String
        var count: Int
        var expected: Int
    }

    struct JSON: Encodable {
        var version = jsonVersion
        var file: String
        var records: Int
        var bytes: Int
        var kinds: [String: Int]
        var hci_commands: [Row]
        var hci_events: [Row]
        var le_subevents: [Row]
        var att_pdus: [Row]
        var smp_commands: [Row]
        var errors: [ErrorRow]
        var connections: Int
        var undecodable_records: Int
        var lost_fragments: Int
    }

    func rows(_ table: Tally, name: (Int) -> String) -> [Row] {
        (0..<256).filter { table[$0] > 0 }.map { Row(code: $0, name: name($0), count: table[$0]) }
    }

    func json(file: String) -> JSON {
        var errorRows: [String: ErrorRow] = [:]
        var errors = collector.errors
        var connections = analyzer.connections
        if let (options, origin) = selection, let origin {
            let names = analyzer.scanning.names
            errors = errors.filter {
                options.matches(peer: $0.peer, name: $0.peer.flatMap { names[$0] }) && options.matches($0.transport) && options.contains($0.time, origin: origin)
            }
            let end = analyzer.report.lastTime
            connections = connections.filter { options.matches($0, origin: origin, end: end) }
        }
        for error in errors {
            let key = "\(error.layer.rawValue) \(error.code)"
            var row = errorRows[key] ?? ErrorRow(layer: error.layer.rawValue, code: Int(error.code), name: error.name, count: 0, expected: 0)
            row.count += 1
            if error.expected { row.expected += 1 }
            errorRows[key] = row
        }
        return JSON(
            file: file, records: records, bytes: bytes,
            kinds: Dictionary(uniqueKeysWithValues: PacketKind.allCases.filter { kinds[Int($0.rawValue)] > 0 }.map { ("\($0)", kinds[Int($0.rawValue)]) }),
            hci_commands: commands.sorted { $0.key < $1.key }.map { Row(code: Int($0.key), name: HCIOpcode(rawValue: $0.key).description, count: $0.value) },
            hci_events: rows(events) { HCIEventCode(rawValue: UInt8($0)).description },
            le_subevents: rows(subevents) { LESubeventCode(rawValue: UInt8($0)).description },
            att_pdus: rows(att) { ATTOpcode(rawValue: UInt8($0)).description },
            smp_commands: rows(smp) { SMPCode(rawValue: UInt8($0)).description },
            errors: errorRows.values.sorted { ($0.layer, $0.code) < ($1.layer, $1.code) },
            connections: connections.count,
            undecodable_records: faults, lost_fragments: lostFragments)
    }

    func printText(file: String, format: CaptureFormat) {
        let data = json(file: file)
        Output.line(Style.bold("\(file): \(format)"))
        Output.line("\(data.records) records, \(data.bytes) bytes of packets; \(data.connections) connections")
        Output.line("  " + PacketKind.allCases.compactMap { kind in data.kinds["\(kind)"].map { "\($0) \(kind)" } }.joined(separator: ", "))
        func section(_ title: String, _ rows: [Row], digits: Int) {
            guard !rows.isEmpty else { return }
            Output.line("")
            Output.line(Style.bold(title))
            for row in rows.sorted(by: { $0.count != $1.count ? $0.count > $1.count : $0.code < $1.code }) {
                Output.line("  \(String(row.count).leftPadded(8))  \(hex(row.code, digits: digits))  \(row.name)")
            }
        }
        section("HCI commands", data.hci_commands, digits: 4)
        section("HCI events", data.hci_events, digits: 2)
        section("LE meta subevents", data.le_subevents, digits: 2)
        section("ATT PDUs", data.att_pdus, digits: 2)
        section("SMP commands", data.smp_commands, digits: 2)
        if !data.errors.isEmpty {
            Output.line("")
            Output.line(Style.bold("errors (bletrace errors lists them)"))
            for row in data.errors.sorted(by: { $0.count > $1.count }) {
                let expected = row.expected > 0 ? " (\(row.expected) expected)" : ""
                let line = "  \(String(row.count).leftPadded(8))  \(row.layer.uppercased()) \(hex(row.code, digits: 2))  \(row.name)\(expected)"
                // Red while some are unexpected.
                Output.line(row.expected < row.count ? Style.red(line) : line)
            }
        }
        if data.undecodable_records > 0 || data.lost_fragments > 0 {
            Output.line("")
            Output.line("\(data.undecodable_records) records with a layer that did not decode, \(data.lost_fragments) with lost ACL fragments (bletrace decode shows which)")
        }
    }
}

/// A count per 8-bit code, in one fixed block: counting is an add, with no copy-on-write check
/// (the counts are counted once a record, several times).
final class Tally {
    private let counts = UnsafeMutablePointer<Int>.allocate(capacity: 256)

    init() { counts.initialize(repeating: 0, count: 256) }
    deinit { counts.deallocate() }

    subscript(code: Int) -> Int {
        get { counts[code & 0xFF] }
        set { counts[code & 0xFF] = newValue }
    }
}
