import Foundation
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// The writers, one format at a time: header and record bytes checked against layouts written
/// by hand from Formats/*.md (not from our own output), records read back equal, and every
/// kind of loss reported rather than dropped.
@Suite struct WriterTests {
    /// A record to write, owning its bytes.
    struct Sample {
        var kind: PacketKind
        var direction: Direction?
        var bytes: [UInt8]
        /// 2023-11-14T22:13:20.123456Z.
        var time: Int64 = 1_700_000_000_123_456
        var controller: UInt16?
        var sourceType: CaptureRecord.SourceType?
        var flags: CaptureRecord.BTSnoopFlags?
        var originalLength: Int?

        func withRecord<T>(_ body: (CaptureRecord) throws -> T) rethrows -> T {
            try bytes.withUnsafeBytes { buffer in
                try body(
                    CaptureRecord(
                        index: 0, fileOffset: 0, timestamp: Timestamp(microseconds: time), direction: direction,
                        kind: kind, controllerIndex: controller, originalLength: originalLength ?? bytes.count,
                        bytes: buffer, sourceType: sourceType, btsnoopFlags: flags))
            }
        }
    }

    static let reset = Sample(kind: .command, direction: .sent, bytes: packet("03 0C 00"))
    static let resetComplete = Sample(kind: .event, direction: .received, bytes: packet("0E 04 01 03 0C 00"))
    static let aclSent = Sample(kind: .acl, direction: .sent, bytes: packet("40 00 05 00 01 00 04 00 1E"))
    static let aclReceived = Sample(kind: .acl, direction: .received, bytes: packet("40 20 05 00 01 00 04 00 1F"))
    static let scoSent = Sample(kind: .sco, direction: .sent, bytes: packet("01 00 03 AA BB CC"))
    static let isoReceived = Sample(kind: .iso, direction: .received, bytes: packet("60 00 05 00 01 02 03 04 05"))
    static let everyKind = [reset, resetComplete, aclSent, aclReceived, scoSent, isoReceived]

    static let targets: [CaptureFormat] = [
        .btsnoop(datalink: 1001), .btsnoop(datalink: 1002), .btsnoop(datalink: 2001),
        .pcap(linkType: 187), .pcap(linkType: 201), .pcap(linkType: 254),
        .pcapng(linkType: 187), .pcapng(linkType: 201), .pcapng(linkType: 254), .packetLogger,
    ]

    /// A fresh path in a temporary folder.
    static func outputPath(_ name: String = "out.bin") throws -> String {
        try Fixtures.temporaryFile([], name: name)
    }

    /// A fresh path named for `format` (tshark picks its reader by the extension first, and
    /// takes a PacketLogger file named `.bin` for something else).
    static func outputPath(for format: CaptureFormat) throws -> String {
        try outputPath("out." + (format == .packetLogger ? "pklg" : format.name))
    }

    /// Writes `samples` and returns the file's path, the writer (closed) and each record's losses.
    static func write(
        _ samples: [Sample], as format: CaptureFormat, options: CaptureWriter.Options = .init()
    ) throws -> (path: String, writer: CaptureWriter, losses: [[CaptureWriter.Loss]]) {
        let path = try outputPath(for: format)
        let writer = try CaptureWriter(path: path, format: format, options: options)
        let losses = try samples.map { sample in try sample.withRecord { try writer.write($0) } }
        try writer.close()
        return (path, writer, losses)
    }

    // MARK: Bytes, by hand from the format documents

    @Test func writesABTSnoopH4HeaderAndRecordAsTheFormatDocumentLaysThemOut() throws {
        let (path, _, losses) = try Self.write([Self.resetComplete], as: .btsnoop(datalink: 1002))
        #expect(losses == [[]])
        #expect(
            try Fixtures.contents(path)
                == packet(
                    "62 74 73 6E 6F 6F 70 00",  // "btsnoop\0"
                    "00 00 00 01",  // version 1, big-endian
                    "00 00 03 EA",  // datalink 1002
                    "00 00 00 07 00 00 00 07",  // original and included length: H4 byte + 6
                    "00 00 00 03",  // flags: bit 0 received, bit 1 command/event
                    "00 00 00 00",  // cumulative drops
                    "00 E2 E7 D7 27 4F A2 40",  // 1,700,000,000,123,456 µs + 0x00DCDDB30F2F8000
                    "04 0E 04 01 03 0C 00"))  // H4 event indicator, Command Complete
    }

    @Test func writesH1FlagsForCommandsEventsAndDataWithoutAnIndicator() throws {
        let (path, _, losses) = try Self.write(
            [Self.reset, Self.resetComplete, Self.aclReceived], as: .btsnoop(datalink: 1001))
        #expect(losses == [[], [], []])
        let bytes = try Fixtures.contents(path)
        #expect(Array(bytes[12..<16]) == packet("00 00 03 E9"))  // datalink 1001
        // Record headers at 16, 16+24+3, 16+24+3+24+6; flags at +8.
        #expect(Array(bytes[16..<28]) == packet("00 00 00 03 00 00 00 03 00 00 00 02"))  // sent command: flags 2
        #expect(Array(bytes[40..<43]) == packet("03 0C 00"))  // no indicator
        #expect(Array(bytes[43 + 8..<43 + 12]) == packet("00 00 00 03"))  // received event
        #expect(Array(bytes[73 + 8..<73 + 12]) == packet("00 00 00 01"))  // received ACL
    }

    @Test func writesLinuxMonitorFlagsAsControllerIndexAndOpcode() throws {
        var acl = Self.aclReceived
        acl.controller = 1
        let (path, _, losses) = try Self.write([acl], as: .btsnoop(datalink: 2001))
        #expect(losses == [[]])
        let bytes = try Fixtures.contents(path)
        #expect(Array(bytes[12..<16]) == packet("00 00 07 D1"))  // datalink 2001
        #expect(Array(bytes[16..<28]) == packet("00 00 00 09 00 00 00 09 00 01 00 05"))  // index 1, opcode 5 ACL RX
        #expect(Array(bytes[40...]) == Self.aclReceived.bytes)  // no indicator
    }

    @Test(arguments: [
        // (link type, the packet's bytes as Formats/pcap.md lays them out)
        (Int32(187), "04 0E 04 01 03 0C 00"),  // H4 indicator, event
        (201, "00 00 00 01 04 0E 04 01 03 0C 00"),  // BE direction word 1 = received, then H4
        (254, "00 00 00 03 0E 04 01 03 0C 00"),  // BE adapter 0, BE opcode 3 = event, no indicator
    ])
    func writesAPcapHeaderAndRecordThroughLibpcap(linkType: Int32, expectedPacket: String) throws {
        let (path, _, losses) = try Self.write([Self.resetComplete], as: .pcap(linkType: linkType))
        #expect(losses == [[]])
        let link = Wire.hex(linkType, digits: 2, prefixed: false, uppercase: true)
        let length = Wire.hex(packet(expectedPacket).count, digits: 2, prefixed: false, uppercase: true)
        #expect(
            try Fixtures.contents(path)
                == packet(
                    "D4 C3 B2 A1",  // µs magic, written little-endian (this host's order)
                    "02 00 04 00",  // version 2.4
                    "00 00 00 00 00 00 00 00",  // reserved
                    "00 00 04 00",  // snap length 262,144
                    "\(link) 00 00 00",  // link type
                    "00 F1 53 65",  // seconds 1,700,000,000
                    "40 E2 01 00",  // microseconds 123,456
                    "\(length) 00 00 00 \(length) 00 00 00",  // captured, original
                    expectedPacket))
    }

    @Test func writesAPcapngSectionInterfaceAndEnhancedPacketBlock() throws {
        let (path, _, losses) = try Self.write([Self.aclSent], as: .pcapng(linkType: 201))
        #expect(losses == [[]])
        #expect(
            try Fixtures.contents(path)
                == packet(
                    // Section Header Block, 28 bytes, little-endian, no options.
                    "0A 0D 0D 0A", "1C 00 00 00", "4D 3C 2B 1A", "01 00 00 00",
                    "FF FF FF FF FF FF FF FF",  // section length unknown (-1)
                    "1C 00 00 00",
                    // Interface Description Block, 20 bytes: link type 201, snap length 262,144.
                    "01 00 00 00", "14 00 00 00", "C9 00 00 00", "00 00 04 00", "14 00 00 00",
                    // Enhanced Packet Block: 32 + 14 bytes of packet + 2 of padding = 48.
                    "06 00 00 00", "30 00 00 00", "00 00 00 00",  // interface 0
                    "24 0A 06 00", "40 22 20 18",  // µs since 1970, high word then low word
                    "0E 00 00 00", "0E 00 00 00",  // captured, original
                    "00 00 00 00 02 40 00 05 00 01 00 04 00 1E",  // direction 0 sent, H4 ACL
                    "00 00",  // padding to 32 bits
                    "30 00 00 00"))
    }

    @Test func writesPacketLoggerRecordsInEitherByteOrder() throws {
        let record = [Self.reset]
        let little = try Self.write(record, as: .packetLogger)
        #expect(
            try Fixtures.contents(little.path)
                // length 9+3, s, µs, type 0 command
                == packet("0C 00 00 00", "00 F1 53 65", "40 E2 01 00", "00", "03 0C 00"))
        let big = try Self.write(record, as: .packetLogger, options: .init(bigEndian: true))
        #expect(
            try Fixtures.contents(big.path)
                == packet("00 00 00 0C", "65 53 F1 00", "00 01 E2 40", "00", "03 0C 00"))
    }

    @Test func writesPacketLoggerTypesFromKindAndDirection() throws {
        let (path, _, _) = try Self.write(Self.everyKind, as: .packetLogger)
        let bytes = try Fixtures.contents(path)
        var types: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            types.append(bytes[offset + 12])
            offset += 4 + Int(bytes[offset])
        }
        #expect(types == [0x00, 0x01, 0x02, 0x03, 0x08, 0x13])
    }

    // MARK: Read back

    @Test(arguments: targets)
    func readsBackWhatItWroteWhereverNothingWasReported(format: CaptureFormat) throws {
        var samples = Self.everyKind
        samples[0].time = -1_051_674_456_214  // before 1970, as on phones whose clock was never set
        let (path, writer, losses) = try Self.write(samples, as: format)
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        #expect(try CaptureReader(path: path).format == format)
        #expect(records.count == samples.count)
        var lossless = 0
        for (index, (sample, record)) in zip(samples, records).enumerated() where losses[index].isEmpty {
            lossless += 1
            #expect(record.kind == sample.kind, "record \(index)")
            #expect(record.direction == sample.direction, "record \(index)")
            #expect(record.timestamp.microseconds == sample.time, "record \(index)")
            #expect(record.bytes == sample.bytes, "record \(index)")
        }
        // What each target cannot hold, and nothing more: H1 has no SCO or ISO; 187 no data
        // direction; PacketLogger no time before 1970, pcap none that every reader agrees on.
        let expected: Int
        switch format {
        case .btsnoop(1001): expected = 4
        case .pcap(187): expected = 1
        case .pcapng(187): expected = 2
        case .packetLogger, .pcap: expected = 5
        default: expected = 6
        }
        #expect(lossless == expected)
        #expect(writer.recordsWritten == 6)
        #expect(writer.losses.values.reduce(0, +) == 6 - expected)
    }

    // MARK: Losses are reported

    @Test func reportsANoteAnH4FileCannotHoldAndDoesNotWriteIt() throws {
        let note = Sample(
            kind: .other, direction: nil, bytes: Array("Product: iPhone17,1".utf8),
            sourceType: .packetLogger(type: 0xFC))
        let (path, writer, losses) = try Self.write([Self.reset, note], as: .btsnoop(datalink: 1002))
        #expect(losses[1].map(\.part) == [.record])
        #expect(
            "\(losses[1][0])"
                == "not written: a PacketLogger note record (type 0xfc); btsnoop 1002 holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)"
        )
        #expect(writer.recordsWritten == 1)
        #expect(writer.recordsNotWritten == 1)
        #expect(writer.losses == [losses[1][0]: 1])
        #expect(try Fixtures.readAll(path).records.count == 1)
    }

    @Test func reportsAnUnknownDirectionAndWritesItAsSent() throws {
        var acl = Self.aclReceived
        acl.direction = nil  // as read from pcap 187
        let (path, _, losses) = try Self.write([acl, acl], as: .pcap(linkType: 201))
        #expect(losses[0].map(\.part) == [.direction])
        #expect(losses[0][0].reason.contains("written as sent"))
        #expect(try Fixtures.readAll(path).records.map(\.direction) == [.sent, .sent])
    }

    @Test func reportsADirectionPcap187CannotHold() throws {
        let (_, writer, losses) = try Self.write([Self.reset, Self.aclReceived], as: .pcap(linkType: 187))
        #expect(losses[0].isEmpty)  // a command's direction is implied
        #expect(losses[1].map(\.part) == [.direction])
        #expect(writer.recordsWritten == 2)
    }

    @Test func reportsAControllerIndexOnlyWhereItIsNotTheImpliedOne() throws {
        var first = Self.aclSent, second = Self.aclSent
        first.controller = 0
        second.controller = 1
        let (_, _, losses) = try Self.write([first, second], as: .btsnoop(datalink: 1002))
        #expect(losses[0].isEmpty)
        #expect(losses[1].map(\.part) == [.controllerIndex])
    }

    @Test func reportsSCOAndISOWrittenAsH1Data() throws {
        let (path, _, losses) = try Self.write([Self.scoSent, Self.isoReceived], as: .btsnoop(datalink: 1001))
        #expect(losses.map { $0.map(\.part) } == [[.kind], [.kind]])
        #expect(try Fixtures.readAll(path).records.map(\.kind) == [.acl, .acl])
    }

    @Test func reportsTimesOutsideTheTargetsRangeAndWritesTheNearest() throws {
        var early = Self.reset, late = Self.reset
        early.time = -1_000_000
        late.time = 5_000_000_000 * 1_000_000  // year 2128
        let pklg = try Self.write([early, late], as: .packetLogger)
        #expect(pklg.losses.map { $0.map(\.part) } == [[.timestamp], [.timestamp]])
        #expect(try Fixtures.readAll(pklg.path).records.map(\.timestamp.microseconds) == [0, 4_294_967_295_999_999])
        // pcap: seconds unsigned to the format and Wireshark, signed to libpcap.
        var after2038 = Self.reset
        after2038.time = 2_200_000_000 * 1_000_000
        let pcap = try Self.write([early, after2038, late], as: .pcap(linkType: 201))
        #expect(pcap.losses.map { $0.map(\.part) } == [[.timestamp], [.timestamp], [.timestamp]])
        #expect(pcap.losses[0][0].reason.hasPrefix("before 1970"))
        #expect(pcap.losses[1][0].reason.hasPrefix("after 2038-01-19"))
        #expect(pcap.losses[2][0].reason.hasPrefix("outside 1901 to 2106"))
        let bytes = try Fixtures.contents(pcap.path)
        #expect(Array(bytes[24..<28]) == packet("FF FF FF FF"))  // -1 s, as libpcap reads it back
        // The second record follows 16 bytes of header and 8 of packet (word, indicator, 3 bytes).
        #expect(Array(bytes[48..<52]) == packet("00 56 21 83"))  // 2,200,000,000 s, unsigned
        #expect(try Fixtures.readAll(pcap.path).records.first?.timestamp.microseconds == -1_000_000)
    }

    @Test func reportsPacketsCutToTheSnapLength() throws {
        let (path, _, losses) = try Self.write(
            [Self.aclSent], as: .pcapng(linkType: 201), options: .init(snapLength: 8))
        #expect(losses[0].map(\.part) == [.length])
        let record = try #require(try Fixtures.readAll(path).records.first)
        #expect(record.bytes == Array(Self.aclSent.bytes.prefix(3)))  // 8 - direction word - indicator
        #expect(record.originalLength == Self.aclSent.bytes.count)
    }

    @Test func reportsTheOriginalLengthPacketLoggerCannotHold() throws {
        var cut = Self.aclSent
        cut.originalLength = 27
        let (_, _, losses) = try Self.write([cut], as: .packetLogger)
        #expect(losses[0].map(\.part) == [.length])
        let kept = try Self.write([cut], as: .btsnoop(datalink: 1002))
        #expect(kept.losses == [[]])
        #expect(try Fixtures.readAll(kept.path).records.first?.originalLength == 27)
    }

    @Test func reportsAnUnrecognisedPacketAMonitorFileHasNoOpcodeFor() throws {
        let odd = Sample(kind: .other, direction: .sent, bytes: [0x7F, 0xAA])  // unknown H4 type, from btsnoop 1002
        let (_, writer, losses) = try Self.write([odd], as: .pcap(linkType: 254))
        #expect(losses[0].map(\.part) == [.record])
        #expect(writer.recordsNotWritten == 1)
        // H4 files keep it verbatim.
        let h4 = try Self.write([odd], as: .btsnoop(datalink: 1002))
        #expect(h4.losses == [[]])
        let back = try #require(try Fixtures.readAll(h4.path).records.first)
        #expect(back.kind == .other)
        #expect(back.bytes == [0x7F, 0xAA])
    }

    // MARK: Carried, not dropped

    @Test(arguments: [CaptureFormat.btsnoop(datalink: 2001), .pcap(linkType: 254), .pcapng(linkType: 254)])
    func carriesPacketLoggerNotesAndLogsIntoLinuxMonitorRecordsAndBack(format: CaptureFormat) throws {
        let samples = [
            Sample(
                kind: .other, direction: nil, bytes: Array("Product: iPhone17,1".utf8),
                sourceType: .packetLogger(type: 0xFC)),
            Sample(
                kind: .other, direction: nil, bytes: Array("OFF->ON+\n".utf8), sourceType: .packetLogger(type: 0xFB)),
            Sample(kind: .other, direction: nil, bytes: [0xF0, 0x01], sourceType: .packetLogger(type: 0x0A)),
            Self.reset,
        ]
        let (path, writer, losses) = try Self.write(samples, as: format)
        #expect(losses.allSatisfy { $0.isEmpty })
        #expect(writer.recordsWritten == 4)
        let (records, _) = try Fixtures.readAll(path)
        #expect(
            records.map(\.note) == [
                "system note: Product: iPhone17,1", "PacketLogger power: OFF->ON+", "PacketLogger type 0x0a: ", nil,
            ])
        // priority info, ident, message
        #expect(records[1].bytes == [6, 19] + Array("PacketLogger power\0OFF->ON+\n\0".utf8))
        #expect(records.map(\.controllerIndex) == [0xFFFF, 0xFFFF, 0xFFFF, 0])

        // And back to PacketLogger: the same types and payloads.
        let reader = try CaptureReader(path: path)
        let back = try Self.outputPath()
        let again = try CaptureWriter(path: back, format: .packetLogger)
        while let record = try reader.next() { #expect(try again.write(record).isEmpty) }
        try again.close()
        let direct = try Self.write(samples, as: .packetLogger)
        #expect(try Fixtures.contents(back) == Fixtures.contents(direct.path))
    }

    @Test func carriesLinuxMonitorSystemNotesIntoPacketLoggerAndReportsTheLogPriority() throws {
        let samples = [
            Sample(
                kind: .other, direction: nil, bytes: Array("Bluetooth subsystem\0".utf8), controller: 0xFFFF,
                sourceType: .linuxMonitor(opcode: 12)),
            Sample(
                kind: .other, direction: nil, bytes: [6, 6] + Array("btmon\0hello\n\0".utf8), controller: 0xFFFF,
                sourceType: .linuxMonitor(opcode: 13)),
            Sample(
                kind: .other, direction: nil, bytes: packet("00 01 11 22 33 44 55 66 68 63 69 30 00 00 00 00 00 00"),
                controller: 0, sourceType: .linuxMonitor(opcode: 0)),
        ]
        let (path, writer, losses) = try Self.write(samples, as: .packetLogger)
        #expect(losses[0].isEmpty)
        #expect(losses[1].map(\.part) == [.detail])
        #expect(losses[2].map(\.part) == [.record])
        #expect(
            "\(losses[2][0])".contains(
                "a Linux monitor new index record (opcode 0); PacketLogger has no record type for it"))
        #expect(writer.recordsWritten == 2)
        let (records, _) = try Fixtures.readAll(path)
        #expect(records.map(\.note) == ["note: Bluetooth subsystem", "syslog: btmon: hello"])
        #expect(records[0].bytes == Array("Bluetooth subsystem".utf8))
    }

    @Test func keepsNonStandardBTSnoopFlagsThatMeanTheSameThing() throws {
        var marked = Self.reset
        marked.flags = .init(flags: 0x10, cumulativeDrops: 7)  // Bumble's early command mark
        var contradicting = Self.reset
        contradicting.flags = .init(flags: 0x11, cumulativeDrops: 0)  // bit 0 says received: not the record's
        let (path, _, _) = try Self.write([marked, contradicting], as: .btsnoop(datalink: 1002))
        let bytes = try Fixtures.contents(path)
        #expect(Array(bytes[24..<32]) == packet("00 00 00 10 00 00 00 07"))
        #expect(Array(bytes[44 + 8..<44 + 12]) == packet("00 00 00 02"))
    }

    @Test func placesTimesBefore1970InPcapngWithAnInterfaceTimeOffset() throws {
        var first = Self.reset, second = Self.resetComplete
        first.time = -1_051_674_456_214
        second.time = -1_051_674_455_000
        let (path, _, losses) = try Self.write([first, second], as: .pcapng(linkType: 201))
        #expect(losses == [[], []])
        let bytes = try Fixtures.contents(path)
        // IDB at 28: 8 + 8 bytes of body, then option 14 (if_tsoffset), length 8, -1,051,675 s, end of options.
        #expect(
            Array(bytes[28..<64])
                == packet(
                    "01 00 00 00 24 00 00 00 C9 00 00 00 00 00 04 00",
                    "0E 00 08 00 E5 F3 EF FF FF FF FF FF", "00 00 00 00", "24 00 00 00"))
        #expect(try Fixtures.readAll(path).records.map(\.timestamp.microseconds) == [first.time, second.time])
    }

    // MARK: Files, flushing, errors

    @Test(arguments: targets)
    func leavesAFileValidUpToTheLastRecordAtEveryFlush(format: CaptureFormat) throws {
        let path = try Self.outputPath()
        let writer = try CaptureWriter(path: path, format: format)
        try writer.flush()
        if case .packetLogger = format {
        } else {
            // Header only: a valid, empty capture.
            #expect(try Fixtures.readAll(path).records.isEmpty)
            #expect(try Fixtures.readAll(path).fault == nil)
        }
        for (count, sample) in [Self.reset, Self.resetComplete, Self.aclSent].enumerated() {
            try sample.withRecord { _ = try writer.write($0) }
            try writer.flush()
            let (records, fault) = try Fixtures.readAll(path)
            #expect(fault == nil)
            #expect(records.count == count + 1)
        }
        try writer.close()
    }

    @Test func refusesADatalinkItDoesNotWrite() throws {
        let path = try Self.outputPath()
        let btsnoop = #expect(throws: CaptureError.self) {
            try CaptureWriter(path: path, format: .btsnoop(datalink: 1004))
        }
        #expect("\(btsnoop!)".contains("not 1004 (HCI Serial (H5))"))
        let pcap = #expect(throws: CaptureError.self) { try CaptureWriter(path: path, format: .pcapng(linkType: 192)) }
        #expect("\(pcap!)".contains("not 192"))
    }

    /// An over-the-air link type takes the records of a capture of that type (`bletrace redact`
    /// writes them back), as they were read; an HCI record has no place in it.
    @Test func writesAnAirCaptureBackAsItWasRead() throws {
        let source = Fixtures.capture("linklayer/twins/att-errors.air.pcap")
        let reader = try CaptureReader(path: source, linkLayer: true)
        let path = try Self.outputPath()
        let writer = try CaptureWriter(path: path, format: reader.format, options: .matching(source))
        while let record = try reader.next() { #expect(try writer.write(record).isEmpty) }
        let packet: [UInt8] = [0x03, 0x0C, 0x00]
        let losses = try packet.withUnsafeBytes { bytes in
            try writer.write(
                CaptureRecord(
                    index: 0, fileOffset: 0, timestamp: Timestamp(seconds: 0, microseconds: 0), direction: .sent,
                    kind: .command,
                    originalLength: 3, bytes: bytes))
        }
        #expect(losses.map(\.part) == [.record])
        try writer.close()
        #expect(try Fixtures.contents(path) == Fixtures.contents(source))
    }

    @Test(arguments: targets)
    func failsWithThePathWhenTheFileCannotBeCreated(format: CaptureFormat) throws {
        let path = "/nonexistent-folder-\(UUID().uuidString)/out"
        let error = #expect(throws: CaptureWriter.Failure.self) { try CaptureWriter(path: path, format: format) }
        #expect(error?.path == path)
        #expect("\(error!)".hasPrefix("\(path): cannot write: "))
    }

    @Test func throwsOnAWriteAfterClose() throws {
        let writer = try CaptureWriter(path: try Self.outputPath(), format: .btsnoop(datalink: 1002))
        try writer.close()
        try writer.close()  // harmless
        #expect(throws: CaptureWriter.Failure.self) { try Self.reset.withRecord { try writer.write($0) } }
    }

    @Test func writesEverythingAtCloseEvenWhenRecordsOutgrowTheBuffer() throws {
        let big = Sample(kind: .acl, direction: .sent, bytes: [UInt8](repeating: 0x5A, count: 70_000))
        let (path, _, _) = try Self.write(
            Array(repeating: Self.aclSent, count: 5_000) + [big], as: .btsnoop(datalink: 2001))
        let size = try Fixtures.contents(path).count
        #expect(size == 16 + 5_000 * (24 + 9) + 24 + 70_000)
    }

    // MARK: Header fields from a source file

    @Test(.sharedCaptures) func takesTheHeaderFieldsOfAPcapngFromTheFile() throws {
        let options = CaptureWriter.Options.matching(Fixtures.publicCapture("joelarula-darkelf-test1.pcapng"))
        #expect(options.snapLength == 0x40000)
        #expect(options.bigEndian == false)
        #expect(options.pcapngHeader == CaptureWriter.PcapngHeader(majorVersion: 1, minorVersion: 0, sectionLength: -1))
    }

    @Test(.sharedCaptures) func takesTheByteOrderOfAPacketLoggerFileFromTheFile() throws {
        #expect(CaptureWriter.Options.matching(Fixtures.publicCapture("fotonick-hciparse-test00.pklg")).bigEndian)
        #expect(!CaptureWriter.Options.matching(Fixtures.publicCapture("elkusbry-peripage.pklg")).bigEndian)
    }

    @Test func keepsTheOptionsOfABigEndianPcapngSection() throws {
        // Written by hand: a big-endian SHB with shb_userappl "bt", an IDB (187, snap 1000) with
        // if_tsresol 9 (ns) and if_name "hci0", one EPB of 5 bytes at 1.5 s.
        let original = packet(
            "0A 0D 0D 0A", "00 00 00 28", "1A 2B 3C 4D", "00 01 00 00",  // SHB, 40 bytes, big-endian, 1.0
            "00 00 00 00 00 00 01 00",  // section length 256
            "00 04 00 02 62 74 00 00", "00 00 00 00",  // shb_userappl "bt", end of options
            "00 00 00 28",
            "00 00 00 01", "00 00 00 28", "00 BB 00 00", "00 00 03 E8",  // IDB, 40 bytes, 187, snap 1000
            "00 09 00 01 09 00 00 00",  // if_tsresol 9: nanoseconds
            "00 02 00 04 68 63 69 30", "00 00 00 00",  // if_name "hci0", end of options
            "00 00 00 28",
            "00 00 00 06", "00 00 00 24", "00 00 00 00",  // EPB, 36 bytes, interface 0
            "00 00 00 00 59 68 2F 00",  // 1,500,000,000 ns
            "00 00 00 04 00 00 00 04", "01 03 0C 00",  // HCI Reset
            "00 00 00 24")
        let source = try Fixtures.temporaryFile(original, name: "be.pcapng")
        let (records, fault) = try Fixtures.readAll(source)
        #expect(fault == nil)
        #expect(records.map(\.timestamp.microseconds) == [1_500_000])
        let options = CaptureWriter.Options.matching(source)
        #expect(options.bigEndian)
        #expect(options.snapLength == 1000)
        let path = try Self.outputPath()
        let writer = try CaptureWriter(path: path, format: .pcapng(linkType: 187), options: options)
        let reader = try CaptureReader(path: source)
        while let record = try reader.next() { try writer.write(record) }
        try writer.close()
        #expect(try Fixtures.contents(path) == original)
    }
}
