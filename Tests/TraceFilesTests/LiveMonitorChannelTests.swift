#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Foundation
import Glibc
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// BlueZ's HCI monitor channel: the frame parser on hand-written frames, and the whole read path
/// (recvmsg, SO_TIMESTAMP, classification) over an AF_UNIX seqpacket pair, which keeps frame
/// boundaries as the kernel's channel does. Opening the real channel is in LiveSourceTests.
@Suite struct LiveMonitorChannelTests {
    /// A frame as the kernel writes it: opcode, controller index, length, all little-endian.
    static func frame(opcode: UInt16, controller: UInt16, _ payload: [UInt8]) -> [UInt8] {
        func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        return le(opcode) + le(controller) + le(UInt16(payload.count)) + payload
    }

    static let newIndex = frame(
        opcode: 0, controller: 0,
        packet("00", "01", "66 55 44 33 22 11", "68 63 69 30 00 00 00 00"))  // type, bus, address, "hci0"
    static let command = frame(opcode: 2, controller: 0, Array(LiveSourceTests.reset.dropFirst()))
    static let event = frame(opcode: 3, controller: 0, Array(LiveSourceTests.resetComplete.dropFirst()))
    static let aclIn = frame(opcode: 5, controller: 1, Array(LiveSourceTests.notification.dropFirst()))
    static let note = frame(opcode: 12, controller: 0xFFFF, Array("Bluetooth subsystem version 2.22\0".utf8))

    @Test func parsesTheLittleEndianHeader() throws {
        // Opcode 0x0002, index 0x0100, length 3: the byte order is the kernel's, not pcap's.
        let bytes = packet("02 00", "00 01", "03 00", "03 0C 00")
        try bytes.withUnsafeBytes { raw in
            let frame = try LiveMonitorFrame(parsing: raw)
            #expect(frame.opcode == 2)
            #expect(frame.controller == 256)
            #expect(Array(frame.payload) == [0x03, 0x0C, 0x00])
        }
    }

    @Test func everyShortHeaderIsRefused() throws {
        for count in 0..<6 {
            let error = try #require(throws: DecodeError.self) {
                try Self.command.prefix(count).withUnsafeBytes { try LiveMonitorFrame(parsing: $0, offset: 100) }
            }
            #expect(error.offset == 100)
            #expect(error.expected.contains("6-byte monitor header"))
        }
    }

    @Test(arguments: [-1, 1])
    func aLengthThatDisagreesWithTheFrameIsRefused(delta: Int) throws {
        var bytes = Self.command
        bytes[4] = UInt8(Int(bytes[4]) + delta)
        let error = try #require(throws: DecodeError.self) {
            try bytes.withUnsafeBytes { try LiveMonitorFrame(parsing: $0, offset: 10) }
        }
        #expect(error.offset == 14)
        #expect(
            error.expected == "a payload length equal to the 3 bytes that follow the monitor header, not \(3 + delta)")
    }

    @Test func readsFramesFromADatagramSocketWithKernelTimestamps() throws {
        let pair = try SocketPair(type: SOCK_SEQPACKET)
        let source = try LiveSource(
            device: .monitorChannel, backend: .monitor(LiveMonitorChannel(adopting: pair.take())))
        #expect(source.linkType == 254)
        let before = LiveSource.now()
        for frame in [Self.newIndex, Self.command, Self.event, Self.aclIn, Self.note] { pair.write(frame) }
        pair.closeWriter()
        let (records, fault) = collect(source)
        let after = LiveSource.now()
        #expect(fault == nil)
        #expect(source.endReason == .endOfStream)
        try #require(records.count == 5)
        #expect(records.map(\.index) == [0, 1, 2, 3, 4])
        #expect(records.map(\.kind) == [.other, .command, .event, .acl, .other])
        #expect(records.map(\.direction) == [nil, .sent, .received, .received, nil])
        #expect(records.map(\.controllerIndex) == [0, 0, 0, 1, 0xFFFF])
        #expect(records[0].note == "new index 11:22:33:44:55:66 hci0")
        #expect(records[4].note == "system note: Bluetooth subsystem version 2.22")
        #expect(records[1].bytes == [0x03, 0x0C, 0x00])
        #expect(records[3].bytes == Array(LiveSourceTests.notification.dropFirst()))
        // Offsets count the frames' bytes (header included) read before each.
        #expect(records.map(\.fileOffset) == [0, 22, 31, 43, 63])
        // SO_TIMESTAMP: the kernel's receive time, between the clock readings around the test.
        #expect(records.allSatisfy { $0.timestamp >= before && $0.timestamp <= after })
    }

    @Test func aBadFrameIsReportedWithTheRecordIndexAfterTheGoodOnes() throws {
        let pair = try SocketPair(type: SOCK_SEQPACKET)
        let source = try LiveSource(
            device: .monitorChannel, backend: .monitor(LiveMonitorChannel(adopting: pair.take())))
        pair.write(Self.command)
        pair.write([0x02, 0x00, 0x00])
        let (records, fault) = collect(source)
        #expect(records.count == 1)
        let error = try #require(fault as? DecodeError)
        #expect(
            error.description
                == "hci-monitor: frame 2: hci at byte offset 9: expected a 6-byte monitor header (opcode, controller index, length; little-endian), not a 3-byte frame"
        )
    }

    @Test func findsTheTimestampAmongOtherControlMessages() throws {
        // Two cmsghdrs: an unrelated one (SCM_RIGHTS with one descriptor, padded), then SCM_TIMESTAMP.
        var control: [UInt8] = []
        func header(length: Int, level: Int32, type: Int32) -> [UInt8] {
            withUnsafeBytes(of: length.littleEndian, Array.init) + withUnsafeBytes(of: level.littleEndian, Array.init)
                + withUnsafeBytes(of: type.littleEndian, Array.init)
        }
        control += header(length: 20, level: SOL_SOCKET, type: 1) + [7, 0, 0, 0] + [0, 0, 0, 0]
        control += header(length: 32, level: SOL_SOCKET, type: SO_TIMESTAMP)
        control += withUnsafeBytes(of: Int(1_700_000_000).littleEndian, Array.init)
        control += withUnsafeBytes(of: Int(123_456).littleEndian, Array.init)
        let time = control.withUnsafeBytes { LiveMonitorChannel.timestamp(control: $0) }
        #expect(time == Timestamp(microseconds: 1_700_000_000_123_456))
        #expect([UInt8]().withUnsafeBytes { LiveMonitorChannel.timestamp(control: $0) } == nil)
    }
}
#endif
