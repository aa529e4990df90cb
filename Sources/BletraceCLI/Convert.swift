import ArgumentParser
import BLETrace
import Foundation
import SystemPackage

/// `bletrace convert IN -o OUT`: the same records in another format, with nothing lost silently.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract:
            "Rewrite a capture as btsnoop, pcap, pcapng or PacketLogger, reporting whatever the target cannot hold.",
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
    @Argument(
        help: ArgumentHelp("The file to write (the same as -o).", valueName: "OUT", visibility: .hidden),
        completion: .path)
    var outputOperand: String?
    @Option(help: "Target format: btsnoop, pcap, pcapng or pklg (default: from the -o file's extension).") var to:
        Family?
    @Option(help: "btsnoop datalink 1001, 1002 or 2001; pcap/pcapng link type 187, 201 or 254.", completion: .datalinks)
    var datalink: Int?
    @Option(
        help: ArgumentHelp(
            "In a container (bug report zip, sysdiagnose, gzip): the capture to convert (default: the current log).",
            valueName: "path"), completion: .members)
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
            throw ValidationError(
                output == nil
                    ? "missing the file to write: -o FILE (- is standard output)"
                    : "give the file to write once: -o \(output!) or OUT, not both")
        }
        guard let family else {
            throw ValidationError(
                "cannot tell the target format from '\(out)': give --to btsnoop|pcap|pcapng|pklg, or name it .btsnoop, .log, .cfa, .pcap, .pcapng or .pklg"
            )
        }
        if let datalink {
            guard family != .pklg else { throw ValidationError("--datalink: PacketLogger files have no datalink") }
            guard family.datalinks.contains(datalink) else {
                throw ValidationError(
                    "--datalink \(datalink): \(family.rawValue) is written with \(family.datalinks.map(String.init).joined(separator: ", "))"
                )
            }
        }
        // `- -` reads standard input and writes standard output.
        guard input != out || out == "-" else {
            throw ValidationError("-o \(out) is IN: convert never overwrites its input")
        }
    }

    /// The target format: the family, with --datalink or the default for the source.
    func target(for source: CaptureFormat) -> CaptureFormat {
        Self.target(family: family!, datalink: datalink, for: source)
    }

    /// `family` written with `datalink`, else the source's when the family can hold it, else
    /// 1002 (btsnoop) or 201 (pcap, pcapng), or the Linux monitor's for a monitor source.
    static func target(family: Family, datalink: Int?, for source: CaptureFormat) -> CaptureFormat {
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
        let (writer, fault) = try CaptureRewrite.write(reader, source: source, input: input, to: out, as: format) { $0 }
        let written = writer.recordsWritten
        CaptureRewrite.summary(
            "\(input) (\(reader.format)) → \(out) (\(format)): \(Wording.count(written, "record")) written",
            to: out)
        CaptureRewrite.reportLosses(writer, out: out, format: format)
        try finish(fault)
        if !writer.losses.isEmpty { throw Exit.finding }
    }
}
