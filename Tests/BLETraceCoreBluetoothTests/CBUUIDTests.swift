import Foundation
import Testing

@testable import BLETraceCoreBluetooth

@Suite struct CBUUIDTests {
    @Test(
        arguments: [
            ("180D", "180D", [0x18, 0x0D] as [UInt8]),
            ("180d", "180D", [0x18, 0x0D]),
            ("12345678", "12345678", [0x12, 0x34, 0x56, 0x78]),
            ("0000180D-0000-1000-8000-00805F9B34FB", "180D", [0x18, 0x0D]),
            (
                "6E400001-B5A3-F393-E0A9-E50E24DCCA9E", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E",
                [0x6E, 0x40, 0x00, 0x01, 0xB5, 0xA3, 0xF3, 0x93, 0xE0, 0xA9, 0xE5, 0x0E, 0x24, 0xDC, 0xCA, 0x9E]
            ),
            (
                "6e400001-b5a3-f393-e0a9-e50e24dcca9e", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E",
                [0x6E, 0x40, 0x00, 0x01, 0xB5, 0xA3, 0xF3, 0x93, 0xE0, 0xA9, 0xE5, 0x0E, 0x24, 0xDC, 0xCA, 0x9E]
            ),
        ] as [(String, String, [UInt8])])
    func stringsParseToApplesFormsAndBytes(_ text: String, _ uuidString: String, _ bytes: [UInt8]) {
        let uuid = CBUUID(string: text)
        #expect(uuid.uuidString == uuidString)
        #expect([UInt8](uuid.data) == bytes)
        #expect(CBUUID(data: Data(bytes)) == uuid)
    }

    @Test func shortAndLongFormsOfABaseUUIDAreEqualAndHashAlike() {
        let short = CBUUID(string: "2A37")
        let long = CBUUID(string: "00002A37-0000-1000-8000-00805F9B34FB")
        #expect(short == long)
        #expect(Set([short, long]).count == 1)
        #expect(short != CBUUID(string: "2A38"))
        #expect((short.copy() as? CBUUID) == short)
    }

    @Test func descriptionNamesAssignedNumbersAsCoreBluetoothPrintsThem() {
        #expect(CBUUID(string: "180D").description == "Heart Rate")
        #expect(CBUUID(string: "FFF0").description == "FFF0")
    }

    @Test func nsuuidKeepsAll128Bits() {
        let nsuuid = UUID(uuidString: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        #expect(CBUUID(nsuuid: nsuuid).uuidString == nsuuid.uuidString)
    }

    @Test func theDescriptorConstantsAreTheirUUIDs() {
        #expect(CBUUID(string: CBUUIDClientCharacteristicConfigurationString).uuidString == "2902")
        #expect(CBUUID(string: CBUUIDCharacteristicUserDescriptionString).uuidString == "2901")
    }

    @Test(arguments: [
        "", "180", "180G", "12345", "0000180D00001000800000805F9B34FB", "0000180D-0000-1000-8000_00805F9B34FB",
    ])
    func stringsCoreBluetoothRefusesAreNotUUIDs(_ text: String) {
        #expect(CBUUID.parse(text) == nil)
    }

    @Test func aStringCoreBluetoothRefusesEndsTheProgramAsItsExceptionWould() async {
        await #expect(processExitsWith: .failure) {
            _ = CBUUID(string: "180G")
        }
    }

    @Test func dataOfAnotherLengthEndsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = CBUUID(data: Data([1, 2, 3]))
        }
    }
}
