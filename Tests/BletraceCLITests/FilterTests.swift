import Foundation
import TestSupport
import Testing

/// `--filter`: a language a Wireshark user can guess.
@Suite struct FilterTests {
    let attErrors = Fixtures.capture("att-errors.btsnoop")

    /// The frame numbers (first column) of `decode` with `filters`.
    func frames(_ capture: String, _ filters: String...) throws -> [Int] {
        var arguments = ["decode", capture]
        for filter in filters { arguments += ["--filter", filter] }
        let result = try bletrace(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { Int($0.split(separator: " ").first ?? "") }
    }

    @Test func anATTErrorCodeAndWiresharksNameForItAgree() throws {
        // Captures/README.md: 0x05 Insufficient Authentication answers the write to 0x001F.
        let ours = try frames(attErrors, "att.error==0x05")
        #expect(ours.count == 1)
        #expect(try frames(attErrors, "btatt.error_code == 5") == ours)
        // Every Error Response, expected or not.
        #expect(try frames(attErrors, "att.error").count == 11)
    }

    @Test func orNotAndParenthesesCombineTests() throws {
        let two = try frames(attErrors, "att.error==0x02")
        let five = try frames(attErrors, "att.error==0x05")
        #expect(try frames(attErrors, "att.error==0x02 or att.error==0x05") == (two + five).sorted())
        #expect(try frames(attErrors, "att.error and not (att.error==0x0a)").count == 5)
        #expect(try frames(attErrors, "att.error && !att.error==0x0a || att.error==0x02").count == 5)
        // Several --filter options must all match.
        #expect(
            try frames(attErrors, "att.error", "att.error!=0x0a")
                == (try frames(attErrors, "att.error and att.error!=10")))
    }

    @Test func attHandleIsTheAttributeAndHCIHandleTheConnection() throws {
        // The write to 0x001D and its Error Response (which names 0x001D).
        #expect(try frames(attErrors, "att.handle==0x1d").count == 2)
        #expect(try frames(attErrors, "hci.handle==0x1d").isEmpty)
        let connection = try frames(attErrors, "hci.handle==1")
        // Wireshark's bthci_acl.chandle is on ACL data only; hci.handle also on the events naming it.
        #expect(try frames(attErrors, "bthci_acl.chandle==0x0001") == (try frames(attErrors, "hci.handle==1 and acl")))
        #expect(try frames(attErrors, "bthci_acl.chandle==0x0001").count < connection.count)
        #expect(try frames(attErrors, "handle=1") == connection)  // the older form
        #expect(connection.count > 40)
    }

    @Test func reasonOpcodePeerTimeAndFrameSelectTheirRecords() throws {
        let reconnect = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        // One supervision timeout (0x08) disconnection; the Disconnect command and its completion
        // carry 0x13.
        #expect(try frames(reconnect, "hci.reason==0x08").count == 1)
        #expect(try frames(reconnect, "hci.opcode==0x200d").count == 4)  // two LE Create Connection, two Command Status
        let peer = try frames(reconnect, "peer==F0:F1:F2:F3:F4:05")
        #expect(!peer.isEmpty)
        #expect(try frames(reconnect, "peer==F0:F1:F2:F3:F4:06").isEmpty)
        let late = try frames(reconnect, "time>=1.0")
        #expect(!late.isEmpty && late.count < 102)
        #expect(late == (try frames(reconnect, "not time<1.0")))
        #expect(try frames(reconnect, "frame<=10") == Array(1...10))
    }

    @Test(.sharedCaptures) func aPeerCanBeNamedByTheNameItAdvertised() throws {
        // whoisbe-pongbot-last: the robot advertises as NOVA_…; its connections carry its name. A
        // name matches from the moment the capture has heard it advertised.
        let capture = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        let lifecycle = try json(try bletrace("lifecycle", capture, "--format", "json").stdout)
        let named = try #require((lifecycle["connections"] as? [[String: Any]])?.first { $0["peer_name"] != nil })
        let name = try #require(named["peer_name"] as? String)
        let address = try #require(named["peer"] as? String)
        let byName = try frames(capture, "peer==\"\(name)\"")
        #expect(!byName.isEmpty)
        let byAddress = try frames(capture, "peer==\(address)")
        #expect(Set(byName).isSubset(of: Set(byAddress)))
        #expect(byName.last == byAddress.last)
    }

    @Test(arguments: [
        ("att.eror==5", 0, "unknown field"),
        ("att.error==0x05 and", 19, "expected a test"),
        ("(att.error", 10, "expected )"),
        ("att.error==fivee", 11, "expected a number"),
        ("att.error==5)", 12, "unbalanced )"),
        ("acl==3", 3, "takes no value"),
        ("hci.handle==0x10000", 12, "out of range"),
    ])
    func aBadFilterIsRefusedWithACaretUnderItsColumn(_ filter: String, _ column: Int, _ message: String) throws {
        let result = try bletrace("decode", attErrors, "--filter", filter)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("  \(filter)\n  \(String(repeating: " ", count: column))^ column \(column + 1)"))
    }

    @Test func readByTypeResponsesOfACharacteristicDiscoveryShowTheDeclarations() throws {
        let text = try bletrace("decode", attErrors).stdout
        #expect(text.contains("0x000f: characteristic 2A37 (Heart Rate Measurement) value 0x0010 [notify]"))
        #expect(!text.contains("HCIOpcode("))
    }
}
