import ArgumentParser
import BLETrace
import Foundation

/// `bletrace redact IN -o OUT`: a copy of a capture that is safe to share (Formats/redact.md).
struct RedactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract:
            "Write a copy of a capture that is safe to share: addresses replaced, keys and pairing secrets removed, names and values on request.",
        discussion: """
            Every Bluetooth address is replaced by another of the same kind (public, static random, resolvable or \
            non-resolvable private), the same one each time, wherever it appears: HCI commands and events, advertising \
            reports, SMP identity addresses, link-layer headers of over-the-air captures, notes. Keys and pairing secrets \
            are zeroed: LTK, EDIV/Rand, IRK, CSRK, link keys, confirm and random values, public keys, DHKey checks, \
            passkeys. Lengths, handles, opcodes, timing and records stay, so every analysis of OUT tells IN's story under \
            the address mapping. The replacements come from a key made for the run: nobody can go back from them without \
            the mapping, which only --manifest with --keep-mapping writes. Formats/redact.md says field by field what is \
            replaced and what stays.

            The format of OUT is --to, else its extension, as for convert; an over-the-air capture is written as pcap or \
            pcapng with its own link type, its CRCs computed again. A record bletrace cannot read far enough to know it is \
            safe is dropped, and said.

            Exit codes: 0 every record written; 1 records were dropped, or the source is damaged after the records written; \
            2 bad input.
            """)

    @Argument(help: ArgumentHelp("The capture to read.", valueName: "IN"), completion: .path) var input: String
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The file to write; created, or replaced whole if it exists. Never IN. - is standard output (with --to).",
            valueName: "file"),
        completion: .path)
    var output: String?
    @Option(help: "Target format: btsnoop, pcap, pcapng or pklg (default: from the -o file's extension).") var to:
        Convert.Family?
    @Option(help: "btsnoop datalink 1001, 1002 or 2001; pcap/pcapng link type 187, 201 or 254.", completion: .datalinks)
    var datalink: Int?
    @Option(
        help: ArgumentHelp(
            "In a container (bug report zip, sysdiagnose, gzip): the capture to redact (default: the current log).",
            valueName: "path"), completion: .members)
    var member: String?
    @Flag(
        help:
            "Replace device names too: local names in advertising, GAP Device Name values, HCI local and remote names.")
    var names = false
    @Flag(help: "Zero values too: ATT values, manufacturer and service data, L2CAP channel, SCO and ISO payloads.")
    var values = false
    @Option(
        help: ArgumentHelp(
            "With --values: the characteristics and descriptors whose values stay, as UUIDs (2A37,180F,...).",
            valueName: "uuids"))
    var allow: String?
    @Option(
        help: ArgumentHelp("Write what was replaced and removed, counted, to this JSON file.", valueName: "file"),
        completion: .path)
    var manifest: String?
    @Flag(
        help:
            "Put the address mapping in the manifest (for the capture's owner only: it undoes the redaction of addresses)."
    )
    var keepMapping = false
    @Option(
        help: ArgumentHelp(
            "Derive the replacements from this number: the same input and seed give the same output (tests; anyone who knows the seed can test a guessed address).",
            valueName: "n"))
    var seed: UInt64?

    var out: String { output ?? "-" }

    func validate() throws {
        guard output != nil else { throw ValidationError("missing the file to write: -o FILE (- is standard output)") }
        guard let family = to ?? Convert.Family(extensionOf: out) else {
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
        guard input != out || out == "-" else {
            throw ValidationError("-o \(out) is IN: redact never overwrites its input")
        }
        if keepMapping, manifest == nil {
            throw ValidationError("--keep-mapping puts the mapping in the manifest: give --manifest FILE")
        }
        if allow != nil, !values { throw ValidationError("--allow names the values --values keeps: give --values") }
        _ = try allowed()
    }

    /// The UUIDs of --allow.
    func allowed() throws -> Set<BluetoothUUID> {
        guard let allow else { return [] }
        var uuids: Set<BluetoothUUID> = []
        for text in allow.split(separator: ",") {
            guard let uuid = BluetoothUUID(parsing: text.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError(
                    "--allow: '\(text)' is not a UUID (2A37, 0000180F, or 0000180F-0000-1000-8000-00805F9B34FB)")
            }
            uuids.insert(uuid)
        }
        return uuids
    }

    func run() throws {
        let source = try CaptureOptions.path(of: input, member: member)
        let reader = try openCapture(source, linkLayer: true)
        let family = to ?? Convert.Family(extensionOf: out)!
        let format: CaptureFormat
        let airType = reader.format.linkLayerType
        if let airType {
            // An over-the-air capture has no HCI form to be written in: it keeps its link type.
            guard family == .pcap || family == .pcapng, datalink == nil || datalink == Int(airType) else {
                Output.error(
                    "\(input) is an over-the-air capture (link type \(airType)): it is written as pcap or pcapng with that link type"
                )
                throw Exit.badInput
            }
            format = family == .pcap ? .pcap(linkType: airType) : .pcapng(linkType: airType)
        } else {
            format = Convert.target(family: family, datalink: datalink, for: reader.format)
        }
        let options = RedactionOptions(names: names, values: values, allow: try allowed(), seed: seed)
        let redactor = Redactor(options: options, airLinkType: airType)
        // A first reading (a scout: it reads the fields, searches and writes nothing) learns every
        // address in the fields bletrace knows, so that the second finds them in bytes it has no
        // layout for wherever they come (Formats/redact.md). A fault is met, and said, by the second.
        let scout = Redactor(options: options, airLinkType: airType, scouting: true)
        try? openCapture(source, linkLayer: true).forEach { _ = scout.redact(copy $0) }
        redactor.knowAddresses(of: scout)
        var read = 0
        let (writer, fault) = try CaptureRewrite.write(reader, source: source, input: input, to: out, as: format) {
            record in
            read += 1
            return redactor.redact(record)
        }
        let tally = redactor.tally
        let written = writer.recordsWritten
        var line =
            "\(input) (\(reader.format)) → \(out) (\(format)): \(Wording.count(written, "record")) written; "
        line += "\(Wording.count(redactor.addresses.count, "address", plural: "addresses")) replaced"
        let removed = tally.removed.values.reduce(0, +)
        line += ", \(Wording.count(removed, "secret field")) zeroed"
        if names { line += ", \(Wording.count(tally.namesReplaced, "name")) replaced" }
        if values { line += ", \(Wording.count(tally.valuesZeroed, "value")) zeroed" }
        CaptureRewrite.summary(line, to: out)
        if tally.droppedCount > 0 {
            var report =
                "\(out): \(Wording.count(tally.droppedCount, "record")) of \(read) dropped, not read far enough to be known safe:"
            for (reason, count) in tally.dropped.sorted(by: {
                $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
            }) {
                report += "\n  \(Wording.count(count, "record")): \(reason)"
            }
            if let first = tally.firstDropped.first {
                report += "\n  the first: record \(first.record) at byte \(first.offset)"
            }
            Output.error(report)
        }
        CaptureRewrite.reportLosses(writer, out: out, format: format)
        if let manifest {
            let document = RedactionManifest(
                input: input, output: out, format: "\(format)", recordsRead: read, recordsWritten: written,
                options: options,
                tally: tally, addresses: redactor.addresses, mapping: keepMapping)
            do {
                let file = try OutputFile.prepare(manifest, inputs: [input, out])
                var bytes = [UInt8](try ReportJSON.encoder(pretty: true).encode(document))
                bytes.append(0x0A)
                try file.replaceContents(with: bytes)
            } catch {
                Output.error("\(error)")
                throw Exit.badInput
            }
        }
        try finish(fault)
        if tally.droppedCount > 0 || !writer.losses.isEmpty { throw Exit.finding }
    }
}
