import Foundation
import TestSupport
import Testing

@Suite struct CommandTests {
    let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func infoSaysFormatCountAndSpanInJSON() throws {
        let result = try bletrace("info", capture, "--format", "json")
        #expect(result.status == 0)
        let info = try json(result.stdout)
        #expect(info["format"] as? String == "btsnoop")
        #expect(info["datalink"] as? Int == 1002)
        #expect(info["records"] as? Int == 102)
        let first = try #require(info["first_ts_us"] as? Int64)
        let last = try #require(info["last_ts_us"] as? Int64)
        #expect(last > first)
        #expect((info["kinds"] as? [String: Int])?.values.reduce(0, +) == 102)
    }

    @Test func infoForPeople() throws {
        let result = try bletrace("info", capture)
        #expect(result.stdout.contains("format:   btsnoop, datalink 1002 (HCI UART (H4))"))
        #expect(result.stdout.contains("records:  102"))
    }

    @Test func decodeJSONLFollowsTheContract() throws {
        let result = try bletrace("decode", capture, "--format", "jsonl")
        #expect(result.status == 0)
        let records = try jsonLines(result.stdout)
        #expect(records.count == 102)
        #expect(records.map { $0["index"] as? Int } == Array(0..<102))
        for record in records {
            #expect(record["ts_us"] is Int64 || record["ts_us"] is Int)
            #expect(record["frame"] as? Int == (record["index"] as? Int).map { $0 + 1 })
            #expect(record["version"] as? Int == 3)
            #expect(["sent", "received"].contains(record["direction"] as? String))
            #expect(["command", "event", "acl"].contains(record["kind"] as? String))
        }
        // The first Error Response: Attribute Not Found ending a Read By Group Type discovery.
        let error = try #require(records.first { ($0["att"] as? [String: Any])?["opcode"] as? Int == 1 })
        let att = try #require(error["att"] as? [String: Any])
        #expect(att["error"] as? Int == 0x0A)
        #expect(att["request_opcode"] as? Int == 0x10)
        #expect(att["handle"] as? Int != nil)
        // The supervision timeout.
        let timeout = try #require(records.first { ($0["hci"] as? [String: Any])?["reason"] as? Int == 0x08 })
        #expect((timeout["hci"] as? [String: Any])?["event"] as? Int == 0x05)
        #expect((timeout["hci"] as? [String: Any])?["handle"] as? Int == 1)
    }

    @Test func decodeTextHasOneLinePerRecord() throws {
        let result = try bletrace("decode", capture)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 102)
        #expect(lines.contains { $0.contains("Disconnection Complete handle 0x0001 reason Connection Timeout (0x08)") })
        #expect(lines.contains { $0.contains("ATT Exchange MTU Request MTU 247") })
    }

    @Test func lifecycleJSONFollowsTheContract() throws {
        let result = try bletrace("lifecycle", capture, "--format", "json")
        #expect(result.status == 0)
        let connections = try #require(try json(result.stdout)["connections"] as? [[String: Any]])
        #expect(connections.count == 2)
        #expect(connections.map { $0["peer"] as? String } == ["F0:F1:F2:F3:F4:05", "F0:F1:F2:F3:F4:05"])
        #expect(connections.map { $0["reason"] as? Int } == [0x08, 0x13])
        #expect(connections.map { $0["initiator"] as? String } == ["remote", "local"])
        #expect(connections.map { $0["mtu"] as? Int } == [247, 247])
        let timeoutError = try #require(connections[0]["cb_error"] as? [String: Any])
        #expect(timeoutError["code"] as? Int == 6)
        #expect(timeoutError["name"] as? String == "connectionTimeout")
        #expect(timeoutError["domain"] as? String == "CBErrorDomain")
        // A disconnection the app asked for: CoreBluetooth reports no error, written as null.
        #expect(connections[1]["cb_error"] is NSNull)
        #expect((connections[0]["att"] as? [String: Any])?["notifications"] as? Int == 3)
    }

    @Test func lifecycleTellsTheStory() throws {
        let result = try bletrace("lifecycle", capture)
        #expect(result.stdout.contains("disconnected by the peer or the link: Connection Timeout (0x08)"))
        #expect(
            result.stdout.contains(
                "CoreBluetooth: didDisconnectPeripheral, error CBError.connectionTimeout (6) [reported]"))
        #expect(result.stdout.contains("disconnected by this host"))
    }

    @Test func replayPrintsTheFlowAndDiffAcceptsItAgainstTheExpectedOne() throws {
        let replay = try bletrace("replay", capture, "--app", "reconnecting")
        #expect(replay.status == 0)
        #expect(replay.stdout.hasPrefix("# bletrace flow 2\n"))
        let diff = try bletrace(
            "diff", Fixtures.capture("reconnect-supervision-timeout.reconnecting.flow"), "-", stdin: replay.stdout)
        #expect(diff.status == 0, "\(diff.stdout)")
        #expect(diff.stdout.contains("flows are equal (7 events)"))
    }

    @Test func diffExitsOneAndShowsTheDivergenceWhenFlowsDiffer() throws {
        let expected = try Fixtures.temporaryFile(
            Array(
                """
                system launch app=reconnecting
                central didUpdateState state=poweredOn
                app connect peripheral=F0:F1:F2:F3:F4:05
                central didConnect peripheral=F0:F1:F2:F3:F4:05
                central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout
                """.utf8), name: "gives-up.flow")
        let replay = try bletrace("replay", capture, "--app", "reconnecting")
        let diff = try bletrace("diff", expected, "-", stdin: replay.stdout)
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("first difference at expected event 6"))
        #expect(diff.stdout.contains("+ +0.680858 app connect peripheral=F0:F1:F2:F3:F4:05"))
    }

    @Test func diffExitsTwoOnBadInputNamingTheFileAndLine() throws {
        let bad = try Fixtures.temporaryFile(Array("central\n".utf8), name: "bad.flow")
        let result = try bletrace("diff", bad, bad)
        #expect(result.status == 2)
        #expect(result.stderr.contains("bad.flow:1:1: expected an event name after the actor `central`"))
        let missing = try bletrace("diff", "/nonexistent.flow", bad)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent.flow: cannot read: no such file"))
        let usage = try bletrace("diff", bad)
        #expect(usage.status == 2)
    }

    @Test(.sharedCaptures) func anUnreadableCaptureExitsTwoWithTheReason() throws {
        let result = try bletrace("info", "/nonexistent.btsnoop")
        #expect(result.status == 2)
        #expect(result.stderr == "bletrace: /nonexistent.btsnoop: cannot read: no such file\n")
        // An over-the-air capture: `stats` (which counts HCI records) refuses it by name.
        let sniffer = try bletrace("stats", Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng"))
        #expect(sniffer.status == 2)
        #expect(sniffer.stderr.contains("link type 256"))
    }

    @Test func aTruncatedCaptureShowsEveryGoodRecordThenTheFaultAndExitsOne() throws {
        let bytes = try Fixtures.contents(capture)
        let truncated = try Fixtures.temporaryFile(Array(bytes.dropLast(5)), name: "cut.btsnoop")
        let result = try bletrace("decode", truncated, "--format", "jsonl")
        #expect(result.status == 1)
        #expect(try jsonLines(result.stdout).count == 101)
        // The 101 good records are frames 1-101: the cut one is frame 102, as Wireshark numbers it.
        #expect(result.stderr.contains("cut.btsnoop: frame 102: btsnoop at byte offset"))
        #expect(result.stderr.contains("(truncated)"))
        let info = try bletrace("info", truncated, "--format", "json")
        #expect(info.status == 1)
        #expect(try json(info.stdout)["records"] as? Int == 101)
        #expect((try json(info.stdout)["error"] as? String)?.contains("frame 102:") == true)
    }

    @Test func anUnknownAppIsAUsageErrorListingTheApps() throws {
        let result = try bletrace("replay", capture, "--app", "nope")
        #expect(result.status == 2)
        #expect(result.stderr.contains("no app named 'nope'; the apps are: mirror, "))
        #expect(result.stderr.contains("reconnecting") && result.stderr.contains("explorer"))
    }

    @Test func adaptersListsControllersOrSaysThereIsNoBluetooth() throws {
        let result = try bletrace("adapters")
        if FileManager.default.fileExists(atPath: "/sys/class/bluetooth") {
            #expect(result.status == 0)
        } else {
            #expect(result.status == 1)
            #expect(result.stderr.contains("this host has no Bluetooth support"))
            #expect(result.stderr.contains("Address family not supported by protocol"))
        }
    }
}

@Suite struct DecodeFilterTests {
    let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func filtersAreAllRequired() throws {
        // Four notifications in all: three on the first connection, one on the second (both handle 1).
        let notifications = try bletrace("decode", capture, "--filter", "att=0x1b", "--filter", "handle=1")
        #expect(notifications.stdout.split(separator: "\n").count == 4)
        let none = try bletrace("decode", capture, "--filter", "att=0x1b", "--filter", "handle=2")
        #expect(none.stdout.isEmpty)
        #expect(none.status == 0)
    }

    @Test func errorFindsEveryFailureAndEveryDisconnection() throws {
        let result = try bletrace(
            "decode", Fixtures.capture("att-errors.btsnoop"), "--filter", "error", "--format", "jsonl")
        let records = try jsonLines(result.stdout)
        // 11 Error Responses and the final Disconnection Complete.
        #expect(records.count == 12)
        #expect(records.filter { ($0["att"] as? [String: Any])?["opcode"] as? Int == 1 }.count == 11)
    }

    @Test func aCommandFilterAlsoFindsTheEventsThatAnswerIt() throws {
        let result = try bletrace("decode", capture, "--filter", "command=0x200d")
        let lines = result.stdout.split(separator: "\n")
        // Two LE Create Connection commands and their two Command Status events.
        #expect(lines.count == 4)
        #expect(lines.filter { $0.contains("Command Status LE Create Connection") }.count == 2)
    }

    @Test func aFilterThatIsNotOneIsAUsageError() throws {
        let result = try bletrace("decode", capture, "--filter", "handle=0x10000")
        #expect(result.status == 2)
    }
}

@Suite struct DecodeVerboseTests {
    @Test func showsEveryFieldOfACommandAnEventAndAnATTPDU() throws {
        let result = try bletrace(
            "decode", "-v", Fixtures.capture("reconnect-supervision-timeout.btsnoop"), "--filter", "command=0x200d")
        #expect(result.status == 0)
        // LE Create Connection as Bumble sent it (Captures/README.md): peer, own type random,
        // interval 12-24, supervision timeout 72 (720 ms).
        #expect(result.stdout.contains("        HCI command: leCreateConnection\n"))
        #expect(result.stdout.contains("          peer address: F0:F1:F2:F3:F4:05\n"))
        #expect(result.stdout.contains("          supervision timeout: 72 (0x48)\n"))
        #expect(result.stdout.contains("          opcode: LE Create Connection\n"))  // its Command Status
        let att = try bletrace(
            "decode", "-v", Fixtures.capture("reconnect-supervision-timeout.btsnoop"), "--filter", "att=0x02")
        #expect(att.stdout.contains("          client MTU: 247 (0xf7)\n"))
    }

    @Test func breaksAdvertisingDataIntoItsStructures() throws {
        let result = try bletrace("decode", "-v", Fixtures.capture("scan.btsnoop"), "--filter", "event=0x3e")
        #expect(result.stdout.contains("626c6574726163652d6872 \"bletrace-hr\""))
        #expect(result.stdout.contains("[0]: 180D (Heart Rate)"))
        #expect(result.stdout.contains("rssi: -50"))
    }

    @Test(
        .sharedCaptures,
        arguments: ["whoisbe-pongbot-last.btsnoop", "fotonick-hciparse-test00.pklg", "wangdalian-btsnooper.btsnoop"])
    func describesEveryRecordOfARealCapture(_ file: String) throws {
        let path = Fixtures.publicCapture(file)
        let verbose = try bletrace("decode", "-v", path)
        let plain = try bletrace("decode", path)
        #expect(verbose.status == 0)
        // Every summary line is still there, with detail lines indented under it.
        let summaries = verbose.stdout.split(separator: "\n").filter { !$0.hasPrefix("        ") }
        #expect(summaries == plain.stdout.split(separator: "\n"))
    }
}

@Suite struct ReplayCommandTests {
    @Test func listAppsNamesEveryReferenceAppWithWhatItDoes() throws {
        let result = try bletrace("replay", "--list-apps")
        #expect(result.status == 0)
        let names = result.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(names.first == "mirror")
        #expect(
            Set(names).isSuperset(of: [
                "mirror", "reconnecting", "explorer", "heart-rate", "sdk-timeout", "sensor-server",
            ]))
        #expect(result.stdout.split(separator: "\n").allSatisfy { $0.split(separator: "\t").count == 2 })
    }

    @Test func withoutACaptureOrListAppsItIsAUsageError() throws {
        let result = try bletrace("replay")
        #expect(result.status == 2)
    }

    @Test func unmatchedFailExitsOneAfterPrintingTheFlowSoFar() throws {
        let result = try bletrace(
            "replay", Fixtures.capture("att-errors.btsnoop"), "--app", "explorer", "--unmatched", "fail")
        #expect(result.status == 1)
        #expect(result.stdout.contains("# divergence: F0:F1:F2:F3:F4:05 setNotifyValue"))
        #expect(result.stdout.hasPrefix("# bletrace flow"))
    }

    @Test func theMirrorIsTheDefaultApp() throws {
        let result = try bletrace("replay", Fixtures.capture("att-errors.btsnoop"))
        #expect(result.status == 0)
        #expect(result.stdout.contains("system launch app=mirror"))
        #expect(
            result.stdout.contains(
                "peripheral didWriteValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=EEE4 error=CBATTError.Code(128)"
            ))
    }
}
