import CoreBluetoothCodes
import Testing

/// Raw values as in Apple's CoreBluetooth `CBError.h` / `CBError.Code`.
@Suite struct CBErrorTests {
    @Test(arguments: [
        (CBError.Code.unknown, 0, "unknown"),
        (.invalidParameters, 1, "invalidParameters"),
        (.invalidHandle, 2, "invalidHandle"),
        (.notConnected, 3, "notConnected"),
        (.outOfSpace, 4, "outOfSpace"),
        (.operationCancelled, 5, "operationCancelled"),
        (.connectionTimeout, 6, "connectionTimeout"),
        (.peripheralDisconnected, 7, "peripheralDisconnected"),
        (.uuidNotAllowed, 8, "uuidNotAllowed"),
        (.alreadyAdvertising, 9, "alreadyAdvertising"),
        (.connectionFailed, 10, "connectionFailed"),
        (.connectionLimitReached, 11, "connectionLimitReached"),
        (.unknownDevice, 12, "unknownDevice"),
        (.operationNotSupported, 13, "operationNotSupported"),
        (.peerRemovedPairingInformation, 14, "peerRemovedPairingInformation"),
        (.encryptionTimedOut, 15, "encryptionTimedOut"),
        (.tooManyLEPairedDevices, 16, "tooManyLEPairedDevices"),
        (.leGattExceededBackgroundNotificationLimit, 17, "leGattExceededBackgroundNotificationLimit"),
        (.leGattNearBackgroundNotificationLimit, 18, "leGattNearBackgroundNotificationLimit"),
    ] as [(CBError.Code, Int, String)])
    func codesHaveApplesRawValuesAndNames(_ code: CBError.Code, _ raw: Int, _ name: String) {
        #expect(code.rawValue == raw)
        #expect(code.name == name)
        #expect(code.description == name)
        #expect(CBError.Code(rawValue: raw) == code)
    }

    @Test(arguments: [19, 99, -1, Int.max])
    func unnamedCodesPrintTheirValue(_ raw: Int) {
        let code = CBError.Code(rawValue: raw)
        #expect(code.name == nil)
        #expect(code.description == "CBError.Code(\(raw))")
    }

    @Test func unnamedCode99() {
        #expect(CBError.Code(rawValue: 99).description == "CBError.Code(99)")
    }

    @Test func errorPrintsAsTheFlowFormatWritesIt() {
        #expect(CBError(.connectionTimeout).description == "CBError.connectionTimeout")
        #expect(CBError(.init(rawValue: 99)).description == "CBError.Code(99)")
        #expect(CBError.errorDomain == "CBErrorDomain")
        #expect(CBError(.peripheralDisconnected) == CBError(.peripheralDisconnected))
        #expect(CBError(.peripheralDisconnected) != CBError(.connectionTimeout))
    }
}

/// Raw values as in Apple's `CBATTError.Code`, which are the ATT error codes 0x00-0x11.
@Suite struct CBATTErrorTests {
    @Test(arguments: [
        (CBATTError.Code.success, 0, "success"),
        (.invalidHandle, 1, "invalidHandle"),
        (.readNotPermitted, 2, "readNotPermitted"),
        (.writeNotPermitted, 3, "writeNotPermitted"),
        (.invalidPdu, 4, "invalidPdu"),
        (.insufficientAuthentication, 5, "insufficientAuthentication"),
        (.requestNotSupported, 6, "requestNotSupported"),
        (.invalidOffset, 7, "invalidOffset"),
        (.insufficientAuthorization, 8, "insufficientAuthorization"),
        (.prepareQueueFull, 9, "prepareQueueFull"),
        (.attributeNotFound, 10, "attributeNotFound"),
        (.attributeNotLong, 11, "attributeNotLong"),
        (.insufficientEncryptionKeySize, 12, "insufficientEncryptionKeySize"),
        (.invalidAttributeValueLength, 13, "invalidAttributeValueLength"),
        (.unlikelyError, 14, "unlikelyError"),
        (.insufficientEncryption, 15, "insufficientEncryption"),
        (.unsupportedGroupType, 16, "unsupportedGroupType"),
        (.insufficientResources, 17, "insufficientResources"),
    ] as [(CBATTError.Code, Int, String)])
    func codesHaveApplesRawValuesAndNames(_ code: CBATTError.Code, _ raw: Int, _ name: String) {
        #expect(code.rawValue == raw)
        #expect(code.name == name)
        #expect(code.description == name)
    }

    @Test(arguments: [0x12, 0x13, 0x80, 0xFD, 0xFF, -1])
    func valuesWithoutACaseAreKept(_ raw: Int) {
        let code = CBATTError.Code(rawValue: raw)
        #expect(code.rawValue == raw)
        #expect(code.name == nil)
        #expect(code.description == "CBATTError.Code(\(raw))")
    }

    @Test func errorDescriptionAndDomain() {
        #expect(CBATTError(.insufficientEncryption).description == "CBATTError.insufficientEncryption")
        #expect(CBATTError(.init(rawValue: 0x80)).description == "CBATTError.Code(128)")
        #expect(CBATTError.errorDomain == "CBATTErrorDomain")
    }
}

@Suite struct CBManagerStateTests {
    @Test(arguments: [
        (CBManagerState.unknown, 0, "unknown"),
        (.resetting, 1, "resetting"),
        (.unsupported, 2, "unsupported"),
        (.unauthorized, 3, "unauthorized"),
        (.poweredOff, 4, "poweredOff"),
        (.poweredOn, 5, "poweredOn"),
    ] as [(CBManagerState, Int, String)])
    func statesHaveApplesRawValuesAndNames(_ state: CBManagerState, _ raw: Int, _ name: String) {
        #expect(state.rawValue == raw)
        #expect(CBManagerState(rawValue: raw) == state)
        #expect(state.description == name)
        #expect(CBManagerState(name: name) == state)
    }

    @Test func allSixStates() {
        #expect(CBManagerState.allCases.count == 6)
        #expect(CBManagerState(rawValue: 6) == nil)
    }

    @Test(arguments: ["", "PoweredOn", "powered on", "on", ".poweredOn"])
    func unknownNamesAreRejected(_ name: String) {
        #expect(CBManagerState(name: name) == nil)
    }
}
