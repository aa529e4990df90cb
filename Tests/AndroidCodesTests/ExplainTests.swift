import AndroidCodes
import CodeExplainer
import Foundation
import Testing

/// `bletrace explain`'s reading of each kind of input the issue lists (issue 43).
@Suite struct ExplainTests {
    func explain(_ input: String) throws -> Explanation {
        try #require(Explainer.explain(input), "\(input) is understood")
    }

    func kinds(_ explanation: Explanation) -> [String] { explanation.readings.map { "\($0.kind.rawValue) \($0.code)" } }

    @Test func aBare133IsAndroidsGattErrorAndTheATTError0x85() throws {
        let explanation = try explain("133")
        #expect(
            kinds(explanation) == [
                "android-connection-status 133", "android-operation-status 133", "att-error 133", "cbatterror 133",
            ])
        #expect(explanation.readings.prefix(2).allSatisfy { $0.name == "GATT_ERROR" })
        #expect(explanation.readings[2].name == "Application Error", "0x85 is 133")
        let connection = explanation.readings[0]
        #expect(connection.causes.contains { if case .connectTimedOut = $0.kind { true } else { false } })
        #expect(connection.causes.contains { if case .connectRefusedLocally = $0.kind { true } else { false } })
        #expect(
            connection.causes.contains {
                if case .connectFailed(.connectionFailedToBeEstablished) = $0.kind { true } else { false }
            })
        #expect(
            explanation.readings[1].causes.map(\.summary).contains { $0.contains("0x85") }, "a peer's 0x85 reads as 133"
        )
        #expect(explanation.considered.contains { $0.hasPrefix("HCI status or disconnection reason: 133 (decimal)") })
    }

    @Test func aStatusWithNoContextIsReadBothWays() throws {
        #expect(kinds(try explain("status=133")) == ["android-connection-status 133", "android-operation-status 133"])
        #expect(kinds(try explain("GATT_ERROR")) == ["android-connection-status 133", "android-operation-status 133"])
    }

    @Test func aLogcatLineIsReadInItsCallbacksContext() throws {
        let explanation = try explain(
            "D/BluetoothGatt: onClientConnectionState() - status=133 clientIf=7 device=D9:5D:75:70:97:0B")
        #expect(kinds(explanation) == ["android-connection-status 133"])
        #expect(explanation.understoodAs == "logcat line (a connection state change)")
        let read = try explain("D/BluetoothGatt: onCharacteristicRead() - Device=D9:5D:75:70:97:0B handle=42 Status=5")
        #expect(kinds(read) == ["android-operation-status 5"])
        #expect(read.readings[0].name == "GATT_INSUFFICIENT_AUTHENTICATION")
    }

    @Test func iOSDomainsAndCodes() throws {
        let timeout = try explain("CBErrorDomain Code=6")
        #expect(kinds(timeout) == ["cberror 6"])
        #expect(timeout.readings[0].name == "connectionTimeout")
        #expect(timeout.readings[0].causes.contains { $0.android?.status == 8 }, "0x08 gives Android 8 and iOS 6")
        let encryption = try explain("CBATTErrorDomain Code=15")
        #expect(kinds(encryption) == ["cbatterror 15"])
        #expect(encryption.readings[0].causes.first?.android?.name == "GATT_INSUFFICIENT_ENCRYPTION")
        let xcode = try explain(#"Error Domain=CBErrorDomain Code=7 "The specified device has disconnected from us.""#)
        #expect(kinds(xcode) == ["cberror 7"])
        #expect(xcode.readings[0].causes.contains { $0.android?.status == 19 })
        #expect(kinds(try explain("CBInternalErrorDomain Code=31")) == ["cbinternalerror 31"])
    }

    @Test func bluetoothdsReasonIs700AndTheHCIReason() throws {
        let explanation = try explain("reason 722")
        #expect(kinds(explanation) == ["bluetoothd-reason 722"])
        #expect(explanation.readings[0].grade == "hypothesis")
        #expect(explanation.readings[0].causes.first?.android?.status == 22)
    }

    @Test(arguments: ["0x3e", "Error 62 (0x3e)", "0x3E"])
    func hexadecimalIsReadAsHCIAndAsAndroidsDecimal(_ input: String) throws {
        let explanation = try explain(input)
        #expect(kinds(explanation) == ["android-connection-status 62", "hci-code 62"])
        #expect(explanation.readings[0].name == "GATT_CONN_FAILED_ESTABLISHMENT")
        let causes = explanation.readings[1].causes.compactMap(\.android).map(\.status)
        #expect(causes == [62, 133], "0x3E as a disconnection gives 62, as a failed completion 133")
    }

    /// 0x3E read as a failed completion or a lost link: iOS tries again and calls nothing (the
    /// replay's default reading), where explain once said didFailToConnect(connectionFailed).
    @Test func aFailedEstablishmentIsNoCallbackOnIOSWithTheOtherReadingNamed() throws {
        let hci = try #require(try explain("0x3E").readings.first { $0.kind.rawValue == "hci-code" })
        #expect(hci.causes.count == 2)
        for cause in hci.causes {
            #expect(cause.ios.callback.hasPrefix("no callback: iOS tries again by itself"), "\(cause.ios)")
            #expect(cause.ios.description.hasSuffix("with CBError.connectionFailed (10) [hypothesis]"))
        }
    }

    @Test func aBareNumberReadsDecimalAndHexadecimal() throws {
        let explanation = try explain("22")
        #expect(kinds(explanation).contains("android-connection-status 22"))
        #expect(kinds(explanation).contains("hci-code 22"), "decimal 22 is 0x16")
        #expect(kinds(explanation).contains("hci-code 34"), "the digits as hexadecimal: 0x22")
    }

    @Test func namesOfBothPlatforms() throws {
        #expect(kinds(try explain("CBError.connectionTimeout")) == ["cberror 6"])
        #expect(kinds(try explain("GATT_CONN_TIMEOUT")) == ["android-connection-status 8"])
        #expect(kinds(try explain("UNBOND_REASON_AUTH_REJECTED")) == ["android-unbond-reason 2"])
    }

    @Test func unknownInputIsSaidToBeUnknown() throws {
        #expect(Explainer.explain("hello there") == nil)
        #expect(Explainer.explain("") == nil)
        let nothing = try explain("99999")
        #expect(nothing.readings.isEmpty)
        #expect(!nothing.considered.isEmpty)
    }

    @Test func theJSONDocumentHasEveryPart() throws {
        let data = try JSONEncoder().encode(try explain("0x08").json(version: 1))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(document.keys) == ["version", "input", "understood_as", "readings", "considered", "capture"])
        let readings = try #require(document["readings"] as? [[String: Any]])
        let connection = try #require(readings.first { $0["kind"] as? String == "android-connection-status" })
        #expect(connection["name"] as? String == "GATT_CONN_TIMEOUT")
        #expect(connection["hex"] as? String == "0x08")
        let cause = try #require((connection["causes"] as? [[String: Any]])?.first)
        let android = try #require(cause["android"] as? [String: Any])
        #expect(android["status"] as? Int == 8)
        #expect(android["callback"] as? String == "onConnectionStateChange")
        #expect(android["grade"] as? String == "documented")
        #expect((android["source"] as? String)?.contains("bta_gattc_close") == true)
        let ios = try #require(cause["ios"] as? [String: Any])
        #expect(ios["code"] as? Int == 6)
        #expect((cause["trace"] as? String)?.contains("Disconnection Complete") == true)
        let capture = try #require(document["capture"] as? [[String: Any]])
        #expect(capture.map { $0["platform"] as? String } == ["Android", "iOS"])
    }

    @Test func theTextNamesBothPlatformsAndTheCapture() throws {
        var lines: [String] = []
        try explain("0x08").write { lines.append($0) }
        #expect(lines.first == "0x08: read as a hexadecimal code")
        #expect(lines.contains("       Android: onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]"))
        #expect(
            lines.contains(
                "       iOS:     centralManager(_:didDisconnectPeripheral:error:) with CBError.connectionTimeout (6) [reported]"
            ))
        #expect(lines.contains { $0.hasPrefix("  Android: Developer options") })
        #expect(lines.contains { $0.hasPrefix("  iOS: Install Apple's Bluetooth logging profile") })
    }
}
