import Foundation
import TestSupport
import Testing

@Suite struct ErrorsAndStatsTests {
    @Test func errorsJSONFollowsTheContract() throws {
        let result = try bletrace("errors", Fixtures.capture("att-errors.btsnoop"), "--format", "json")
        #expect(result.status == 0)
        let document = try json(result.stdout)
        #expect(document["version"] as? Int == 3)
        let errors = try #require(document["errors"] as? [[String: Any]])
        #expect(document["total"] as? Int == errors.count)
        #expect(document["unexpected"] as? Int == errors.filter { $0["expected"] as? Bool == false }.count)
        #expect(errors.count == 11)
        let readNotPermitted = try #require(errors.first { $0["code"] as? Int == 2 })
        #expect(readNotPermitted["layer"] as? String == "att")
        #expect(readNotPermitted["request_opcode"] as? Int == 0x0A)
        #expect(readNotPermitted["attribute_handle"] as? Int == 0x1B)
        #expect(readNotPermitted["handle"] as? Int == 1)
        #expect(readNotPermitted["peer"] as? String == "F0:F1:F2:F3:F4:05")
        #expect(readNotPermitted["expected"] as? Bool == false)
        let cb = try #require(readNotPermitted["cb"] as? [String: Any])
        #expect(cb["domain"] as? String == "CBATTErrorDomain")
        #expect(cb["code"] as? Int == 2)
        #expect(cb["name"] as? String == "readNotPermitted")
        #expect(errors.filter { $0["expected"] as? Bool == true }.count == 6)
    }

    @Test func errorsTextLeavesExpectedOnesOutUnlessAsked() throws {
        let result = try bletrace("errors", Fixtures.capture("att-errors.btsnoop"))
        #expect(result.stdout.contains("summary: 11 errors, 5 unexpected (6 expected, not shown: --all)"))
        #expect(!result.stdout.contains("Attribute Not Found"))
        let all = try bletrace("errors", Fixtures.capture("att-errors.btsnoop"), "--all")
        #expect(all.stdout.contains("Attribute Not Found (0x0a) answering Read By Type Request"))
    }

    /// Every Error Response tshark sees (outside Android's debug handle) is one ATT error of ours.
    @Test(
        .sharedCaptures,
        arguments: [
            "syssi-jbdbms-ffaa-auth-v13.btsnoop", "whoisbe-pongbot-last.btsnoop", "wangdalian-btsnooper.btsnoop",
            "madkaye-revcar.btsnoop",
        ])
    func countsTheSameATTErrorsAsTshark(_ file: String) throws {
        let path = Fixtures.publicCapture(file)
        let tshark = try #require(which("tshark"))
        let theirs = try run(tshark, ["-r", path, "-Y", "btatt.opcode == 0x01 && bthci_acl.chandle != 0x0edc"]).stdout
            .split(separator: "\n").count
        let ours = try #require(
            try json(try bletrace("errors", path, "--format", "json").stdout)["errors"] as? [[String: Any]])
        #expect(ours.filter { $0["layer"] as? String == "att" }.count == theirs)
        #expect(theirs > 0)
    }

    @Test(.sharedCaptures) func statsCountsMatchTsharkPerATTOpcode() throws {
        let path = Fixtures.publicCapture("syssi-antbms-ble24bhub.btsnoop")
        let tshark = try #require(which("tshark"))
        var theirs: [Int: Int] = [:]
        for line in try run(tshark, ["-r", path, "-T", "fields", "-e", "btatt.opcode"]).stdout.split(separator: "\n") {
            theirs[Int(line.dropFirst(2), radix: 16)!, default: 0] += 1
        }
        let stats = try json(try bletrace("stats", path, "--format", "json").stdout)
        let rows = try #require(stats["att_pdus"] as? [[String: Any]])
        let ours = Dictionary(uniqueKeysWithValues: rows.map { ($0["code"] as! Int, $0["count"] as! Int) })
        #expect(ours == theirs)
        #expect(stats["records"] as? Int == 2378)
    }

    @Test func statsForPeopleNamesWhatItCounts() throws {
        let result = try bletrace("stats", Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(result.status == 0)
        #expect(result.stdout.contains("102 records"))
        #expect(result.stdout.contains("0x1b  Handle Value Notification"))
        #expect(result.stdout.contains("0x0a  Attribute Not Found (5 expected)"))
    }
}

@Suite struct GATTCommandTests {
    @Test func gattJSONFollowsTheContract() throws {
        let result = try bletrace("gatt", Fixtures.capture("reconnect-supervision-timeout.btsnoop"), "--format", "json")
        #expect(result.status == 0)
        let peers = try #require(try json(result.stdout)["peers"] as? [[String: Any]])
        #expect(peers.count == 1)
        #expect(peers[0]["peer"] as? String == "F0:F1:F2:F3:F4:05")
        let services = try #require(peers[0]["services"] as? [[String: Any]])
        let heartRate = try #require(services.first { $0["uuid"] as? String == "180D" })
        #expect(heartRate["name"] as? String == "Heart Rate")
        let measurement = try #require((heartRate["characteristics"] as? [[String: Any]])?.first)
        #expect(measurement["properties"] as? [String] == ["notify"])
        #expect(measurement["handle"] as? Int == 0x10)
        #expect((measurement["value"] as? [String: Any])?["source"] as? String == "notification")
        let cccd = try #require((measurement["descriptors"] as? [[String: Any]])?.first)
        #expect((cccd["value"] as? [String: Any])?["hex"] as? String == "0100")
    }

    @Test func gattTextShowsServicesCharacteristicsAndDescriptors() throws {
        let result = try bletrace("gatt", Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(result.stdout.contains("  service 0x000e-0x0015 180D Heart Rate"))
        #expect(
            result.stdout.contains("    characteristic 0x0013 2A38 Body Sensor Location [read]  = 01 (read, frame 76)"))
        #expect(
            result.stdout.contains("      descriptor 0x0011 2902 Client Characteristic Configuration  = 0100 (write"))
    }
}
