import CoreBluetoothCodes
import Foundation
import Testing

/// Raw values as in Apple's CoreBluetooth `CBError.h` / `CBError.Code`.
@Suite struct CBErrorTests {
    @Test(
        arguments: [
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
        #expect(code.description == name)
        #expect(CBError.Code(rawValue: raw) == code)
        #expect(CBError(code).name == name)
    }

    @Test func thereAreNineteenNamedCodesAndAnyOtherValueIsUnnamed() {
        #expect(CBError.Code.allCases.count == 19)
        #expect(CBError.Code(rawValue: 19) == .unnamed(19))
        #expect(CBError.Code(rawValue: 19)?.rawValue == 19)
        #expect(CBError(.unnamed(6)).code == .connectionTimeout, "a named value is always its case")
        #expect(CBError.Code.unnamed(6) == .connectionTimeout)
        #expect(Set([CBError.Code.unnamed(6), .connectionTimeout, .unnamed(99)]).count == 2)
    }

    @Test(arguments: [19, 99, -1, Int.max])
    func unnamedCodesKeepTheirValue(_ raw: Int) {
        let error = CBError(errorCode: raw)
        #expect(error.name == nil)
        #expect(error.errorCode == raw)
        #expect(error.description == "CBError.Code(\(raw))")
        #expect((error as NSError).code == raw)
    }

    @Test func errorPrintsAsTheFlowFormatWritesIt() {
        #expect(CBError(.connectionTimeout).description == "CBError.connectionTimeout")
        #expect(CBError(errorCode: 99).description == "CBError.Code(99)")
        #expect(CBError.errorDomain == "CBErrorDomain")
        #expect(CBError(.peripheralDisconnected) == CBError(.peripheralDisconnected))
        #expect(CBError(.peripheralDisconnected) != CBError(.connectionTimeout))
    }

    @Test func bridgesToNSErrorWithApplesDomainAndCode() {
        let error: any Error = CBError(.connectionTimeout)
        let bridged = error as NSError
        #expect(bridged.domain == CBErrorDomain)
        #expect(bridged.domain == "CBErrorDomain")
        #expect(bridged.code == 6)
        #expect(!bridged.localizedDescription.isEmpty)
        #expect(error.localizedDescription == CBError(.connectionTimeout).localizedDescription)
    }

    @Test func matchesAsAppCodeMatchesIt() {
        let error: any Error = CBError(.peripheralDisconnected)
        // The shapes app code uses with Apple's CBError.
        #expect((error as? CBError)?.code == .peripheralDisconnected)
        #expect((error as? CBError)?.code == CBError.peripheralDisconnected)
        if case CBError.peripheralDisconnected = error {} else { Issue.record("pattern did not match") }
        if case CBError.connectionTimeout = error { Issue.record("pattern matched the wrong code") }
        do { throw error } catch CBError.peripheralDisconnected {} catch { Issue.record("catch pattern did not match") }
        let handled: String
        switch (error as! CBError).code {
        case .connectionTimeout: handled = "timeout"
        case .peripheralDisconnected: handled = "disconnected"
        default: handled = "other"
        }
        #expect(handled == "disconnected")
    }
}

/// Raw values as in Apple's `CBATTError.Code`, which are the ATT error codes 0x00-0x11.
@Suite struct CBATTErrorTests {
    @Test(
        arguments: [
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
        #expect(code.description == name)
        #expect(CBATTError(code).name == name)
        #expect(CBATTError(code).errorCode == raw)
    }

    @Test(arguments: [0x12, 0x13, 0x80, 0xFD, 0xFF, -1])
    func valuesWithoutACaseAreKept(_ raw: Int) {
        let error = CBATTError(errorCode: raw)
        #expect(error.errorCode == raw)
        #expect(error.name == nil)
        #expect(error.description == "CBATTError.Code(\(raw))")
        #expect((error as NSError).code == raw)
        #expect(error.code == .unnamed(raw))
        // As peripheral apps write an application error for respond(to:withResult:).
        #expect(CBATTError.Code(rawValue: raw)! == error.code)
    }

    @Test func errorDescriptionAndDomain() {
        #expect(CBATTError(.insufficientEncryption).description == "CBATTError.insufficientEncryption")
        #expect(CBATTError(errorCode: 0x80).description == "CBATTError.Code(128)")
        #expect(CBATTError.errorDomain == "CBATTErrorDomain")
        let bridged = CBATTError(.insufficientAuthentication) as NSError
        #expect(bridged.domain == CBATTErrorDomain)
        #expect(bridged.code == 5)
    }

    @Test func matchesWithApplesStaticMembers() {
        let error: any Error = CBATTError(.insufficientAuthentication)
        #expect((error as? CBATTError)?.code == CBATTError.insufficientAuthentication)
        do { throw error } catch CBATTError.insufficientAuthentication {} catch {
            Issue.record("catch pattern did not match")
        }
        if case CBError.unknown = error { Issue.record("a CBATTError matched a CBError pattern") }
    }
}

@Suite struct CBManagerStateTests {
    @Test(
        arguments: [
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

/// Apple's bridged-error members (`_BridgedStoredNSError`): `init(_:userInfo:)`,
/// `init(_nsError:)`, `_nsError`, `userInfo`, and the framework's texts.
@Suite struct CoreBluetoothErrorBridgingTests {
    @Test(
        arguments: [
            (CBError.Code.connectionTimeout, "The connection has timed out unexpectedly."),
            (.peripheralDisconnected, "The specified device has disconnected from us."),
            (.connectionFailed, "The connection has failed unexpectedly."),
            (.encryptionTimedOut, "Failed to encrypt the connection, the connection has timed out unexpectedly."),
            (.peerRemovedPairingInformation, "Peer removed pairing information"),
            (.unknown, "Unknown error."),
        ] as [(CBError.Code, String)])
    func errorsCarryTheTextsOfApplesFramework(_ code: CBError.Code, _ text: String) {
        let error = CBError(code)
        #expect(error.localizedDescription == text)
        #expect((error as any Error).localizedDescription == text, "through Foundation's Error.localizedDescription")
        #expect((error as NSError).localizedDescription == text)
        #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == text)
    }

    @Test func attErrorsWithoutATextOfTheirOwnAreUnknownATTErrors() {
        #expect(CBATTError(.insufficientAuthentication).localizedDescription == "Authentication is insufficient.")
        #expect(CBATTError(errorCode: 0x80).localizedDescription == "Unknown ATT error.")
        #expect(CBATTError(.success).userInfo.isEmpty, "the framework has no text for success")
    }

    @Test func codesWithoutAFrameworkTextGetFoundationsGenericOne() {
        let error = CBError(.leGattNearBackgroundNotificationLimit)
        #expect(error.userInfo.isEmpty)
        #expect(error.localizedDescription.contains("CBErrorDomain error 18"))
    }

    @Test func userInfoGivenIsKeptAndItsDescriptionWins() {
        let error = CBError(.connectionFailed, userInfo: [NSLocalizedDescriptionKey: "Page timeout", "extra": 7])
        #expect(error.localizedDescription == "Page timeout")
        #expect(error.userInfo["extra"] as? Int == 7)
        #expect(error.code == .connectionFailed)
        #expect(error != CBError(.connectionFailed), "equal as NSErrors are: the user info differs")
    }

    @Test func anErrorRebuiltFromItsNSErrorIsTheSameError() {
        let error = CBError(.peripheralDisconnected, userInfo: ["when": "now"])
        let nsError = error._nsError
        #expect(nsError.domain == CBErrorDomain && nsError.code == 7)
        let rebuilt = CBError(_nsError: nsError)
        #expect(rebuilt == error)
        #expect(rebuilt.hashValue == error.hashValue)
        #expect(CBATTError(_nsError: NSError(domain: CBATTErrorDomain, code: 0x81)).code == .unnamed(0x81))
    }

    @Test func errorsFromAnotherProcessArriveAsNSErrorsAndAreRebuilt() {
        // What app code does with an NSError it got from elsewhere (a log, an Objective-C layer).
        let received: any Error = NSError(domain: "CBErrorDomain", code: 6, userInfo: nil)
        let nsError = received as NSError
        guard nsError.domain == CBErrorDomain else { Issue.record("wrong domain"); return }
        let error = CBError(_nsError: nsError)
        #expect(error.code == .connectionTimeout)
        if case CBError.connectionTimeout = error as any Error {} else { Issue.record("pattern did not match") }
    }
}
