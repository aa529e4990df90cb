import HCI
import TestSupport
import Testing
import Wire

/// Core 6.0, Vol 4, Part E, §5.4.2: Handle (12 bits), PB flag (bits 12-13), BC flag (bits 14-15),
/// Data_Total_Length (16 bits), data.
@Suite struct ACLPacketTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var hex: [String]
        var handle: UInt16
        var packetBoundary: UInt8
        var broadcast: UInt8
        var data: [UInt8]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Row(
            name: "first automatically flushable fragment",
            hex: [
                "40 20",  // 0x2040: handle 0x040, PB 0b10, BC 0b00
                "07 00",  // Data_Total_Length: 7
                "03 00 04 00 0a 03 00",  // an L2CAP frame: ATT Read Request
            ],
            handle: 0x040, packetBoundary: 0b10, broadcast: 0,
            data: [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]),
        Row(
            name: "continuing fragment",
            hex: [
                "40 10",  // 0x1040: handle 0x040, PB 0b01
                "03 00",  // Data_Total_Length: 3
                "aa bb cc",
            ],
            handle: 0x040, packetBoundary: 0b01, broadcast: 0, data: [0xAA, 0xBB, 0xCC]),
        Row(
            name: "first non-automatically-flushable fragment",
            hex: [
                "41 00",  // 0x0041: handle 0x041, PB 0b00
                "01 00",
                "ff",
            ],
            handle: 0x041, packetBoundary: 0b00, broadcast: 0, data: [0xFF]),
        Row(
            name: "broadcast bits and Android's debug handle",
            hex: [
                "dc 6e",  // 0x6EDC: handle 0xEDC, PB 0b10, BC 0b01
                "02 00",
                "01 02",
            ],
            handle: 0xEDC, packetBoundary: 0b10, broadcast: 0b01, data: [0x01, 0x02]),
        Row(
            name: "highest handle, all flag bits set",
            hex: [
                "ff ff",  // handle 0xFFF, PB 0b11, BC 0b11
                "00 00",  // no data
            ],
            handle: 0xFFF, packetBoundary: 0b11, broadcast: 0b11, data: []),
    ])
    func decodesHandleFlagsAndData(_ row: Row) throws {
        let bytes = packet(row.hex)
        try bytes.withUnsafeBytes { raw throws in
            let acl = try ACLPacket.decode(raw)
            #expect(acl.handle == row.handle)
            #expect(acl.packetBoundary == row.packetBoundary)
            #expect(acl.broadcast == row.broadcast)
            #expect(Array(acl.data) == row.data)
            #expect(acl.isContinuation == (row.packetBoundary == 0b01))
            if !row.data.isEmpty { #expect(acl.data.baseAddress == raw.baseAddress! + 4) }
        }
    }

    @Test func androidDebugHandle() {
        #expect(ACLPacket.androidDebugHandle == 0x0EDC)
    }

    @Test func everyTruncationPrefixThrows() {
        let bytes = packet("40 20", "07 00", "03 00 04 00 0a 03 00")
        for count in 0..<bytes.count {
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try Array(bytes.prefix(count)).withUnsafeBytes { raw throws in _ = try ACLPacket.decode(raw) }
            }
            #expect(error?.layer == .acl)
            // Handle and flags at 0, length at 2, data at 4.
            #expect(error?.offset == (count < 2 ? 0 : count < 4 ? 2 : 4), "prefix of \(count) bytes")
        }
    }

    @Test func bytesBeyondTheDeclaredLengthAreNotData() throws {
        let bytes = packet("40 20", "01 00", "aa", "bb")
        try bytes.withUnsafeBytes { raw throws in
            #expect(Array(try ACLPacket.decode(raw).data) == [0xAA])
        }
    }
}

@Suite struct L2CAPFrameTests {
    @Test func decodesChannelAndPayload() throws {
        let bytes = packet(
            "03 00",  // Length: 3
            "04 00",  // Channel ID: 0x0004 ATT
            "0a 03 00"  // payload: ATT Read Request, handle 0x0003
        )
        try bytes.withUnsafeBytes { raw throws in
            let frame = try L2CAPFrame.decode(raw)
            #expect(frame.channel == .att)
            #expect(Array(frame.payload) == [0x0A, 0x03, 0x00])
            #expect(frame.payload.baseAddress == raw.baseAddress! + 4)
        }
    }

    @Test func decodesSMPAndEmptyPayloads() throws {
        let smp = packet(
            "02 00",  // Length: 2
            "06 00",  // Channel ID: SMP
            "05 01"  // Pairing Failed, reason 0x01
        )
        try smp.withUnsafeBytes { raw throws in
            let frame = try L2CAPFrame.decode(raw)
            #expect(frame.channel == .smp)
            #expect(Array(frame.payload) == [0x05, 0x01])
        }
        let empty = packet("00 00", "05 00")  // LE signalling, no payload
        try empty.withUnsafeBytes { raw throws in
            let frame = try L2CAPFrame.decode(raw)
            #expect(frame.channel == .leSignaling)
            #expect(frame.payload.isEmpty)
        }
    }

    @Test func bytesPastTheDeclaredLengthAreIgnored() throws {
        let bytes = packet("01 00", "04 00", "1e", "ff ff")
        try bytes.withUnsafeBytes { raw throws in
            #expect(Array(try L2CAPFrame.decode(raw).payload) == [0x1E])
        }
    }

    @Test func everyTruncationPrefixThrows() {
        let bytes = packet("03 00", "04 00", "0a 03 00")
        for count in 0..<bytes.count {
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try Array(bytes.prefix(count)).withUnsafeBytes { raw throws in _ = try L2CAPFrame.decode(raw) }
            }
            #expect(error?.layer == .l2cap)
            #expect(error?.offset == (count < 2 ? 0 : count < 4 ? 2 : 4), "prefix of \(count) bytes")
        }
    }

    @Test func channelIdentifiers() {
        #expect(L2CAPChannelID.signaling.rawValue == 0x0001)
        #expect(L2CAPChannelID.att.rawValue == 0x0004)
        #expect(L2CAPChannelID.leSignaling.rawValue == 0x0005)
        #expect(L2CAPChannelID.smp.rawValue == 0x0006)
        #expect(L2CAPChannelID.att.description == "ATT")
        #expect(L2CAPChannelID.smp.description == "SMP")
        #expect(L2CAPChannelID(rawValue: 0x0040).description == "CID 0x40")
    }
}
