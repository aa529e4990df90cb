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
