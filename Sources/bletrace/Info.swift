import ArgumentParser
import BLETrace

/// `bletrace info FILE`: what a capture is, how many records it holds, and the time it spans.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what a capture is: format, datalink, record count, time span.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var output: OutputOptions

    struct Summary: Encodable {
        var version = jsonVersion
        var file: String
        var format: String
        var datalink: Int?
        var description: String
        var records: Int
        var kinds: [String: Int]
        var first_ts_us: Int64?
        var last_ts_us: Int64?
        var duration_ms: Double?
        var error: String?
    }

    func run() throws {
        try output.apply(input: capture.file)
        let reader = try openCapture(try capture.path)
        var kinds: [PacketKind: Int] = [:]
        var records = 0
        var first: Timestamp?
        var last: Timestamp?
        var fault: (any Error)?
        do {
            while let record = try reader.next() {
                records += 1
                kinds[record.kind, default: 0] += 1
                if first == nil { first = record.timestamp }
                last = record.timestamp
            }
        } catch { fault = error }

        let summary = Summary(
            file: capture.file, format: reader.format.name, datalink: reader.format.datalink,
            description: reader.format.description, records: records,
            kinds: Dictionary(uniqueKeysWithValues: kinds.map { ("\($0.key)", $0.value) }),
            first_ts_us: first?.microseconds, last_ts_us: last?.microseconds,
            duration_ms: first.flatMap { first in last.map { $0.seconds(since: first) * 1000 } },
            error: fault.map { "\($0)" })
        if format != .text {
            try Output.json(summary, pretty: format == .json)
        } else {
            let counts = PacketKind.allCases.compactMap { kind in kinds[kind].map { "\($0) \(kind)" } }
            Output.line("file:     \(capture.file)")
            Output.line("format:   \(reader.format)")
            Output.line("records:  \(records)" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"))
            if let first, let last {
                Output.line("first:    \(isoTime(first))")
                Output.line("last:     \(isoTime(last))")
                Output.line("duration: \(relativeTime(last, since: first).dropFirst()) s")
            }
        }
        try finish(fault)
    }
}

/// Opens a capture, turning "cannot open" into exit code 2 with the reason.
func openCapture(_ path: String) throws -> CaptureReader {
    do {
        return try CaptureReader(path: path)
    } catch {
        Output.error("\(error)")
        throw Exit.badInput
    }
}

/// Flushes output, then reports a fault met after some records were shown (exit code 1).
func finish(_ fault: (any Error)?) throws {
    Output.flush()
    if let fault {
        Output.error("\(fault)")
        throw Exit.finding
    }
}
