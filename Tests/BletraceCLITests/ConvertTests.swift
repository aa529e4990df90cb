import Foundation
import TestSupport
import Testing
import TraceFiles
import Wire

/// `bletrace convert IN OUT`, run as a user runs it: the target from the extension or --to, the
/// report of what could not be carried, exit codes 0 / 1 / 2, damaged sources, the input kept.
@Suite struct ConvertTests {
    static let attErrors = Fixtures.capture("att-errors.btsnoop")
    static let bigEndianPacketLogger = Fixtures.publicCapture("fotonick-hciparse-test00.pklg")
    static let iPhonePacketLogger = Fixtures.publicCapture("elkusbry-peripage.pklg")

    /// A path in a fresh temporary folder (the file does not exist yet).
    static func output(_ name: String) throws -> String {
        let path = try Fixtures.temporaryFile([], name: name)
        try FileManager.default.removeItem(atPath: path)
        return path
    }

    @Test func takesTheTargetFormatFromTheExtensionAndExitsZeroWhenEverythingIsCarried() throws {
        let out = try Self.output("errors.pcapng")
        let result = try bletrace("convert", Self.attErrors, out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout.contains("→ \(out) (pcapng, link type 201 (BLUETOOTH_HCI_H4_WITH_PHDR)): 100 records written")
        )
        #expect(try CaptureReader(path: out).format == .pcapng(linkType: 201))
        let (records, fault) = try Fixtures.readAll(out)
        #expect(fault == nil)
        #expect(records.map(\.timestamp) == (try Fixtures.readAll(Self.attErrors).records.map(\.timestamp)))
    }

    @Test(arguments: [
        ("out.btsnoop", "btsnoop"), ("out.log", "btsnoop"), ("out.cfa", "btsnoop"), ("out.pcap", "pcap"),
        ("out.PKLG", "pklg"),
    ])
    func namesTheTargetFormatByExtension(name: String, format: String) throws {
        let out = try Self.output(name)
        let result = try bletrace("convert", Self.attErrors, out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CaptureReader(path: out).format.name == format)
    }

    @Test(.sharedCaptures) func rewritesACaptureInItsOwnFormatByteForByte() throws {
        let out = try Self.output("copy.pklg")
        let result = try bletrace("convert", Self.bigEndianPacketLogger, out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Fixtures.contents(out) == Fixtures.contents(Self.bigEndianPacketLogger))
    }

    @Test func letsToOverrideTheExtension() throws {
        let out = try Self.output("trace.dat")
        let result = try bletrace("convert", Self.attErrors, out, "--to", "pcap", "--datalink", "254")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CaptureReader(path: out).format == .pcap(linkType: 254))
    }

    @Test(arguments: [
        // (arguments after IN, what stderr must say)
        (["trace.dat"], "--to"),
        (["out.pcap", "--datalink", "1002"], "--datalink 1002: pcap is written with 187, 201, 254"),
        (["out.pklg", "--datalink", "201"], "PacketLogger files have no datalink"),
        (["out.btsnoop", "--to", "snoop"], "snoop"),
    ])
    func refusesArgumentsItCannotUseAsUsageErrors(arguments: [String], message: String) throws {
        let out = try Self.output(arguments[0])
        let result = try run(bletracePath, ["convert", Self.attErrors, out] + arguments.dropFirst())
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func neverOverwritesItsInputNamedTheSameOrThroughALink() throws {
        let original = try Fixtures.contents(Self.attErrors)
        let input = try Fixtures.temporaryFile(original, name: "in.btsnoop")
        let same = try bletrace("convert", input, input)
        #expect(same.status == 2)
        #expect(same.stderr.contains("never overwrites its input"))
        let link = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("link.pcap").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        let linked = try bletrace("convert", input, link)
        #expect(linked.status == 2)
        #expect(linked.stderr.contains("is the input file"))
        #expect(try Fixtures.contents(input) == original)
    }

    @Test(.sharedCaptures) func reportsWhatTheTargetCannotHoldByReasonAndExitsOne() throws {
        let out = try Self.output("notes.btsnoop")
        let result = try bletrace("convert", Self.bigEndianPacketLogger, out)
        #expect(result.status == 1)
        #expect(result.stdout.contains("2052 records written"))
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "bletrace: \(out): what btsnoop, datalink 1002 (HCI UART (H4)) cannot hold, by reason (187 records not written):"
        )
        #expect(
            Array(lines.dropFirst()) == [
                "  159 records: not written: a PacketLogger kernel record (type 0xf8); btsnoop 1002 holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)",
                "  21 records: not written: a PacketLogger power record (type 0xfb); btsnoop 1002 holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)",
                "  6 records: not written: a PacketLogger record (type 0x0a); btsnoop 1002 holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)",
                "  1 record: not written: a PacketLogger note record (type 0xfc); btsnoop 1002 holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)",
            ])
        // Every HCI record is there.
        #expect(try Fixtures.readAll(out).records.count == 2239 - 187)
    }

    @Test(.sharedCaptures) func reportsTimesBefore1970ThatPacketLoggerCannotHold() throws {
        let out = try Self.output("old.pklg")
        let result = try bletrace("convert", Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop"), out)
        #expect(result.status == 1)
        #expect(result.stderr.contains("1147 records: timestamp not kept: PacketLogger holds times from 1970 to 2106"))
        #expect(try Fixtures.readAll(out).records.count == 1147)
    }

    @Test(.sharedCaptures) func carriesPacketLoggerNotesIntoALinuxMonitorTargetAndExitsZero() throws {
        let out = try Self.output("notes.btsnoop")
        let result = try bletrace("convert", Self.iPhonePacketLogger, out, "--datalink", "2001")
        #expect(result.status == 0, "\(result.stderr)")
        let (records, _) = try Fixtures.readAll(out)
        #expect(records.count == 721)
        #expect(records[0].note == "system note: Product: iPhone17,1")
        #expect(records.filter { $0.kind == .other }.count == 11)
    }

    @Test(.sharedCaptures) func keepsALinuxMonitorSourceInTheLinuxMonitorLinkTypeByDefault() throws {
        let monitor = try Self.output("monitor.btsnoop")
        #expect(try bletrace("convert", Self.iPhonePacketLogger, monitor, "--datalink", "2001").status == 0)
        let out = try Self.output("monitor.pcap")
        let result = try bletrace("convert", monitor, out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CaptureReader(path: out).format == .pcap(linkType: 254))
    }

    @Test func convertsADamagedSourceUpToItsFaultSaysWhereAndExitsOne() throws {
        let original = try Fixtures.contents(Self.attErrors)
        let (records, _) = try Fixtures.readAll(Self.attErrors)
        let lastStart = Int(records[records.count - 1].fileOffset)
        // Cut the last record short, as when the capturing process is killed mid-write.
        let damaged = try Fixtures.temporaryFile(Array(original.dropLast(3)), name: "damaged.btsnoop")

        let same = try Self.output("rescued.btsnoop")
        let result = try bletrace("convert", damaged, same)
        #expect(result.status == 1)
        #expect(result.stdout.contains("99 records written"))
        #expect(result.stderr.contains("\(damaged): frame 100: btsnoop at byte offset \(lastStart + 24): expected"))
        // Every good record, as it was.
        #expect(try Fixtures.contents(same) == Array(original[..<lastStart]))

        let other = try Self.output("rescued.pcapng")
        let converted = try bletrace("convert", damaged, other)
        #expect(converted.status == 1)
        let (rescued, fault) = try Fixtures.readAll(other)
        #expect(fault == nil)
        #expect(rescued.map(\.bytes) == records.dropLast().map(\.bytes))
    }

    @Test func aMissingInputIsBadInput() throws {
        let out = try Self.output("out.pcap")
        let result = try bletrace("convert", "/nonexistent/in.btsnoop", out)
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/in.btsnoop: cannot read: no such file"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(arguments: ["out.btsnoop", "out.pcap", "out.pcapng", "out.pklg"])
    func anOutputThatCannotBeCreatedIsBadInput(name: String) throws {
        let out = "/nonexistent-\(UUID().uuidString)/\(name)"
        let result = try bletrace("convert", Self.attErrors, out)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(out): cannot write: "), "\(result.stderr)")
    }
}
