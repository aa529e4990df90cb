import Foundation
import ATT
import CoreBluetoothCodes
import HCI
import Testing

@Suite struct CoreBluetoothMappingTests {
    @Test(arguments: [0x08, 0x13, 0x16, 0x3E, 0x00] as [UInt8])
    func disconnectionTheAppAskedForHasNoError(_ reason: UInt8) {
        let mapped = CoreBluetoothMapping.disconnectionError(
            reason: HCIStatus(rawValue: reason), requestedByApp: true)
        #expect(mapped.value == nil)
        #expect(mapped.evidence == .documented)
    }

    @Test func supervisionTimeoutIsConnectionTimeout() {
        let mapped = CoreBluetoothMapping.disconnectionError(reason: HCIStatus(rawValue: 0x08), requestedByApp: false)
        #expect(mapped == Mapped<ConnectionError?>(value: .cb(CBError(.connectionTimeout)), evidence: .reported))
        #expect(mapped.value?.errorCode == 6)
    }

    @Test func remoteUserTerminatedIsPeripheralDisconnected() {
        let mapped = CoreBluetoothMapping.disconnectionError(reason: HCIStatus(rawValue: 0x13), requestedByApp: false)
        #expect(mapped == Mapped<ConnectionError?>(value: .cb(CBError(.peripheralDisconnected)), evidence: .reported))
        #expect(mapped.value?.errorCode == 7)
    }

    @Test func failedToBeEstablishedIsConnectionFailed() {
        let mapped = CoreBluetoothMapping.disconnectionError(reason: HCIStatus(rawValue: 0x3E), requestedByApp: false)
        #expect(mapped.value == .cb(CBError(.connectionFailed)))
        #expect(mapped.value?.errorCode == 10)
    }

    @Test(
        arguments: [
            (0x14, CBError.Code.peripheralDisconnected),  // remote: low resources
            (0x15, .peripheralDisconnected),  // remote: power off
            (0x22, .connectionTimeout),  // LL Response Timeout
            (0x05, .peerRemovedPairingInformation),  // Authentication Failure
            (0x06, .peerRemovedPairingInformation),  // PIN or Key Missing
        ] as [(UInt8, CBError.Code)])
    func hypothesesAreMarkedAsSuch(_ reason: UInt8, _ code: CBError.Code) {
        let mapped = CoreBluetoothMapping.disconnectionError(reason: HCIStatus(rawValue: reason), requestedByApp: false)
        #expect(mapped.value == .cb(CBError(code)))
        #expect(mapped.evidence == .hypothesis)
    }

    @Test(arguments: [0x16, 0x1F, 0x9C] as [UInt8])
    func unmappedReasonsAreUnknown(_ reason: UInt8) {
        let mapped = CoreBluetoothMapping.disconnectionError(reason: HCIStatus(rawValue: reason), requestedByApp: false)
        #expect(mapped.value == .cb(CBError(.unknown)))
        #expect(mapped.evidence != .documented)
    }

    /// The decompiled framework's CBInternalErrorDomain 31 "MIC failure" (the daemon's result 182);
    /// a hypothesis, since one decompiled bluetoothd branch gives CBError 0 instead.
    @Test func micFailureIsTheInternalDomainsMICFailure() {
        let mapped = CoreBluetoothMapping.disconnectionError(
            reason: .connectionTerminatedMICFailure, requestedByApp: false)
        #expect(mapped == Mapped(value: .internal(CBInternalError(.micFailure)), evidence: .hypothesis))
        #expect(mapped.value?.domain == "CBInternalErrorDomain")
        #expect(mapped.value?.errorCode == 31)
        #expect(mapped.value?.description == "CBInternalError.micFailure")
        #expect(mapped.value.map { $0.error as NSError }?.localizedDescription == "MIC failure")
    }

    @Test func connectionFailureErrors() {
        #expect(
            CoreBluetoothMapping.connectionFailureError(status: HCIStatus(rawValue: 0x3E))
                == Mapped(value: CBError(.connectionFailed), evidence: .hypothesis))
        // Formats/error-mapping.md grades 0x3E a hypothesis (no public report pairs it with code
        // 10): the label printed must be the table's.
        let disconnection = CoreBluetoothMapping.disconnectionError(
            reason: HCIStatus(rawValue: 0x3E), requestedByApp: false)
        #expect(disconnection.value == .cb(CBError(.connectionFailed)))
        #expect(disconnection.evidence == .hypothesis)
        #expect(
            CoreBluetoothMapping.connectionFailureError(status: HCIStatus(rawValue: 0x3B)).value == CBError(.unknown))
        #expect(CoreBluetoothMapping.connectionFailureError(status: .pageTimeout).value == CBError(.unknown))
    }

    @Test func attErrorsPassTheValueThrough() {
        let authentication = CoreBluetoothMapping.attError(ATTErrorCode(rawValue: 0x05))
        #expect(authentication.value == CBATTError(.insufficientAuthentication))
        #expect(authentication.value.code.rawValue == 5)
        #expect(authentication.evidence == .documented)

        // An application error has no CBATTError.Code case: the app sees the raw value.
        let application = CoreBluetoothMapping.attError(ATTErrorCode(rawValue: 0x80))
        #expect(application.value.errorCode == 128)
        #expect(application.value.name == nil)
    }

    @Test func everyATTErrorCodeKeepsItsValue() {
        for raw in UInt8.min...UInt8.max {
            let mapped = CoreBluetoothMapping.attError(ATTErrorCode(rawValue: raw))
            #expect(mapped.value.errorCode == Int(raw))
        }
    }

    @Test func attErrorNamesMatchForTheSharedRange() {
        #expect(CoreBluetoothMapping.attError(.insufficientEncryption).value.code == .insufficientEncryption)
        #expect(CoreBluetoothMapping.attError(.insufficientResources).value.code == .insufficientResources)
        #expect(CoreBluetoothMapping.attError(.encryptionKeySizeTooShort).value.code == .insufficientEncryptionKeySize)
        #expect(CoreBluetoothMapping.attError(.invalidPDU).value.code == .invalidPdu)
    }
}
