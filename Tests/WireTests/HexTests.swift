import Testing
import Wire

@Suite struct HexTests {
    @Test func parsesSpacedHex() {
        #expect(Wire.bytes(hex: "04 0e 04 01 03 0c 00") == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test func ignoresLineBreaksAndTabsAndTakesEitherCase() {
        #expect(Wire.bytes(hex: "DE ad\n\tBe\r\nEF") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Wire.bytes(hex: "0a1B2c") == [0x0A, 0x1B, 0x2C])
    }

    @Test func emptyTextIsNoBytes() {
        #expect(Wire.bytes(hex: "") == [])
        #expect(Wire.bytes(hex: "  \n") == [])
    }

    @Test(arguments: [
        "0",  // odd digit count
        "0 1 2",  // odd after removing spaces
        "zz",  // not hex
        "0x12",  // prefix
        "+f",  // a sign is not a digit
        "-0",
        "12 +f",
        "g0",
    ])
    func rejectsWhatIsNotHex(_ text: String) {
        #expect(Wire.bytes(hex: text) == nil)
    }

    @Test func hexStringIsLowercaseTwoDigitsPerByte() {
        let bytes: [UInt8] = [0x0A, 0x1B, 0x2C, 0x00, 0xFF]
        #expect(bytes.withUnsafeBytes(\.hexString) == "0a1b2c00ff")
        #expect([UInt8]().withUnsafeBytes(\.hexString) == "")
    }

    @Test func numbersHaveAtLeastTheDigitsAsked() {
        #expect(hex(0x13, digits: 2) == "0x13")
        #expect(hex(UInt16(0x40), digits: 4) == "0x0040")
        #expect(hex(UInt8(0xAB), digits: 2, prefixed: false, uppercase: true) == "AB")
        #expect(hex(0, digits: 0) == "0x0")
        #expect(hex(0x12345, digits: 2) == "0x12345")
        #expect(hex(UInt64.max, digits: 18, prefixed: false) == "00ffffffffffffffff")
        #expect(hex(-5, digits: 4) == "-0x0005")
        #expect(hex(Int8.min, digits: 2, prefixed: false) == "-80")
    }

    /// The digits written straight into the string are those of `String(_:radix:)`, padded.
    @Test(arguments: [0, 1, 2, 4, 8, 17])
    func numbersMatchTheStandardLibrarysDigits(_ digits: Int) {
        var values: [UInt64] = [0, 1, 0xF, 0x10, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0xDEAD_BEEF, UInt64.max]
        var next: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            next = next &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(next >> (next & 63))
        }
        for value in values {
            for (prefixed, uppercase) in [(true, false), (false, true)] {
                let text = String(value, radix: 16, uppercase: uppercase)
                let expected =
                    (prefixed ? "0x" : "") + String(repeating: "0", count: max(0, digits - text.count)) + text
                #expect(hex(value, digits: digits, prefixed: prefixed, uppercase: uppercase) == expected)
            }
        }
    }

    @Test func hexStringRoundTripsThroughBytes() {
        let bytes: [UInt8] = Array(0...255)
        let text = bytes.withUnsafeBytes(\.hexString)
        #expect(Wire.bytes(hex: text) == bytes)
    }
}

@Suite struct PacketKindTests {
    @Test(arguments: [
        (PacketKind.command, UInt8(0x01), "command"), (.acl, 0x02, "acl"), (.sco, 0x03, "sco"),
        (.event, 0x04, "event"), (.iso, 0x05, "iso"),
    ])
    func usesTheH4PacketIndicators(_ kind: PacketKind, _ indicator: UInt8, _ name: String) {
        #expect(kind.rawValue == indicator)
        #expect(PacketKind(rawValue: indicator) == kind)
        #expect(kind.description == name)
    }

    @Test func directionsPrintAsWords() {
        #expect(Direction.sent.description == "sent")
        #expect(Direction.received.description == "received")
    }
}

@Suite struct LineBufferDigitsTests {
    /// Two lowercase digits a byte, made without the buffer's tables or vector lanes.
    static func reference(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func writesEveryByteValueAsTwoLowercaseDigitsAtEveryLengthAndOffset() {
        // Lengths below, at and past the eight bytes done at once, every byte value in each
        // position of the eight lanes, and a start that is not aligned.
        let every = (0..<520).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        var buffer = LineBuffer(capacity: 4)
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 40, 257, 519] {
            for start in [0, 1, 3] where start + length <= every.count {
                let bytes = Array(every[start..<start + length])
                buffer.text("x")
                bytes.withUnsafeBytes { buffer.hexBytes($0) }
                #expect(
                    String(decoding: buffer.buffer, as: UTF8.self) == "x" + Self.reference(bytes),
                    "\(length) bytes from \(start)")
                buffer.removeAll()
            }
        }
        let all = (0...255).map(UInt8.init)
        all.withUnsafeBytes { buffer.hexBytes($0) }
        #expect(String(decoding: buffer.buffer, as: UTF8.self) == Self.reference(all))
    }

    @Test(arguments: [0, 1, 9, 10, 99, 100, 1_000, 10_000, 100_000, 123_456, 500_000, 999_999] as [UInt32])
    func writesSixDigitsWithZerosBefore(_ value: UInt32) {
        var buffer = LineBuffer()
        buffer.sixDigits(value)
        let digits = String(value)
        #expect(
            String(decoding: buffer.buffer, as: UTF8.self) == String(repeating: "0", count: 6 - digits.count) + digits)
    }
}
