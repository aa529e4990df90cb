import TestSupport
import Testing
import Wire

@Suite struct ByteReaderTests {
    @Test func readsLittleEndianIntegersLeastSignificantByteFirst() throws {
        let bytes = packet(
            "ab",  // u8 0xAB
            "34 12",  // u16le 0x1234
            "56 34 12",  // u24le 0x123456
            "78 56 34 12"  // u32le 0x12345678
        )
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .hci)
            #expect(try reader.u8("u8") == 0xAB)
            #expect(reader.offset == 1)
            #expect(try reader.u16le("u16") == 0x1234)
            #expect(reader.offset == 3)
            #expect(try reader.u24le("u24") == 0x12_3456)
            #expect(reader.offset == 6)
            #expect(try reader.u32le("u32") == 0x1234_5678)
            #expect(reader.offset == 10)
            #expect(reader.isAtEnd)
            #expect(reader.remaining == 0)
        }
    }

    @Test func readsBigEndianIntegersMostSignificantByteFirst() throws {
        let bytes = packet(
            "12 34",  // u16be 0x1234
            "12 34 56 78",  // u32be 0x12345678
            "00 dc dd b3 0f 2f 80 00",  // i64be 0x00DCDDB30F2F8000 (btsnoop's year-0 offset)
            "ff ff ff ff ff ff ff fe",  // i64be -2
            "80 00 00 00 00 00 00 00"  // i64be Int64.min
        )
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .btsnoop)
            #expect(try reader.u16be("u16") == 0x1234)
            #expect(try reader.u32be("u32") == 0x1234_5678)
            #expect(try reader.i64be("i64") == 0x00DC_DDB3_0F2F_8000)
            #expect(try reader.i64be("i64") == -2)
            #expect(try reader.i64be("i64") == Int64.min)
            #expect(reader.isAtEnd)
        }
    }

    @Test func sameBytesReadDifferentlyInEachByteOrder() throws {
        let bytes = packet("01 02 03 04")
        try bytes.withUnsafeBytes { raw throws in
            var little = ByteReader(raw, layer: .hci)
            var big = ByteReader(raw, layer: .hci)
            #expect(try little.u32le("u32") == 0x0403_0201)
            #expect(try big.u32be("u32") == 0x0102_0304)
        }
    }

    @Test func readsAnAddressLeastSignificantByteFirstAndPrintsItMostSignificantFirst() throws {
        // BD_ADDR C4:5B:BE:12:34:56 as HCI carries it: 0x56 first, 0xC4 last.
        let bytes = packet("56 34 12 be 5b c4")
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .hci)
            let address = try reader.address("peer address")
            #expect(address.rawValue == 0xC45B_BE12_3456)
            #expect(address.description == "C4:5B:BE:12:34:56")
            #expect(reader.offset == 6)
        }
    }

    @Test func bytesReturnsABorrowedViewAndAdvances() throws {
        let bytes = packet(
            "0a",  // skipped
            "01 02 03",  // the view
            "04 05"  // the rest
        )
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .att)
            try reader.skip(1, "first byte")
            let view = try reader.bytes(3, "three bytes")
            #expect(view.baseAddress == raw.baseAddress! + 1)
            #expect(Array(view) == [0x01, 0x02, 0x03])
            #expect(reader.offset == 4)
            let rest = reader.rest()
            #expect(rest.baseAddress == raw.baseAddress! + 4)
            #expect(Array(rest) == [0x04, 0x05])
            #expect(reader.offset == 6)
            #expect(reader.isAtEnd)
            #expect(reader.rest().isEmpty)
        }
    }

    @Test func zeroLengthBytesAtTheEndIsAnEmptyView() throws {
        let bytes = packet("01")
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .att, offset: 1)
            #expect(try reader.bytes(0, "nothing").isEmpty)
            #expect(reader.offset == 1)
        }
    }

    @Test func startsAtTheGivenOffset() throws {
        let bytes = packet("ff ff", "34 12")
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .hci, offset: 2)
            #expect(reader.remaining == 2)
            #expect(try reader.u16le("u16") == 0x1234)
        }
    }

    /// One read of each width, tried on too few bytes.
    struct ShortRead: Sendable, CustomTestStringConvertible {
        /// Also the `expected` text the read passes.
        var name: String
        var label: String? = nil
        /// Bytes available from the reader's start offset.
        var available: Int
        var read: @Sendable (inout ByteReader) throws -> Void
        var testDescription: String { "\(label ?? name) with \(available) bytes" }
    }

    static let shortReads: [ShortRead] = [
        .init(name: "u8", available: 0) { _ = try $0.u8("u8") },
        .init(name: "u16le", available: 1) { _ = try $0.u16le("u16le") },
        .init(name: "u24le", available: 2) { _ = try $0.u24le("u24le") },
        .init(name: "u32le", available: 3) { _ = try $0.u32le("u32le") },
        .init(name: "u16be", available: 1) { _ = try $0.u16be("u16be") },
        .init(name: "u32be", available: 3) { _ = try $0.u32be("u32be") },
        .init(name: "i64be", available: 7) { _ = try $0.i64be("i64be") },
        .init(name: "address", available: 5) { _ = try $0.address("address") },
        .init(name: "bytes", available: 3) { _ = try $0.bytes(4, "bytes") },
        .init(name: "skip", available: 1) { try $0.skip(2, "skip") },
        .init(name: "require", available: 0) { try $0.require(1, "require") },
        .init(name: "require", label: "negative require", available: 4) { try $0.require(-1, "require") },
    ]

    @Test(arguments: shortReads, [DecodeError.Layer.hci, .btsnoop, .att])
    func everyReadPastTheEndThrowsWithLayerAndOffset(_ read: ShortRead, layer: DecodeError.Layer) {
        // Three bytes already consumed, then `available` more.
        let bytes = [UInt8](repeating: 0xEE, count: 3 + read.available)
        bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, layer: layer, offset: 3)
            let error = #expect(throws: DecodeError.self) { try read.read(&reader) }
            #expect(error?.layer == layer)
            #expect(error?.offset == 3)
            #expect(error?.expected == read.name)
            // A failed read consumes nothing.
            #expect(reader.offset == 3)
        }
    }

    @Test func errorNamesTheCurrentOffset() throws {
        let bytes = packet("01 02 03")
        try bytes.withUnsafeBytes { raw throws in
            var reader = ByteReader(raw, layer: .l2cap)
            _ = try reader.u16le("u16")
            let error = reader.error("something else")
            #expect(error == DecodeError(layer: .l2cap, offset: 2, expected: "something else"))
        }
    }
}
