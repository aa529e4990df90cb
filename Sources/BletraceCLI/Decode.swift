import ArgumentParser
import BLETrace
import Foundation

/// `bletrace decode FILE`: every record, decoded, one line each.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode every record: HCI commands and events, ACL, L2CAP, ATT.",
        discussion:
            "Records are numbered from 1, as Wireshark numbers frames. --format jsonl writes one JSON object per record, --format json one document with them all (Formats/json.md)."
    )

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json or jsonl (one record per line).") var format: OutputFormat = .text
    @Flag(name: .shortAndLong, help: "Show every field of every layer under each record's line.") var verbose = false
    @Option(
        help: ArgumentHelp(
            "Show only matching records; repeat to require several.",
            discussion:
                "Tests joined with and, or, not and parentheses: att.error, att.error==0x05, att.opcode==0x0a, att.handle==0x14, hci.handle==0x40, hci.reason==0x08, hci.opcode==0x200d, hci.event==0x3e, peer==AA:BB:CC:DD:EE:FF or peer==\"name\", time>=12.5 (seconds from the first record), frame<100, direction==sent, and the kinds command, event, acl, l2cap, att, smp, error. Wireshark's names work too (btatt.error_code, bthci_acl.chandle, …). Numbers decimal or 0x-hex.",
            valueName: "filter"),
        completion: .filterFields)
    var filter: [String] = []

    func validate() throws {
        if verbose, format != .text {
            throw ValidationError(
                "-v adds every field under each text line; --format \(format.rawValue) has its own fields (Formats/json.md)"
            )
        }
        for text in filter { _ = try Self.parse(text) }
    }

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions

    /// The filter `text` says, or the message that says what is wrong with it and where.
    static func parse(_ text: String) throws -> RecordFilter {
        do {
            return try RecordFilter(parsing: text)
        } catch let error as RecordFilter.SyntaxError {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let filters = try filter.map(Self.parse) + [RecordFilter(selection.criteria)].compactMap { $0 }
        let path = try capture.path
        let reader = try openAnalysis(path)
        if let linkType = reader.format.linkLayerType {
            guard filters.isEmpty else {
                Output.error(
                    "\(path): --filter and the selection options (--peer, --transport, --from, --to) do not apply to link-layer captures yet; decode the whole file"
                )
                throw Exit.badInput
            }
            return try decodeLinkLayer(
                reader.capture, linkType: linkType, keys: air.options.keys, format: format, verbose: verbose,
                brief: selection.brief)
        }
        // Each record decoded whole, the lifecycles alongside so that each ATT response is read
        // knowing its request.
        var lines = DecodeLines(
            filters: filters, format: format, verbose: verbose, brief: selection.brief, colored: Style.enabled)
        if format == .json { lines.buffer.text("{\"records\":[\n") }
        let pass = readCapture(
            reader, output: output,
            analysis: CaptureAnalyzer(diagnosing: false, wholeRecords: true), selection: selection.criteria,
            streamsOutput: true, into: &lines)
        Output.write(&lines.buffer)
        _ = selection.warnIfPeerMatchesNothing(pass.analysis.lifecycle.connections, names: pass.names, path: path)
        if format == .json {
            Output.line("],\"file\":\(CaptureBatch.fileMember(capture.file)),\"version\":\(jsonVersion)}")
        }
        try finish(pass.fault)
    }
}

/// `decode`'s lines: each record the filters keep, written into one reused buffer by the
/// formatter of the output (``DecodeLineFormatter`` for text, and ``DecodeVerboseFormatter``
/// under it with `-v`; ``DecodeJSONFormatter`` for JSON), handed to the output every 64 KB.
private struct DecodeLines: RecordCollector, ~Copyable {
    let filters: [RecordFilter]
    // The options, read once: each read of an argument-parser property costs a metadata lookup,
    // too much once a record.
    let format: OutputFormat
    let verbose: Bool
    let brief: Bool
    let colored: Bool
    var buffer = LineBuffer()
    /// --format json: one object, its records written one at a time as they are decoded.
    var written = 0

    init(filters: [RecordFilter], format: OutputFormat, verbose: Bool, brief: Bool, colored: Bool) {
        (self.filters, self.format, self.verbose, self.brief, self.colored) = (filters, format, verbose, brief, colored)
    }

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        let decoded = analysis.decoded
        let answering = analysis.lifecycle.lastAnswered
        let origin = analysis.origin!
        if brief, RecordFilter.isNoise(decoded) { return }
        if !filters.isEmpty {
            // A record the filters reject is never formatted.
            let context = RecordFilter.Context(analyzer: analysis.lifecycle, origin: origin)
            let record = copy record
            guard filters.allSatisfy({ $0.matches(record, decoded, context) }) else { return }
        }
        switch format {
        case .json:
            if written > 0 { buffer.byte(UInt8(ascii: ",")) }
            DecodeJSONFormatter.write(record, decoded, answering: answering, version: nil, to: &buffer)
            written += 1
        case .jsonl:
            DecodeJSONFormatter.write(record, decoded, answering: answering, version: jsonVersion, to: &buffer)
        case .text:
            // With colour, a failure (what the filter `error` selects) is red.
            let failure = colored && RecordFilter.isFailure(decoded)
            if failure { buffer.text("\u{1B}[31m") }
            DecodeLineFormatter.write(record, decoded, answering: answering, origin: origin, to: &buffer)
            if failure {
                // The reset goes before the line end.
                buffer.set(buffer.count - 1, 0x1B)
                buffer.text("[0m\n")
            }
            if verbose { DecodeVerboseFormatter.write(record, decoded, to: &buffer) }
        }
        if buffer.count >= 1 << 16 { Output.write(&buffer) }
    }
}

/// `bletrace decode` of an over-the-air capture (pcap/pcapng link types 251, 256, 272): every
/// record through ``LinkLayerDecoder``, as text (one line each, `-v` every field under it) or
/// JSON (Formats/json.md, "Link-layer records"). Output is built per record with the
/// straightforward writers: sniffer captures are small next to HCI logs, and the decoding itself
/// allocates nothing.
func decodeLinkLayer(
    _ reader: CaptureReader, linkType: Int32, keys: [[UInt8]], format: OutputFormat, verbose: Bool, brief: Bool
) throws {
    var decoder = LinkLayerDecoder(linkType: linkType, keys: keys)
    var origin: Timestamp?
    var fault: (any Error)?
    var written = 0
    let encoder = Output.encoder(pretty: false)
    if format == .json { Output.text("{\"records\":[\n") }
    do {
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            if origin == nil { origin = record.timestamp }
            // --brief leaves out the Empty PDUs a connection is mostly made of.
            if brief, case .data(let pdu) = decoded.packet?.pdu, pdu.isEmpty, decoded.fault == nil { continue }
            switch format {
            case .text:
                Output.line(describeLinkLayer(record, decoded, origin: origin!))
                if verbose { for line in linkLayerDetail(record, decoded) { Output.line(line) } }
            case .json, .jsonl:
                let object = JSONLinkLayerRecord(record, decoded, version: format == .jsonl ? jsonVersion : nil)
                let data = try encoder.encode(object)
                if format == .json, written > 0 { Output.text(",") }
                Output.text(String(decoding: data, as: UTF8.self) + (format == .jsonl ? "\n" : ""))
                written += 1
            }
        }
    } catch let error as EncodingError {
        throw error
    } catch { fault = error }
    if format == .json { Output.line("],\"version\":\(jsonVersion)}") }
    try finish(fault)
}
