import ArgumentParser
import BLETrace
import Foundation
import SystemPackage

/// `bletrace convert IN -o OUT`: the same records in another format, with nothing lost silently.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite a capture as btsnoop, pcap, pcapng or PacketLogger, reporting whatever the target cannot hold.",
        discussion: """
            The target format is --to, else the extension of the file -o names: .btsnoop, .log or .cfa (btsnoop), .pcap, .pcapng, .pklg. \
            The datalink is --datalink, else the source's when the target can hold it (pcap and pcapng share link types; \
            btsnoop 2001 and pcap 254 are both the Linux monitor), else 1002 for btsnoop and 201 for pcap and pcapng. \
            A rewrite in the source's own format and datalink keeps its header fields and is byte-identical \
            (Formats/ names the few header variants that are not kept).

            What the target cannot hold (a PacketLogger note in an H4 file, a controller index, a direction, a time out of \
            range) is listed on standard error, counted by reason. A damaged source is converted up to its fault.

            Exit codes: 0 every record carried whole; 1 something could not be carried, or the source is damaged after the \
            records written (all of them are in the -o file); 2 bad input (usage, unreadable IN, -o not writable).
            """)

    @Argument(help: ArgumentHelp("The capture to read.", valueName: "IN"), completion: .path) var input: String
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The file to write; created, or replaced whole if it exists (written beside it, then renamed). Never IN. - is standard output (with --to).",
            valueName: "file"),
        completion: .path)
    var output: String?
    /// `convert IN OUT`, the spelling before `-o`: kept for the scripts that use it.
    @Argument(help: ArgumentHelp("The file to write (the same as -o).", valueName: "OUT", visibility: .hidden), completion: .path)
    var outputOperand: String?
    @Option(help: "Target format: btsnoop, pcap, pcapng or pklg (default: from the -o file's extension).") var to: Family?
    @Option(help: "btsnoop datalink 1001, 1002 or 2001; pcap/pcapng link type 187, 201 or 254.", completion: .datalinks) var datalink: Int?
    @Option(help: ArgumentHelp("In a container (bug report zip, sysdiagnose, gzip): the capture to convert (default: the current log).", valueName: "path"), completion: .members)
    var member: String?

    enum Family: String, ExpressibleByArgument, CaseIterable {
        case btsnoop, pcap, pcapng, pklg

        init?(extensionOf path: String) {
            switch FilePath(path).extension?.lowercased() {
            case "btsnoop", "log", "cfa": self = .btsnoop
            case "pcap": self = .pcap
            case "pcapng": self = .pcapng
            case "pklg": self = .pklg
            default: return nil
            }
        }

        var datalinks: [Int] {
            switch self {
            case .btsnoop: [1001, 1002, 2001]
            case .pcap, .pcapng: [187, 201, 254]
            case .pklg: []
            }
        }
    }

    var family: Family? { to ?? Family(extensionOf: out) }

    /// The file to write: -o, or OUT.
    var out: String { output ?? outputOperand ?? "-" }

    func validate() throws {
        guard (output == nil) != (outputOperand == nil) else {
            throw ValidationError(output == nil ? "missing the file to write: -o FILE (- is standard output)" : "give the file to write once: -o \(output!) or OUT, not both")
        }
        guard let family else {
            throw ValidationError(
                "cannot tell the target format from '\(out)': give --to btsnoop|pcap|pcapng|pklg, or name it .btsnoop, .log, .cfa, .pcap, .pcapng or .pklg")
        }
        if let datalink {
            guard family != .pklg else { throw ValidationError("--datalink: PacketLogger files have no datalink") }
            guard family.datalinks.contains(datalink) else {
                throw ValidationError(
                    "--datalink \(datalink): \(family.rawValue) is written with \(family.datalinks.map(String.init).joined(separator: ", "))")
            }
        }
        // `- -` reads standard input and writes standard output.
        guard input != out || out == "-" else { throw ValidationError("-o \(out) is IN: convert never overwrites its input") }
    }

    /// The target format: the family, with --datalink or the default for the source.
    func target(for source: CaptureFormat) -> CaptureFormat {
        let family = family!
        let chosen =
            datalink
            ?? {
                let monitor = source.datalink == 2001 || source.datalink == 254
                switch (family, source) {
                case (.btsnoop, .btsnoop(let datalink)): return Int(datalink)
                case (.pcap, .pcap(let linkType)), (.pcap, .pcapng(let linkType)),
                    (.pcapng, .pcap(let linkType)), (.pcapng, .pcapng(let linkType)):
                    return Int(linkType)
                case (.btsnoop, _): return monitor ? 2001 : 1002
                default: return monitor ? 254 : 201
                }
            }()
        switch family {
        case .btsnoop: return .btsnoop(datalink: UInt32(chosen))
        case .pcap: return .pcap(linkType: Int32(chosen))
        case .pcapng: return .pcapng(linkType: Int32(chosen))
        case .pklg: return .packetLogger
        }
    }

    func run() throws {
        // Standard input is kept in a file first, as by every command; a container's member is
        // read from where it was unpacked.
        let source = try CaptureOptions.path(of: input, member: member)
        let reader = try openCapture(source)
        let format = target(for: reader.format)
        let file: OutputFile
        let writer: CaptureWriter
        do {
            file = try OutputFile.prepare(out, inputs: [input])
            let options = format == reader.format ? CaptureWriter.Options.matching(source) : CaptureWriter.Options()
            do {
                writer = try CaptureWriter(path: file.writePath, format: format, options: options)
            } catch {
                file.discard()
                throw error
            }
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        var fault: (any Error)?
        while true {
            let record: CaptureRecord?
            do { record = try reader.next() } catch {
                fault = error
                break
            }
            guard let record else { break }
            do { try writer.write(record) } catch {
                try? writer.close()
                file.discard()
                Output.error("\(error)")
                throw Exit.badInput
            }
        }
        do {
            try writer.close()
            try file.commit()
        } catch {
            file.discard()
            Output.error("\(error)")
            throw Exit.badInput
        }

        let written = writer.recordsWritten
        // With OUT `-` the capture is on standard output: the summary goes beside the messages.
        let summary: (String) -> Void = file.isStandardOutput ? { Output.standardError($0 + "\n") } : { Output.line($0) }
        summary("\(input) (\(reader.format)) → \(out) (\(format)): \(written) record\(written == 1 ? "" : "s") written")
        if !writer.losses.isEmpty {
            var report = "\(out): what \(format) cannot hold, by reason"
            if writer.recordsNotWritten > 0 {
                report += " (\(writer.recordsNotWritten) record\(writer.recordsNotWritten == 1 ? "" : "s") not written)"
            }
            report += ":"
            let sorted = writer.losses.sorted { $0.value != $1.value ? $0.value > $1.value : "\($0.key)" < "\($1.key)" }
            for (loss, count) in sorted {
                report += "\n  \(count) record\(count == 1 ? "" : "s"): \(loss)"
            }
            Output.error(report)
        }
        try finish(fault)
        if !writer.losses.isEmpty { throw Exit.finding }
    }
}
