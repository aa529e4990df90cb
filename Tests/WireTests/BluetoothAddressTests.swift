import TestSupport
import Testing
import Wire

@Suite struct BluetoothAddressTests {
    @Test(arguments: [
        "AA:BB:CC:DD:EE:FF",
        "aa:bb:cc:dd:ee:ff",
        "AA-BB-CC-DD-EE-FF",
        "aA-Bb-cC-Dd-eE-Ff",
    ])
    func parsesMostSignificantByteFirst(_ text: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(address.rawValue == 0xAABB_CCDD_EEFF)
        #expect(address.description == "AA:BB:CC:DD:EE:FF")
    }

    @Test(arguments: [
        "",
        "AA:BB:CC:DD:EE",  // five bytes
        "AA:BB:CC:DD:EE:FF:00",  // seven bytes
        "AABBCCDDEEFF",  // no separators
        "AA:BB:CC:DD:EE:GG",  // not hex
        "A:BB:CC:DD:EE:FFF",  // wrong widths
        "AA:BB:CC:DD:EE:F",  // one digit
        "AA:BB:CC:DD:EE:FF:",  // trailing separator
        ":AA:BB:CC:DD:EE:FF",  // leading separator
        "AA::BB:CC:DD:EE:FF",  // doubled separator
        "AA:BB:CC:DD:EE:+F",  // a sign is not a hex digit
        "+A:BB:CC:DD:EE:FF",
        "AA BB CC DD EE FF",  // spaces are not separators
        "AA:BB:CC:DD:EE:FF ",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func printsTwoUppercaseDigitsPerByte() {
        let address = BluetoothAddress(rawValue: 0x0102_0A0B_C0FF)
        #expect(address.description == "01:02:0A:0B:C0:FF")
        #expect(BluetoothAddress(rawValue: 0).description == "00:00:00:00:00:00")
    }

    @Test(arguments: [
        "00:00:00:00:00:00", "FF:FF:FF:FF:FF:FF", "C4:5B:BE:12:34:56", "00:1A:7D:DA:71:13",
    ])
    func descriptionRoundTrips(_ text: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(address.description == text)
        #expect(BluetoothAddress(address.description) == address)
    }

    @Test func littleEndianBytesAreInHCIOrder() throws {
        let address = try #require(BluetoothAddress("C4:5B:BE:12:34:56"))
        #expect(address.littleEndianBytes == packet("56 34 12 be 5b c4"))
    }

    @Test func keepsOnlyTheLow48Bits() {
        #expect(BluetoothAddress(rawValue: 0xFFFF_1122_3344_5566).rawValue == 0x1122_3344_5566)
    }

    @Test func ordersByValue() throws {
        let low = try #require(BluetoothAddress("00:00:00:00:00:FF"))
        let high = try #require(BluetoothAddress("01:00:00:00:00:00"))
        #expect(low < high)
        #expect(!(high < low))
    }
}
