import ATT
import TestSupport
import Testing
import Wire

@Suite struct CharacteristicDeclarationTests {
    @Test func readsPropertiesValueHandleAndA16BitUUID() throws {
        // Properties 0x10 (notify), value handle 0x0010, UUID 0x2A37 (Core 6.0, Vol 3, Part G, §3.3.1).
        let bytes = packet("10", "10 00", "37 2a")
        let declaration = try #require(bytes.withUnsafeBytes { CharacteristicDeclaration(value: $0) })
        #expect(declaration.properties == 0x10)
        #expect(declaration.valueHandle == 0x0010)
        #expect(declaration.uuid == BluetoothUUID(UInt16(0x2A37)))
    }

    @Test func readsA128BitUUID() throws {
        // 0000AAA1-0000-1000-8000-00805F9B34FB, least significant byte first.
        let bytes = packet("0a", "18 00", "fb 34 9b 5f 80 00 00 80 00 10 00 00 a1 aa 00 00")
        let declaration = try #require(bytes.withUnsafeBytes { CharacteristicDeclaration(value: $0) })
        #expect(declaration.uuid == BluetoothUUID(UInt16(0xAAA1)))
        #expect(declaration.valueHandle == 0x0018)
    }

    @Test(arguments: [0, 3, 4, 6, 18, 20])
    func refusesOtherLengths(_ length: Int) {
        let bytes = [UInt8](repeating: 0x01, count: length)
        #expect(bytes.withUnsafeBytes { CharacteristicDeclaration(value: $0) } == nil)
    }
}
