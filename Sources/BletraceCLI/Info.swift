import ArgumentParser
import BLETrace

/// `bletrace info FILE`: what a capture is, how many records it holds, and the time it spans.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what a capture is: format, datalink, record count, time span.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var output: OutputOptions

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        let reader = try openCapture(path, linkLayer: true)
        var kinds: [PacketKind: Int] = [:]
        var first: Timestamp?
        var last: Timestamp?
        var fault: (any Error)?
        // An over-the-air capture's records are counted by what the link-layer decoder makes of them.
        var linkLayer = reader.format.linkLayerType.map { LinkLayerDecoder(linkType: $0) }
        var airKinds = [("advertising", 0), ("data", 0), ("undecodable", 0)]
        do {
            while let record = try reader.next() {
                if linkLayer != nil {
                    let decoded = linkLayer!.decode(record.bytes, time: record.timestamp, index: record.index)
                    switch decoded.packet?.pdu {
                    case .advertising: airKinds[0].1 += 1
                    case .data: airKinds[1].1 += 1
                    case nil: airKinds[2].1 += 1
                    }
                } else {
                    kinds[record.kind, default: 0] += 1
                }
                if first == nil { first = record.timestamp }
                last = record.timestamp
            }
        } catch { fault = error }

        var info =
            linkLayer == nil
            ? CaptureInfo(file: capture.file, format: reader.format, kinds: kinds, first: first, last: last, fault: fault)
            : CaptureInfo(file: capture.file, format: reader.format, linkLayerKinds: airKinds, first: first, last: last, fault: fault)
        if let container = try ContainerInputs.open(try CaptureOptions.standardInputPath(of: capture.file)) {
            info.container = ContainerListing(container, reading: path)
        }
        if format != .text {
            try Output.json(info, pretty: format == .json)
        } else {
            // With colour, each label is bold.
            info.write { line in Output.line(Style.boldLabel(line)) }
        }
        try finish(fault)
    }
}

/// Opens a capture, turning "cannot open" into exit code 2 with the reason. `linkLayer`: the
/// command reads over-the-air captures too (`info`, `decode`); the others refuse them by name.
func openCapture(_ path: String, linkLayer: Bool = false) throws -> CaptureReader {
    do {
        return try CaptureReader(path: path, linkLayer: linkLayer)
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
