import ATT
import CoreBluetoothCodes
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// Reads a capture through the decoder and the analyzer, showing each record to `body` after
/// the analyzer has seen it.
func readThrough(_ path: String, _ body: (CaptureRecord, DecodedRecord, LifecycleAnalyzer) -> Void) throws {
    let reader = try CaptureReader(path: path)
    var decoder = TraceDecoder()
    var analyzer = LifecycleAnalyzer()
    while let record = try reader.next() {
        let decoded = decoder.decode(record)
        analyzer.add(record, decoded)
        body(record, decoded, analyzer)
    }
}

func collectErrors(_ path: String) throws -> [TraceError] {
    var collector = ErrorCollector()
    try readThrough(path) { collector.add($0, $1, analyzer: $2) }
    return collector.errors
}

@Suite struct ErrorCollectorTests {
    @Test func findsEveryATTErrorOfTheBumbleCaptureWithItsRequestAttributeAndCoreBluetoothEquivalent() throws {
        let errors = try collectErrors(Fixtures.capture("att-errors.btsnoop"))
        let unexpected = errors.filter { !$0.expected }
        // Captures/README.md: 0x02 on a read of 0x001B, 0x03 on a write to 0x001D, 0x05 on a write
        // to 0x001F, 0x01 on a read of 0x00F0, 0x80 on a write to 0x0021; 6 × 0x0A ending discovery.
        #expect(unexpected.map(\.code) == [0x02, 0x03, 0x05, 0x01, 0x80])
        #expect(unexpected.map(\.attributeHandle) == [0x1B, 0x1D, 0x1F, 0xF0, 0x21])
        #expect(unexpected.map(\.requestOpcode) == [0x0A, 0x12, 0x12, 0x0A, 0x12])
        #expect(
            unexpected[0].attribute == AttributeInfo(uuid: BluetoothUUID(UInt16(0xEEE1)), role: .characteristicValue))
        #expect(unexpected[3].attribute == nil)  // no such attribute
        #expect(unexpected.allSatisfy { $0.peer == BluetoothAddress("F0:F1:F2:F3:F4:05") && $0.connection == 1 })
        #expect(unexpected[2].coreBluetooth?.name == "insufficientAuthentication")
        #expect(unexpected[2].coreBluetooth?.callback == "peripheral(_:didWriteValueFor:error:)")
        #expect(unexpected[4].coreBluetooth?.code == 0x80)
        #expect(unexpected[4].coreBluetooth?.name == nil)
        let expected = errors.filter(\.expected)
        #expect(expected.count == 6)
        #expect(expected.allSatisfy { $0.code == 0x0A && [0x04, 0x08, 0x10].contains($0.requestOpcode) })
    }

    @Test func anAttributeNotFoundEndingACharacteristicDiscoveryIsAboutTheRangeAndGoesToTheDiscoveryCallback() throws {
        // service-changed.btsnoop (Captures/README.md): the Read By Type of 0x2803 over
        // 0x001B..0x001B is answered Attribute Not Found; 0x001B is a characteristic value that
        // discovery has already revealed, which the error is not about.
        let errors = try collectErrors(Fixtures.capture("service-changed.btsnoop"))
        let error = try #require(errors.first { $0.requestOpcode == 0x08 && $0.attributeHandle == 0x1B })
        #expect(error.code == 0x0A)
        #expect(error.procedure == .characteristics)
        #expect(error.searchedType == BluetoothUUID(UInt16(0x2803)))
        #expect(error.attribute == nil)
        #expect(error.expected)
        #expect(error.coreBluetooth?.callback == "peripheral(_:didDiscoverCharacteristicsFor:error:)")
        // Every Attribute Not Found of the file ends a search: none is described as an attribute's.
        let notFound = errors.filter { $0.code == 0x0A }
        #expect(notFound.count == 8)
        #expect(notFound.allSatisfy { $0.procedure != nil && $0.attribute == nil && $0.expected })
        #expect(
            notFound.filter { $0.requestOpcode == 0x10 }.allSatisfy {
                $0.coreBluetooth?.callback == "peripheral(_:didDiscoverServices:)"
            })
    }

    @Test(.sharedCaptures) func androidsSearchForServerSupportedFeaturesIsAValueSearchWithNoDelegateMethod() throws {
        // syssi-jkbms-b5a24s record 10 (tshark frame 11) answers a Read By Type of 0x2B3A over
        // 0x0001..0xFFFF (frame 3).
        let errors = try collectErrors(Fixtures.publicCapture("syssi-jkbms-b5a24s.btsnoop"))
        let error = try #require(errors.first { $0.record == 10 })
        #expect(error.procedure == .valueSearch)
        #expect(error.searchedType == BluetoothUUID(UInt16(0x2B3A)))
        #expect(error.attribute == nil)
        #expect(error.expected)
        #expect(error.coreBluetooth?.callback.contains("didUpdateValueFor") == false)
    }

    @Test(.sharedCaptures) func anApplicationErrorOnACCCDWriteGoesToDidUpdateNotificationState() throws {
        let errors = try collectErrors(Fixtures.publicCapture("syssi-jkbms-b5a24s.btsnoop"))
        let error = try #require(errors.first { $0.code == 0x80 })
        #expect(error.attributeHandle == 0x14)
        #expect(error.attribute?.uuid == BluetoothUUID(UInt16(0x2902)))
        #expect(error.coreBluetooth?.callback == "peripheral(_:didUpdateNotificationStateFor:error:)")
    }

    @Test func aSupervisionTimeoutIsAnHCIFailureAndTheHostsOwnDisconnectIsNot() throws {
        let errors = try collectErrors(Fixtures.capture("reconnect-supervision-timeout.btsnoop")).filter {
            $0.layer == .hci
        }
        #expect(errors.count == 1)
        #expect(errors[0].code == 0x08)
        #expect(errors[0].coreBluetooth?.name == "connectionTimeout")
        #expect(errors[0].coreBluetooth?.callback == "centralManager(_:didDisconnectPeripheral:error:)")
    }

    @Test(.sharedCaptures) func cancelledAttemptsAreExpectedAndRefusedCommandsAreNot() throws {
        let errors = try collectErrors(Fixtures.publicCapture("fotonick-hciparse-test00.pklg"))
        let cancelled = errors.filter { $0.layer == .hci && $0.code == 0x02 && $0.requestOpcode == nil }
        #expect(cancelled.count == 62)
        #expect(cancelled.allSatisfy { $0.expected && $0.coreBluetooth == nil })
        // SOURCES.md (tshark): 70 Command Complete and 3 Command Status carry Command Disallowed.
        let disallowed = errors.filter { $0.code == 0x0C }
        #expect(disallowed.count == 73)
        #expect(disallowed.allSatisfy { !$0.expected && $0.requestOpcode != nil })
    }
}
