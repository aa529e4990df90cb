import CoreBluetoothCodes
import Foundation
import Testing

/// CoreBluetooth's errors passed on as `NSError` (issue 41 item 14: Bluejay does
/// `error as NSError?`) come back as on iOS: `as? CBATTError`, `catch CBATTError.readNotPermitted`,
/// `case CBError.connectionTimeout = error`.
@Suite struct ErrorBridgingTests {
    /// What a library does with the error it was given before handing it on.
    func passedOn(_ error: any Error) -> (any Error)? { error as NSError? }

    @Test func anATTErrorPassedOnAsNSErrorCastsBack() throws {
        let error = try #require(passedOn(CBATTError(.readNotPermitted)))
        #expect(type(of: error) != CBATTError.self, "the library's value is an NSError")
        let back = try #require(error as? CBATTError)
        #expect(back.code == .readNotPermitted)
        #expect(back.localizedDescription == CBATTError(.readNotPermitted).localizedDescription)
        #expect(error as? CBError == nil, "another domain does not cast")
    }

    @Test func aCatchMatchesTheCodeOfAnNSError() throws {
        func read() throws { throw passedOn(CBATTError(.readNotPermitted))! }
        var caught = ""
        do { try read() } catch CBATTError.insufficientAuthentication {
            caught = "insufficientAuthentication"
        } catch CBATTError.readNotPermitted {
            caught = "readNotPermitted"
        } catch {
            caught = "other"
        }
        #expect(caught == "readNotPermitted")
    }

    @Test func aCaseMatchesACBErrorFromAnNSErrorWithItsUserInfo() throws {
        let error = try #require(passedOn(CBError(.connectionTimeout, userInfo: ["peer": "lock"])))
        guard case CBError.connectionTimeout = error else {
            Issue.record("CBError.connectionTimeout did not match \(error)")
            return
        }
        let back = try #require(error as? CBError)
        #expect(back.userInfo["peer"] as? String == "lock")
        #expect(back == CBError(.connectionTimeout, userInfo: ["peer": "lock"]))
    }

    @Test func anNSErrorMadeByHandWithTheDomainAndAnUnnamedCodeCastsToo() throws {
        let error: any Error = NSError(domain: CBATTErrorDomain, code: 0x80)
        let back = try #require(error as? CBATTError)
        #expect(back.errorCode == 0x80)
        #expect((NSError(domain: "NSPOSIXErrorDomain", code: 1) as any Error) as? CBATTError == nil)
    }
}

/// The `CBInternalErrorDomain` codes the decompiled `errorWithInfo:` (iOS 18.2) makes that concern
/// a Bluetooth LE app (review E-26): each with the framework's number and text.
@Suite struct InternalErrorTableTests {
    @Test(arguments: [
        (CBInternalError.Code.pairingPasscodeIncorrect, 0, "Pairing failed as the passcode was incorrect."),
        (.pairingAlreadyPaired, 1, "Pairing failed as this device is already paired."),
        (.operationNotAllowed, 10, "Operation is not allowed"),
        (.invalidState, 12, "Invalid state"),
        (.connectionLimitForUseCase, 14, "The system has reached the maximum number of connections for this use case"),
        (.pairingCancelled, 17, "Pairing was cancelled."),
    ])
    func eachCodeHasTheFrameworksNumberAndText(code: CBInternalError.Code, number: Int, text: String) {
        let error = CBInternalError(code)
        #expect(error.errorCode == number)
        #expect((error as NSError).domain == CBInternalErrorDomain)
        #expect((error as NSError).localizedDescription == text)
        #expect(CBInternalError(errorCode: number).code == code)
    }
}
