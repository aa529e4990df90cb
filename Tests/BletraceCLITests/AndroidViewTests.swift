import Foundation
import TestSupport
import Testing

/// Android's view beside CoreBluetooth's in `errors`, `lifecycle` and `diagnose` (issue 43), on
/// our captures and the shared field captures, and `bletrace explain` as the command runs it.
@Suite struct AndroidViewTests {
    func document(_ arguments: String...) throws -> [String: Any] {
        let result = try bletrace(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try json(result.stdout)
    }

    /// The HCI error of the first disconnection with `reason` in `errors --format json`.
    func disconnection(_ capture: String, reason: Int) throws -> [String: Any] {
        let errors = try #require(
            try document("errors", "--format", "json", Fixtures.capture(capture))["errors"] as? [[String: Any]])
        return try #require(
            errors.first { $0["layer"] as? String == "hci" && $0["code"] as? Int == reason },
            "\(capture) has reason \(reason)")
    }

    @Test(
        arguments: [
            ("reconnect-supervision-timeout.btsnoop", 0x08, 8, "GATT_CONN_TIMEOUT"),
            ("ll-response-timeout.btsnoop", 0x22, 34, "GATT_CONN_LMP_TIMEOUT"),
            ("peer-disconnect.btsnoop", 0x13, 19, "GATT_CONN_TERMINATE_PEER_USER"),
        ])
    func aDisconnectionsErrorCarriesAndroidsStatus(_ capture: String, _ reason: Int, _ status: Int, _ name: String)
        throws
    {
        let error = try disconnection(capture, reason: reason)
        let android = try #require(error["android"] as? [String: Any])
        #expect(android["status"] as? Int == status)
        #expect(android["name"] as? String == name)
        #expect(android["callback"] as? String == "onConnectionStateChange")
        #expect(android["grade"] as? String == "documented")
        #expect((android["source"] as? String)?.contains("bta_gattc_close") == true)
        #expect(error["cb"] is [String: Any], "CoreBluetooth's view is there too")
    }

    @Test func aMICFailureIsPassedOnUnnamed() throws {
        let android = try #require(try disconnection("mic-failure.btsnoop", reason: 0x3D)["android"] as? [String: Any])
        #expect(android["status"] as? Int == 61)
        #expect(android["name"] is NSNull)
    }

    @Test func attErrorsCarryTheOperationsCallback() throws {
        let errors = try #require(
            try document("errors", "--format", "json", Fixtures.capture("att-errors.btsnoop"))["errors"]
                as? [[String: Any]])
        func android(_ code: Int) throws -> [String: Any] {
            let error = try #require(errors.first { $0["layer"] as? String == "att" && $0["code"] as? Int == code })
            return try #require(error["android"] as? [String: Any])
        }
        #expect(try android(0x02)["name"] as? String == "GATT_READ_NOT_PERMITTED")
        #expect(try android(0x02)["callback"] as? String == "onCharacteristicRead")
        #expect(try android(0x03)["callback"] as? String == "onCharacteristicWrite")
        #expect(try android(0x05)["name"] as? String == "GATT_INSUFFICIENT_AUTHENTICATION")
        #expect(try android(0x80)["status"] as? Int == 128)
        #expect(try android(0x80)["name"] as? String == "GATT_NO_RESOURCES")
        #expect((try android(0x80)["note"] as? String)?.contains("only the trace tells them apart") == true)
        let ends = errors.filter { $0["code"] as? Int == 0x0A && $0["expected"] as? Bool == true }
        #expect(!ends.isEmpty)
        #expect(
            ends.allSatisfy { $0["android"] is NSNull }, "Attribute Not Found ending a discovery is success on Android")
    }

    @Test func lifecycleGivesEachEndItsStatus() throws {
        let connections = try #require(
            try document("lifecycle", "--format", "json", Fixtures.capture("reconnect-supervision-timeout.btsnoop"))[
                "connections"] as? [[String: Any]])
        let lost = try #require(connections.first { $0["reason"] as? Int == 0x08 })
        #expect((lost["android"] as? [String: Any])?["status"] as? Int == 8)
        let asked = try #require(connections.first { $0["initiator"] as? String == "local" })
        #expect((asked["android"] as? [String: Any])?["status"] as? Int == 0, "the app's own disconnect is status 0")
    }

    @Test func diagnoseGivesTheFindingsStatus() throws {
        let findings = try #require(
            try document("diagnose", "--format", "json", Fixtures.capture("reconnect-supervision-timeout.btsnoop"))[
                "findings"] as? [[String: Any]])
        let lost = try #require(findings.first { $0["rule"] as? String == "link-ended-supervision-timeout" })
        let android = try #require(lost["android"] as? [String: Any])
        #expect(android["status"] as? Int == 8)
        #expect(android["name"] as? String == "GATT_CONN_TIMEOUT")
        #expect(findings.allSatisfy { $0.keys.contains("android") }, "always present, null where no failure")
    }

    @Test func theTextReportsHaveAnAndroidLineUnderEachCoreBluetoothOne() throws {
        let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let errors = try bletrace("errors", capture).stdout
        #expect(errors.contains("\n  Android: onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]\n"))
        let diagnose = try bletrace("diagnose", capture).stdout
        #expect(diagnose.contains("\n  Android: onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]\n"))
        let lifecycle = try bletrace("lifecycle", capture).stdout
        #expect(lifecycle.contains("Android: onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]"))
        #expect(lifecycle.contains("Android: onConnectionStateChange, status 0 GATT_SUCCESS [documented]"))
    }

    /// On the shared field captures: every LE disconnection an app is told of carries Android's
    /// status, equal to its HCI reason, and every ATT error with an Android view passes its code on
    /// (but for discovery, and a request whose pairing failed: 137).
    @Test func onTheFieldCapturesAndroidsStatusIsTheReasonOrTheCode() throws {
        let captures = Fixtures.sharedCaptures("field")
        if captures.isEmpty {
            print(
                "onTheFieldCapturesAndroidsStatusIsTheReasonOrTheCode: no field captures checked: \(Fixtures.sharedMissing)"
            )
            return
        }
        var checked = 0
        for capture in captures {
            let result = try bletrace(["errors", "--format", "json", capture])
            guard result.status == 0, let errors = try json(result.stdout)["errors"] as? [[String: Any]] else {
                continue
            }
            for error in errors {
                guard let android = error["android"] as? [String: Any], let code = error["code"] as? Int else {
                    continue
                }
                let status = try #require(android["status"] as? Int)
                switch error["layer"] as? String {
                case "att"
                where android["callback"] as? String != "onServicesDiscovered" && error["pairing_failed_frame"] == nil:
                    #expect(status == code, "\(capture) frame \(error["frame"] ?? "?")")
                case "hci"
                where error["request_name"] == nil && error["expected"] as? Bool == false
                    && (error["handle"] as? Int) != nil:
                    #expect(
                        status == code,
                        "\(capture) frame \(error["frame"] ?? "?"): a disconnection passes its reason on")
                default: break
                }
                checked += 1
            }
        }
        print(
            "onTheFieldCapturesAndroidsStatusIsTheReasonOrTheCode: \(checked) Android views on \(captures.count) field captures"
        )
        #expect(checked > 0)
    }

    @Test(
        arguments: [
            "133", "status=133", "GATT_ERROR", "CBErrorDomain Code=6", "CBATTErrorDomain Code=15", "reason 722", "0x3e",
            "Error 62 (0x3e)",
            "D/BluetoothGatt: onClientConnectionState() - status=133 clientIf=7 device=D9:5D:75:70:97:0B",
            #"Error Domain=CBErrorDomain Code=7 "The specified device has disconnected from us.""#,
        ])
    func explainAnswersEveryExample(_ input: String) throws {
        let text = try bletrace(["explain", input])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Android:"))
        #expect(text.stdout.contains("iOS:"))
        let document = try json(try bletrace(["explain", "--format", "json", input]).stdout)
        #expect(document["version"] as? Int != nil)
        #expect((document["readings"] as? [Any])?.isEmpty == false)
    }

    @Test(arguments: ["hello", "99999", "CBErrorDomain Code=99"])
    func explainSaysPlainlyWhatItDoesNotKnow(_ input: String) throws {
        let result = try bletrace(["explain", input])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(input))
    }
}
