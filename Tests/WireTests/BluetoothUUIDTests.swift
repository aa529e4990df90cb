import TestSupport
import Testing
import Wire

@Suite struct BluetoothUUIDTests {
    /// 0000180D-0000-1000-8000-00805F9B34FB: Heart Rate in the Bluetooth Base UUID.
    static let heartRateFull = BluetoothUUID(high: 0x0000_180D_0000_1000, low: 0x8000_0080_5F9B_34FB)
    /// 6E400001-B5A3-F393-E0A9-E50E24DCCA9E: a vendor UUID (Nordic UART Service).
    static let vendor = BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)

    @Test func sixteenBitUUIDEqualsItsExpansionOfTheBaseUUID() {
        let short = BluetoothUUID(UInt16(0x180D))
        #expect(short == Self.heartRateFull)
        #expect(short.high == 0x0000_180D_0000_1000)
        #expect(short.low == 0x8000_0080_5F9B_34FB)
        #expect(Set([short, Self.heartRateFull]).count == 1)
        #expect(short != BluetoothUUID(UInt16(0x180F)))
    }

    @Test func thirtyTwoBitUUIDExpandsIntoTheBaseUUID() {
        let uuid = BluetoothUUID(UInt32(0x1234_5678))
        #expect(uuid == BluetoothUUID(high: 0x1234_5678_0000_1000, low: 0x8000_0080_5F9B_34FB))
        #expect(uuid.shortValue == nil)
        #expect(BluetoothUUID(UInt32(0x0000_180D)) == BluetoothUUID(UInt16(0x180D)))
    }

    @Test func shortValueOnlyForSixteenBitAliases() {
        #expect(BluetoothUUID(UInt16(0x2A37)).shortValue == 0x2A37)
        #expect(Self.heartRateFull.shortValue == 0x180D)
        #expect(Self.vendor.shortValue == nil)
        // Base UUID's tail but not its 0000-1000 middle.
        #expect(BluetoothUUID(high: 0x0000_180D_0000_1001, low: 0x8000_0080_5F9B_34FB).shortValue == nil)
    }

    @Test func describesSixteenBitAliasesAsFourDigits() {
        #expect(BluetoothUUID(UInt16(0x180D)).description == "180D")
        #expect(BluetoothUUID(UInt16(0x2A37)).description == "2A37")
        #expect(BluetoothUUID(UInt16(0x0001)).description == "0001")
        #expect(Self.heartRateFull.description == "180D")
    }

    @Test func describesOtherUUIDsInTheFullUppercaseForm() {
        #expect(Self.vendor.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        // CBUUID prints a 32-bit alias as its 8 hex digits.
        #expect(BluetoothUUID(UInt32(0x1234_5678)).description == "12345678")
        #expect(BluetoothUUID(high: 1, low: 2).description == "00000000-0000-0001-0000-000000000002")
    }

    struct LittleEndianCase: Sendable, CustomTestStringConvertible {
        var hex: String
        var expected: BluetoothUUID
        var testDescription: String { hex }
    }

    @Test(arguments: [
        // 16-bit 0x180D, least significant byte first.
        LittleEndianCase(hex: "0d 18", expected: BluetoothUUID(UInt16(0x180D))),
        // 32-bit 0x12345678.
        LittleEndianCase(hex: "78 56 34 12", expected: BluetoothUUID(UInt32(0x1234_5678))),
        // 128-bit 6E400001-B5A3-F393-E0A9-E50E24DCCA9E, byte-reversed as ATT carries it:
        // 9E CA DC 24 0E E5 | A9 E0 | 93 F3 | A3 B5 | 01 00 40 6E
        LittleEndianCase(
            hex: "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e",
            expected: BluetoothUUIDTests.vendor),
        // 128-bit form of 0x180D: base UUID FB 34 9B 5F 80 00 | 00 80 | 00 10 | 00 00 | 0D 18 00 00.
        LittleEndianCase(
            hex: "fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00",
            expected: BluetoothUUID(UInt16(0x180D))),
    ])
    func decodesLittleEndianBytes(_ row: LittleEndianCase) throws {
        let bytes = packet(row.hex)
        let uuid = bytes.withUnsafeBytes { BluetoothUUID(littleEndian: $0) }
        #expect(uuid == row.expected)
    }

    @Test func sixteenByteFormOfAnAliasPrintsShort() {
        let bytes = packet("fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00")
        let uuid = bytes.withUnsafeBytes { BluetoothUUID(littleEndian: $0) }
        #expect(uuid?.description == "180D")
    }

    @Test(arguments: [0, 1, 3, 5, 8, 15, 17, 32])
    func rejectsOtherLengths(_ count: Int) {
        let bytes = [UInt8](repeating: 0x11, count: count)
        #expect(bytes.withUnsafeBytes { BluetoothUUID(littleEndian: $0) } == nil)
    }
}
