#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Foundation
import Glibc
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// H4 byte streams: the incremental framer on hand-written bytes split everywhere, then the real
/// thing over loopback TCP and a pty pair.
@Suite struct LiveH4StreamTests {
    static let stream = LiveSourceTests.stream
    static let reset = LiveSourceTests.reset
    static let resetComplete = LiveSourceTests.resetComplete
    static let notification = LiveSourceTests.notification

    /// The three packets as the framer should cut them: kind, bytes without the indicator, offset.
    static let expected: [(PacketKind, [UInt8], Int64)] = [
        (.command, Array(reset.dropFirst()), 0),
        (.event, Array(resetComplete.dropFirst()), 4),
        (.acl, Array(notification.dropFirst()), 11),
    ]

    // MARK: - The framer

    /// Feeds `chunks` one at a time, taking every packet as soon as it is complete.
    static func frame(_ chunks: [[UInt8]]) throws -> [(PacketKind, [UInt8], Int64)] {
        let decoder = H4StreamDecoder()
        var packets: [(PacketKind, [UInt8], Int64)] = []
        for chunk in chunks {
            let fitted = chunk.withUnsafeBytes { decoder.append(contentsOf: $0) }
            #expect(fitted == chunk.count)
            while let packet = try decoder.next() {
                packets.append((packet.kind, Array(packet.bytes), packet.offset))
            }
        }
        #expect(decoder.truncation() == nil)
        return packets
    }

    static func same(_ a: [(PacketKind, [UInt8], Int64)], _ b: [(PacketKind, [UInt8], Int64)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
    }

    @Test func cutsTheStreamWhateverTheSplitPoint() throws {
        #expect(Self.same(try Self.frame([Self.stream]), Self.expected))
        // Every single split point, and every pair of split points.
        for i in 0...Self.stream.count {
            let one = [Array(Self.stream[..<i]), Array(Self.stream[i...])]
            #expect(Self.same(try Self.frame(one), Self.expected), "split at \(i)")
            for j in i...Self.stream.count {
                let two = [Array(Self.stream[..<i]), Array(Self.stream[i..<j]), Array(Self.stream[j...])]
                #expect(Self.same(try Self.frame(two), Self.expected), "split at \(i), \(j)")
            }
        }
        // One byte at a time.
        #expect(Self.same(try Self.frame(Self.stream.map { [$0] }), Self.expected))
    }

    @Test(arguments: [
        // (packet, header length, payload length)
        (packet("03", "01 00 02", "AA BB"), 3, 2),  // SCO: handle 0x0001, length u8
        (packet("05", "01 40 03 00", "0A 0B 0C"), 4, 3),  // ISO: handle 0x0001, PB 0b00, TS 1, length 14 bits
        (packet("05", "01 00 02 C0", "0A 0B"), 4, 2),  // ISO: the top 2 bits of the length field are RFU, not length
        (packet("04", "3E 00"), 2, 0),  // an event without parameters
    ])
    func readsEachPacketKindsLengthFromItsHeader(bytes: [UInt8], header: Int, payload: Int) throws {
        let packets = try Self.frame([bytes])
        try #require(packets.count == 1)
        #expect(packets[0].0.rawValue == bytes[0])
        #expect(packets[0].1 == Array(bytes.dropFirst()))
        #expect(packets[0].1.count == header + payload)
    }

    @Test func takesTheLargestACLPacketAndStaysWithinItsBuffer() throws {
        // 65,535 payload bytes: the largest length a u16 can announce.
        let big = [0x02, 0x01, 0x00, 0xFF, 0xFF] + [UInt8](repeating: 0x5A, count: 65_535)
        let packets = try Self.frame([big, big, Self.reset, big])
        #expect(packets.count == 4)
        #expect(packets.map(\.1.count) == [65_539, 65_539, 3, 65_539])
        #expect(packets.map(\.2) == [0, 65_540, 131_080, 131_084])
    }

    @Test func anUnknownIndicatorIsAFramingErrorReportedAtItsOffsetAndSkipped() throws {
        let decoder = H4StreamDecoder()
        let bytes = Self.reset + Self.resetComplete + [0x42, 0x00, 0x00]
        bytes.withUnsafeBytes { _ = decoder.append(contentsOf: $0) }
        #expect(try decoder.next()?.kind == .command)
        #expect(try decoder.next()?.kind == .event)
        #expect(try decoder.next() == nil)
        let error = try #require(decoder.framingErrors.first)
        #expect(decoder.framingErrors.count == 1)
        #expect(error.layer == .hci)
        #expect(error.offset == 11)
        #expect(
            error.expected.contains(
                "an H4 packet indicator (0x01 command, 0x02 ACL, 0x03 SCO, 0x04 event, 0x05 ISO), not 0x42"))
        #expect(error.expected.contains("skipped up to the next event or command"))
        #expect(decoder.skippedBytes == 3)
        // The next event is found again, at its own offset.
        Self.resetComplete.withUnsafeBytes { _ = decoder.append(contentsOf: $0) }
        let packet = try #require(try decoder.next())
        #expect(packet.kind == .event)
        #expect(packet.offset == 14)
        #expect(decoder.truncation() == nil)
    }

    @Test func resynchronisingSkipsIndicatorsThatStartNoPlausiblePacket() throws {
        let decoder = H4StreamDecoder()
        // After the bad 0x42: an ACL indicator (not trusted while resynchronising), an event
        // indicator with event code 0x00 (none), then a real Command Complete.
        let bytes: [UInt8] = [0x42, 0x02, 0xFF, 0xFF, 0x04, 0x00, 0x03] + Self.resetComplete
        bytes.withUnsafeBytes { _ = decoder.append(contentsOf: $0) }
        let packet = try #require(try decoder.next())
        #expect(packet.kind == .event && packet.offset == 7)
        #expect(decoder.framingErrors.count == 1)
        #expect(decoder.skippedBytes == 7)
    }

    @Test(arguments: [
        (1, "the rest of the 4-byte header of an ACL packet; the stream ended 0 bytes into it"),
        (4, "the rest of the 4-byte header of an ACL packet; the stream ended 3 bytes into it"),
        (5, "the 10-byte payload of an ACL packet its header announces; the stream ended after 0"),
        (14, "the 10-byte payload of an ACL packet its header announces; the stream ended after 9"),
    ])
    func aStreamEndingInsideAPacketSaysWhatWasMissing(kept: Int, expected: String) throws {
        let decoder = H4StreamDecoder()
        let bytes = Self.reset + Array(Self.notification.prefix(kept))
        bytes.withUnsafeBytes { _ = decoder.append(contentsOf: $0) }
        #expect(try decoder.next()?.kind == .command)
        #expect(try decoder.next() == nil)
        let error = try #require(decoder.truncation())
        #expect(error.offset == 4)
        #expect(error.expected == expected)
    }

    // MARK: - Over loopback TCP

    /// Awkward boundaries: inside the first header, across the command/event boundary, between
    /// the ACL header's two length bytes, inside the L2CAP header.
    static let awkwardChunks: [[UInt8]] = {
        let cuts = [1, 3, 6, 12, 14, 16, 20, stream.count]
        var chunks: [[UInt8]] = []
        var from = 0
        for cut in cuts {
            chunks.append(Array(stream[from..<cut]))
            from = cut
        }
        return chunks
    }()

    @Test func readsPacketsSplitAcrossWritesFromATCPServer() throws {
        let server = try LoopbackServer()
        let served = server.serve(Self.awkwardChunks)
        let source = try LiveSource(parsing: "tcp:127.0.0.1:\(server.port)")
        #expect(source.name == "tcp:127.0.0.1:\(server.port)")
        #expect(source.linkType == 201)
        let before = LiveSource.now()
        let (records, fault) = collect(source)
        let after = LiveSource.now()
        #expect(served.wait(timeout: .now() + 5) == .success)
        #expect(fault == nil)
        #expect(source.endReason == .endOfStream)
        Self.check(records, from: before, to: after)
    }

    static func check(_ records: [OwnedRecord], from before: Timestamp, to after: Timestamp) {
        #expect(records.count == 3)
        guard records.count == 3 else { return }
        #expect(records.map(\.index) == [0, 1, 2])
        #expect(records.map(\.kind) == [.command, .event, .acl])
        #expect(records.map(\.direction) == [.sent, .received, .received])
        #expect(records.map(\.bytes) == expected.map(\.1))
        #expect(records.map(\.fileOffset) == [0, 4, 11])
        #expect(records.map(\.originalLength) == [3, 6, 14])
        #expect(records.allSatisfy { $0.controllerIndex == nil && $0.note == nil })
        // Wall-clock completion times, in order.
        #expect(records.allSatisfy { $0.timestamp >= before && $0.timestamp <= after })
        #expect(records.map(\.timestamp) == records.map(\.timestamp).sorted())
        // The ATT notification really is in the ACL record: L2CAP length 6, CID 4, opcode 0x1B.
        #expect(Array(records[2].bytes[4...8]) == [0x06, 0x00, 0x04, 0x00, 0x1B])
    }

    @Test func aHostSideStreamMarksDataAsSent() throws {
        let server = try LoopbackServer()
        let served = server.serve([Self.notification])
        let source = try LiveSource(
            parsing: "tcp:127.0.0.1:\(server.port)", options: .init(h4DataDirection: .sent))
        let (records, fault) = collect(source)
        #expect(served.wait(timeout: .now() + 5) == .success)
        #expect(fault == nil)
        #expect(records.map(\.direction) == [.sent])
    }

    @Test func thePeerClosingMidPacketYieldsTheCompletePacketsThenATruncationError() throws {
        let server = try LoopbackServer()
        // The ACL packet loses its last 4 bytes.
        let served = server.serve([Self.reset, Self.resetComplete + Array(Self.notification.dropLast(4))])
        let source = try LiveSource(parsing: "tcp:127.0.0.1:\(server.port)")
        let (records, fault) = collect(source)
        #expect(served.wait(timeout: .now() + 5) == .success)
        #expect(records.map(\.kind) == [.command, .event])
        let error = try #require(fault as? DecodeError)
        #expect(error.file == "tcp:127.0.0.1:\(server.port)")
        #expect(error.recordIndex == 2)
        #expect(error.offset == 11)
        #expect(
            error.expected
                == "the 10-byte payload of an ACL packet its header announces; the stream ended after 6 (the peer closed the stream mid-packet)"
        )
        #expect(
            error.description
                == "tcp:127.0.0.1:\(server.port): frame 3: hci at byte offset 11: expected the 10-byte payload of an ACL packet its header announces; the stream ended after 6 (the peer closed the stream mid-packet)"
        )
    }

    @Test func anUnknownTypeByteFromTheServerIsReportedWithItsOffsetAndSkipped() throws {
        let server = try LoopbackServer()
        let served = server.serve([Self.reset, [0x00] + Self.resetComplete], holdOpen: .seconds(1))
        let source = try LiveSource(parsing: "tcp:127.0.0.1:\(server.port)")
        let (records, fault) = collect(source)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event])
        #expect(source.framingErrorCount == 1)
        #expect(source.skippedBytes == 1)
        let error = try #require(source.framingErrors.first)
        #expect(error.offset == 4)
        #expect(
            error.description.hasPrefix(
                "tcp:127.0.0.1:\(server.port): hci at byte offset 4: expected an H4 packet indicator"))
        #expect(error.expected.contains("not 0x00"))
        #expect(served.wait(timeout: .now() + 5) == .success)
    }

    @Test func nothingListeningIsAClearError() throws {
        // A port that was just free: bind, read the number, close.
        let port = try LoopbackServer().port
        let error = try #require(throws: CaptureError.self) { try LiveSource(parsing: "tcp:127.0.0.1:\(port)") }
        #expect(
            "\(error)"
                == "tcp:127.0.0.1:\(port): cannot connect: Connection refused (is the virtual controller's TCP server running on that port?)"
        )
    }

    @Test func anUnresolvableHostIsAClearError() throws {
        let error = try #require(throws: CaptureError.self) {
            try LiveSource(parsing: "tcp:no-such-host.invalid:9000")
        }
        #expect("\(error)".hasPrefix("tcp:no-such-host.invalid:9000: cannot resolve no-such-host.invalid: "))
    }

    // MARK: - Over a pty pair

    @Test func readsTheSameBytesFromAPty() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer { close(master) }
        let path = String(cString: ttyname(slave))
        // Raw before anything is written, so the line discipline translates nothing.
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        let source = try LiveSource(parsing: path)
        close(slave)
        #expect(source.device == .serial(path: path, baudRate: nil))
        let before = LiveSource.now()
        let writerEnd = master
        let writer = Thread {
            for chunk in Self.awkwardChunks {
                _ = chunk.withUnsafeBytes { write(writerEnd, $0.baseAddress, $0.count) }
                usleep(10_000)
            }
        }
        writer.start()
        var records: [OwnedRecord] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while records.count < 3, let record = try source.next(until: deadline) {
            records.append(OwnedRecord(record))
        }
        Self.check(records, from: before, to: LiveSource.now())
        // Stopping ends a pty capture, which never ends by itself while the master is open.
        source.stop()
        #expect(try source.next(until: .now + .seconds(5)) == nil)
        #expect(source.endReason == .stopped)
    }

    @Test func aBytePassingThroughAPtyIsNotTranslated() throws {
        // 0x0D, 0x0A, 0x03 (^C), 0x7F and 0x11 (XON) mean things to a terminal in cooked mode;
        // the source puts the pty in raw mode itself.
        var master: Int32 = -1
        var slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer { close(master) }
        let path = String(cString: ttyname(slave))
        let source = try LiveSource(parsing: "serial:\(path)")
        close(slave)
        let bytes = packet("01", "0D 0A", "05", "03 7F 11 13 0D")
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        let record = try #require(try source.next(until: .now + .seconds(5)))
        #expect(Array(record.bytes) == Array(bytes.dropFirst()))
    }

    @Test func aMissingDeviceIsAClearError() throws {
        let error = try #require(throws: CaptureError.self) { try LiveSource(parsing: "/dev/no-such-pty") }
        #expect("\(error)" == "/dev/no-such-pty: cannot open it: No such file or directory")
    }
}

#endif
