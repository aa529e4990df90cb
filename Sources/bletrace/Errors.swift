import ArgumentParser
import BLETrace

/// `bletrace errors FILE`: every ATT error, HCI failure and SMP failure, with its CoreBluetooth
/// equivalent, then a summary by code.
struct Errors: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every ATT error, HCI failure and SMP failure with what CoreBluetooth would have reported.",
        discussion: "An Attribute Not Found that ends a discovery, and status 0x02 ending a cancelled attempt, are normal: they are marked expected and left out of the text unless --all is given.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (one error per line).") var format: OutputFormat = .text
    @Flag(help: "Also list the expected ones (discovery ends, cancelled attempts).") var all = false
    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 when the capture has errors: unexpected ones, or any.",
            discussion: "For CI: bletrace errors trace.btsnoop --fail-on unexpected. Without it, finding errors exits 0."))
    var failOn: FailOn?
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions

    enum FailOn: String, ExpressibleByArgument, CaseIterable { case unexpected, any }

    func run() throws {
        try output.apply(input: capture.file)
        let reader = try openCapture(try capture.path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = ErrorCollector()
        var fault: (any Error)?
        var origin: Timestamp?
        do {
            while let record = try reader.next() {
                if origin == nil { origin = record.timestamp }
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        } catch { fault = error }

        let names = analyzer.scanning.names
        let errors = collector.errors.filter { error in
            selection.matches(peer: error.peer, name: error.peer.flatMap { names[$0] }) && selection.matches(error.transport)
                && origin.map { selection.contains(error.time, origin: $0) } ?? true
        }
        switch format {
        case .json:
            // The errors are written one by one: a long capture has thousands.
            try Output.prettyJSON(JSONErrors(errors, all: []), streaming: "errors", errors.map(JSONError.init))
        case .jsonl:
            for error in errors {
                var line = JSONError(error)
                line.version = jsonVersion
                try Output.json(line)
            }
        case .text:
            printErrors(errors, origin: origin, names: names)
        }
        try finish(fault)
        let failing = switch failOn {
        case .any: !errors.isEmpty
        case .unexpected: errors.contains { !$0.expected }
        case nil: false
        }
        if failing { throw Exit.finding }
    }

    private func printErrors(_ errors: [TraceError], origin: Timestamp?, names: [BluetoothAddress: String]) {
        let shown = errors.filter { all || !$0.expected }
        let hidden = errors.count - shown.count
        if shown.isEmpty {
            Output.line(errors.isEmpty ? "no errors" : "no unexpected errors")
        }
        for error in shown {
            var line = relativeTime(error.time, since: origin ?? error.time) + "  frame \(error.record + 1)"
            if let connection = error.connection { line += "  handle \(hex(connection, digits: 4))" }
            if let peer = error.peer { line += "  \(peer)" + (names[peer].map { " \"\($0)\"" } ?? "") }
            if error.transport == .classic { line += "  BR/EDR" }
            var what = "  \(error.layer.rawValue.uppercased()) \(error.name) (\(hex(error.code, digits: 2)))"
            if error.layer == .att, let request = error.requestName ?? error.requestOpcode.map({ hex($0, digits: 2) }) {
                what += " answering \(request)"
            } else if let command = error.requestName ?? error.requestOpcode.map({ hex($0, digits: 4) }) {
                what += " for \(command)"
            }
            if let procedure = error.procedure, let handle = error.attributeHandle {
                what += ", ending a \(procedure.rawValue)"
                if let type = error.searchedType, procedure == .valueSearch {
                    what += " for \(type)" + (GATTNames.name(for: type).map { " \($0)" } ?? "")
                }
                what += " from \(hex(handle, digits: 4))"
            } else if let handle = error.attributeHandle {
                what += " on attribute \(hex(handle, digits: 4))"
                if let attribute = error.attribute {
                    what += " (\(attribute.role.rawValue) \(attribute.uuid)\(attribute.name.map { " \($0)" } ?? ""))"
                }
            }
            if error.expected { what += " [expected]" }
            if selection.brief {
                let short = String(what.drop { $0 == " " })
                Output.line(line + "  " + (error.expected ? Style.dim(short) : Style.red(short)))
                continue
            }
            Output.line(line)
            Output.line(error.expected ? Style.dim(what) : Style.red(what))
            if error.transport == .classic {
                Output.line("  CoreBluetooth: does not apply (BR/EDR: CoreBluetooth makes LE connections only)")
            } else if let cb = error.coreBluetooth {
                let name = cb.name.map { "\(cb.domain == CBError.errorDomain ? "CBError" : "CBATTError").\($0) (\(cb.code))" }
                    ?? "\(cb.domain) code \(cb.code), no named case"
                let carrier = cb.callback.hasPrefix("no ") ? ", \(cb.callback)" : " in \(cb.callback)"
                Output.line("  CoreBluetooth: \(name)\(carrier) [\(cb.evidence.rawValue)]")
            }
        }
        Output.line("")
        Output.line("summary: \(errors.count) errors, \(errors.count { !$0.expected }) unexpected" + (hidden > 0 && !all ? " (\(hidden) expected, not shown: --all)" : ""))
        var counts: [String: Int] = [:]
        for error in shown { counts["\(error.layer.rawValue.uppercased()) \(hex(error.code, digits: 2)) \(error.name)", default: 0] += 1 }
        for (key, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            Output.line("  \(String(count).leftPadded(6))  \(key)")
        }
    }
}

/// The JSON contract of `bletrace errors --format json` (Formats/json.md): the errors, and how
/// many there are.
struct JSONErrors: Encodable {
    var version = jsonVersion
    var total: Int
    var unexpected: Int
    var errors: [JSONError]

    init(_ errors: [TraceError], all: [JSONError]) {
        total = errors.count
        unexpected = errors.count { !$0.expected }
        self.errors = all
    }
}

/// One error of `bletrace errors --format json` and one line of `--format jsonl`.
struct JSONError: Encodable {
    /// On each line of `--format jsonl` only: in `--format json` the document carries it.
    var version: Int?
    struct CB: Encodable {
        var domain: String
        var code: Int
        var name: String?
        var evidence: String
        var callback: String
    }
    var index: Int
    var frame: Int
    var ts_us: Int64
    var handle: UInt16?
    var peer: String?
    /// `le` or `classic` (BR/EDR), where known.
    var transport: String?
    var layer: String
    var code: UInt8
    var name: String
    var request_opcode: UInt16?
    var request_name: String?
    var attribute_handle: UInt16?
    var attribute_uuid: String?
    var attribute_name: String?
    /// The discovery procedure the failed request belonged to; `attribute_handle` is then the
    /// start of the range searched.
    var procedure: String?
    /// The attribute type the search asked for.
    var searched_uuid: String?
    var expected: Bool
    /// Always present: `null` when CoreBluetooth has no equivalent.
    var cb: NullOr<CB>

    init(_ error: TraceError) {
        index = error.record
        frame = error.record + 1
        ts_us = error.time.microseconds
        handle = error.connection
        peer = error.peer.map { "\($0)" }
        transport = error.transport?.rawValue
        layer = error.layer.rawValue
        code = error.code
        name = error.name
        request_opcode = error.requestOpcode
        request_name = error.requestName
        attribute_handle = error.attributeHandle
        attribute_uuid = error.attribute.map { "\($0.uuid)" }
        attribute_name = error.attribute?.name
        procedure = error.procedure?.rawValue
        searched_uuid = error.searchedType.map { "\($0)" }
        expected = error.expected
        cb = NullOr(error.coreBluetooth.map {
            CB(domain: $0.domain, code: $0.code, name: $0.name, evidence: $0.evidence.rawValue, callback: $0.callback)
        })
    }
}
