import Foundation
import TestSupport
import Testing

// MARK: - The disagreements known today: edit here

/// Why bletrace's connection story and the one `scripts/tshark_story.py` builds from tshark's
/// fields differ. Each class is a fault of bletrace's analysis the script's rules expose
/// (Formats/crosscheck.md, "The story against tshark").
enum StoryDisagreementKind: String, Sendable {
    case repeatedDisconnectionOpensConnection =
        "bletrace opens a connection for a repeated Disconnection Complete (its handle was already closed)"
    case strayDisconnectionOpensConnection =
        "bletrace opens a connection for a Disconnection Complete on a handle nothing named before"
    case brEdrLinkCalledLE =
        "bletrace calls a BR/EDR link LE: its handle carries BR/EDR-only commands, events (Mode Change, Sniff Mode) or L2CAP channels"
    case handleWithoutEvidenceCalledLE =
        "bletrace calls a handle with no LE evidence LE: no completion, no LE fixed channel, no LE command or event names it"
}

/// One known disagreement on one connection of one capture: the connection (as the test labels
/// it), the field, and what each side says.
struct KnownStoryDisagreement: Sendable, Hashable {
    var connection: String
    var field: String
    var tshark: String
    var bletrace: String
    var kind: StoryDisagreementKind

    init(_ connection: String, _ field: String, tshark: String, bletrace: String, _ kind: StoryDisagreementKind) {
        (self.connection, self.field, self.tshark, self.bletrace, self.kind) = (
            connection, field, tshark, bletrace, kind
        )
    }
}

/// Every disagreement known today, by capture file name. The test fails on a disagreement not
/// listed here and on one listed here that is gone (remove it when bletrace is fixed). A failure
/// prints the lines to paste for new ones.
///
/// Empty since bletrace folds repeats, reports strays and tells transports by their evidence
/// (FieldLogShapesTests): the five it listed before, on mtoslalibu-ec521-miband2 (a BR/EDR link
/// called LE), havvk-even-g2-smart-classroom-bt3 (a link with no LE evidence called LE) and this
/// test's crafted capture (a repeat and a stray each opening a connection; a link named only by
/// Encryption Change called LE), are gone.
let knownStoryDisagreements: [String: [KnownStoryDisagreement]] = [:]

// MARK: - The test

/// bletrace's connection story (`lifecycle --format json`) against one built independently from
/// tshark's fields by `scripts/tshark_story.py`, connection by connection, on every HCI capture:
/// ours in `Captures/`, the shared `public/` and `field/` captures when the shared folder is there,
/// and a capture this test writes with the
/// cases field logs have shown (``craftedCapture()``).
///
/// Compared: the connections (successful, failed, and those that began before the capture),
/// then per connection transport, role, peer, handle, status, completion frame, whether it began
/// before the capture, disconnection frame, reason and initiator, and the ATT requests,
/// notifications, indications and error responses. bletrace's attempts with no completion
/// (pending, or cancelled with no event) are not in tshark's story and are not compared. The
/// script leaves out what the completion event does not say: a BR/EDR link's role, a failed
/// completion's peer and handle, and a peer or role for a connection from before the capture;
/// there only bletrace's view exists, and it is not compared.
///
/// Over-the-air captures (pcap link types 251, 256, 272) have no HCI: the script finds no
/// connection in them, and they are left out with a printed reason (their link-layer story has
/// its own check, LinkLayerCrossCheckTests).
@Suite struct StoryCrossCheckTests {
    static let craftedName = "crafted-story.btsnoop"
    static let script = Fixtures.packageRoot.appendingPathComponent("scripts/tshark_story.py").path
    static let airLinkTypes: Set<Int> = [251, 256, 272]

    static let ours: [String] = {
        let folder = Fixtures.packageRoot.appendingPathComponent("Captures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { [".btsnoop", ".pcap", ".pcapng", ".pklg"].contains(where: $0.hasSuffix) }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }()

    static let captures: [String] = ours + Fixtures.sharedCaptures("public") + Fixtures.sharedCaptures("field")

    @Test func sharedCapturesFound() {
        if Fixtures.shared == nil {
            print(
                "story cross-check: the shared public/ and field/ captures were not compared: \(Fixtures.sharedMissing)"
            )
        }
        #expect(!Self.captures.isEmpty)
    }

    @Test(arguments: captures)
    func storyAgreesWithTshark(_ path: String) throws {
        try check(path, name: (path as NSString).lastPathComponent)
    }

    /// The cases of field logs, written as a capture: a repeated Disconnection Complete, a stray
    /// one, a BR/EDR link from before the capture (Mode Change, L2CAP signalling), a host's
    /// Disconnect answered with reason 0x13, and a handle named only by Encryption Change.
    @Test func craftedCaseAgrees() throws {
        let path = try Fixtures.temporaryFile(Self.craftedCapture(), name: Self.craftedName)
        try check(path, name: Self.craftedName)
    }

    /// Every capture named in the table is one this test reads.
    @Test func tableNamesKnownCaptures() {
        let names = Set(Self.captures.map { ($0 as NSString).lastPathComponent } + [Self.craftedName])
        // Without the shared folder the field captures are not read, and their entries wait.
        for capture in knownStoryDisagreements.keys where !names.contains(capture) && Fixtures.shared != nil {
            Issue.record("\(capture) is in knownStoryDisagreements but not read by the test")
        }
    }

    func check(_ path: String, name: String) throws {
        let tshark = try #require(which("tshark"), "tshark is missing: `make deps` installs it (Debian's tshark)")
        let python = try #require(which("python3"), "python3 is missing: scripts/tshark_story.py needs it")
        let info = try bletrace("info", path, "--format", "json")
        if let datalink = (try? json(info.stdout))?["datalink"] as? Int, Self.airLinkTypes.contains(datalink) {
            print(
                "story cross-check \(name): left out, an over-the-air capture (link type \(datalink)) has no HCI story")
            return
        }
        let theirRun = try run(python, [Self.script, path, "--tshark", tshark])
        #expect(theirRun.status == 0, "\(theirRun.stderr)")
        let ourRun = try bletrace("lifecycle", path, "--format", "json")
        #expect(ourRun.status == 0, "\(ourRun.stderr)")
        let theirs = try json(theirRun.stdout)
        let ours = try json(ourRun.stdout)

        let story = StoryComparison(theirs: theirs, ours: ours)
        let found = Set(story.findings)
        let known = knownStoryDisagreements[name] ?? []
        let knownKeys = Set(known.map(\.finding))
        let new = story.findings.filter { !knownKeys.contains($0) }
        let gone = known.filter { !found.contains($0.finding) }
        print(
            "story cross-check \(name): tshark \(story.theirCount) connections, bletrace \(story.ourCount), "
                + "\(story.agreeing) agreeing, \(found.count) disagreements (\(found.count - new.count) known)")
        let newLines = new.map {
            "    .init(\(Self.quoted($0.connection)), \(Self.quoted($0.field)), tshark: \(Self.quoted($0.tshark)), bletrace: \(Self.quoted($0.bletrace)), .\($0.suggestedKind)),"
        }
        let goneLines = gone.map { "    \($0.connection) \($0.field): tshark \($0.tshark), bletrace \($0.bletrace)" }
        #expect(
            new.isEmpty,
            "new disagreements in \(name) (classify each and add it to knownStoryDisagreements, or fix scripts/tshark_story.py):\n\(newLines.joined(separator: "\n"))"
        )
        #expect(
            gone.isEmpty,
            "listed disagreements no longer seen in \(name) (remove them from knownStoryDisagreements):\n\(goneLines.joined(separator: "\n"))"
        )
    }

    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    // MARK: The crafted capture

    /// A btsnoop (H4, datalink 1002) of 20 records with the cases field logs show.
    static func craftedCapture() -> [UInt8] {
        var capture = CraftedCapture()
        let le16 = CraftedCapture.le16
        func command(_ opcode: Int, _ parameters: [UInt8]) { capture.command(opcode, parameters) }
        func event(_ code: UInt8, _ parameters: [UInt8]) { capture.event(code, parameters) }
        func acl(_ handle: Int, _ cid: Int, _ payload: [UInt8], sent: Bool) {
            capture.acl(handle, cid, payload, sent: sent)
        }
        func disconnection(_ handle: Int, _ reason: UInt8) { event(0x05, [0] + le16(handle) + [reason]) }
        func leConnection(_ handle: Int, role: UInt8) {
            event(0x3E, [0x01, 0] + le16(handle) + [role, 1, 6, 5, 4, 3, 2, 1] + le16(24) + le16(0) + le16(72) + [0])
        }
        // 1-9: an LE connection (handle 0x40) the peer ends (frame 7), the same Disconnection
        // Complete again (8), and one for handle 0x55 nothing named (9).
        command(0x200D, [UInt8](repeating: 0, count: 25))
        event(0x0F, [0, 1] + le16(0x200D))
        leConnection(0x40, role: 0)
        acl(0x40, 4, [0x0A, 0x03, 0x00], sent: true)
        acl(0x40, 4, [0x0B, 0x01], sent: false)
        acl(0x40, 4, [0x1B, 0x05, 0x00, 0x01], sent: false)
        disconnection(0x40, 0x13)
        disconnection(0x40, 0x13)
        disconnection(0x55, 0x08)
        // 10-14: a BR/EDR link from before the capture (handle 0x0B): Mode Change, an L2CAP
        // Information Request on the BR/EDR signalling channel, and this host's Disconnect.
        event(0x14, [0] + le16(0x0B) + [2] + le16(800))
        acl(0x0B, 1, [0x0A, 0x01, 0x02, 0x00, 0x02, 0x00], sent: true)
        command(0x0406, le16(0x0B) + [0x13])
        event(0x0F, [0, 1] + le16(0x0406))
        disconnection(0x0B, 0x16)
        // 15-18: an LE connection as peripheral (0x41) this host ends, the controller reporting
        // reason 0x13 rather than 0x16.
        leConnection(0x41, role: 1)
        command(0x0406, le16(0x41) + [0x13])
        event(0x0F, [0, 1] + le16(0x0406))
        disconnection(0x41, 0x13)
        // 19-20: a handle (0x42) named only by Encryption Change, then disconnected.
        event(0x08, [0] + le16(0x42) + [1])
        disconnection(0x42, 0x08)
        return capture.bytes
    }
}

// MARK: - The comparison

/// One difference between the two stories.
struct StoryFinding: Hashable {
    var connection: String
    var field: String
    var tshark: String
    var bletrace: String

    /// A first guess at the class, for the line a failure prints.
    var suggestedKind: String {
        switch (field, tshark, bletrace) {
        case ("connection", let t, _) where t.contains("repeats"): return "repeatedDisconnectionOpensConnection"
        case ("connection", let t, _) where t.contains("stray"): return "strayDisconnectionOpensConnection"
        case ("transport", "classic", "le"): return "brEdrLinkCalledLE"
        case ("transport", "unknown", "le"): return "handleWithoutEvidenceCalledLE"
        default: return "<classify: add a case to StoryDisagreementKind>"
        }
    }
}

extension KnownStoryDisagreement {
    var finding: StoryFinding { StoryFinding(connection: connection, field: field, tshark: tshark, bletrace: bletrace) }
}

/// The two stories matched connection by connection: by completion frame, and for connections
/// from before the capture by handle (and disconnection frame where both have one).
struct StoryComparison {
    var findings: [StoryFinding] = []
    var theirCount = 0
    var ourCount = 0
    var agreeing = 0

    init(theirs: [String: Any], ours: [String: Any]) {
        let theirConnections = theirs["connections"] as? [[String: Any]] ?? []
        // bletrace's attempts with no completion are not in tshark's story.
        var unmatched = (ours["connections"] as? [[String: Any]] ?? []).filter {
            Self.int($0["connect_frame"]) != nil || Self.bool($0["began_before_capture"])
        }
        theirCount = theirConnections.count
        ourCount = unmatched.count
        let repeats = Dictionary(
            (theirs["repeated_disconnections"] as? [[String: Any]] ?? []).map {
                (Self.int($0["frame"]) ?? 0, Self.int($0["closed_frame"]) ?? 0)
            },
            uniquingKeysWith: { first, _ in first })
        let strays = Set(
            (theirs["stray_disconnections"] as? [[String: Any]] ?? []).compactMap { Self.int($0["frame"]) })

        for their in theirConnections {
            let label = Self.label(their, disconnect: Self.int(their["disconnect_frame"]))
            let index: Int?
            if let frame = Self.int(their["complete_frame"]) {
                index = unmatched.firstIndex { Self.int($0["connect_frame"]) == frame }
            } else {
                let handle = Self.int(their["handle"])
                let before = unmatched.indices.filter {
                    Self.bool(unmatched[$0]["began_before_capture"]) && Self.int(unmatched[$0]["handle"]) == handle
                }
                index =
                    before.first { Self.int(unmatched[$0]["disconnect_frame"]) == Self.int(their["disconnect_frame"]) }
                    ?? before.first
            }
            guard let index else {
                findings.append(
                    StoryFinding(connection: label, field: "connection", tshark: Self.describe(their), bletrace: "none")
                )
                continue
            }
            let our = unmatched.remove(at: index)
            let before = findings.count
            compare(label, their, our)
            if findings.count == before { agreeing += 1 }
        }
        // Disconnections with no link: each side's strays, and the repeats each folded. bletrace
        // folds a repeat with its first's reason (into a connection or a stray) and lists one
        // with another reason as stray; the script lists every repeat, saying which are identical.
        let theirRepeats = theirs["repeated_disconnections"] as? [[String: Any]] ?? []
        let theirStrays =
            strays.union(theirRepeats.filter { !Self.bool($0["identical"]) }.compactMap { Self.int($0["frame"]) })
            .sorted()
        let ourStrayList = ours["stray_disconnections"] as? [[String: Any]] ?? []
        let ourStrays = ourStrayList.compactMap { Self.int($0["frame"]) }.sorted()
        if theirStrays != ourStrays {
            findings.append(
                StoryFinding(
                    connection: "disconnections with no link", field: "stray frames", tshark: "\(theirStrays)",
                    bletrace: "\(ourStrays)"))
        }
        let theirFolded = theirRepeats.count { Self.bool($0["identical"]) }
        let ourFolded =
            (ours["connections"] as? [[String: Any]] ?? []).reduce(0) {
                $0 + (Self.int($1["repeated_disconnections"]) ?? 0)
            }
            + ourStrayList.reduce(0) { $0 + (Self.int($1["repeats"]) ?? 0) }
        if theirFolded != ourFolded {
            findings.append(
                StoryFinding(
                    connection: "disconnections with no link", field: "identical repeats", tshark: "\(theirFolded)",
                    bletrace: "\(ourFolded)"))
        }
        for our in unmatched {
            let disconnect = Self.int(our["disconnect_frame"])
            var tshark = "none"
            if let disconnect, let closed = repeats[disconnect] {
                tshark = "none (frame \(disconnect) repeats frame \(closed))"
            } else if let disconnect, strays.contains(disconnect) {
                tshark = "none (stray)"
            }
            findings.append(
                StoryFinding(
                    connection: Self.label(our, disconnect: disconnect), field: "connection", tshark: tshark,
                    bletrace: Self.describe(our)))
        }
    }

    mutating func compare(_ label: String, _ their: [String: Any], _ our: [String: Any]) {
        func check(_ field: String, _ theirs: String, _ ours: String) {
            if theirs != ours {
                findings.append(StoryFinding(connection: label, field: field, tshark: theirs, bletrace: ours))
            }
        }
        let ourATT = our["att"] as? [String: Any] ?? [:]
        let theirATT = their["att"] as? [String: Any] ?? [:]
        check("transport", Self.text(their["transport"]), Self.text(our["transport"]))
        // What the script does not know (a BR/EDR role, a failed completion's peer) is not compared.
        if their["role"] is String { check("role", Self.text(their["role"]), Self.text(our["role"])) }
        if their["peer"] is String { check("peer", Self.text(their["peer"]), Self.text(our["peer"])) }
        if Self.int(their["status"]) ?? 0 == 0 { check("handle", Self.text(their["handle"]), Self.text(our["handle"])) }
        check("status", Self.text(their["status"]), Self.text(our["status"]))
        check("completion frame", Self.text(their["complete_frame"]), Self.text(our["connect_frame"]))
        check(
            "began before capture", "\(Self.bool(their["began_before_capture"]))",
            "\(Self.bool(our["began_before_capture"]))")
        check("disconnection frame", Self.text(their["disconnect_frame"]), Self.text(our["disconnect_frame"]))
        check("reason", Self.text(their["reason"]), Self.text(our["reason"]))
        check("initiator", Self.text(their["initiator"]), Self.text(our["initiator"]))
        for key in ["requests", "notifications", "indications", "errors"] {
            check("att.\(key)", Self.text(theirATT[key]), Self.text(ourATT[key]))
        }
    }

    /// "completion frame N", or "handle 0xHHHH from before the capture[, closed at frame N]".
    static func label(_ connection: [String: Any], disconnect: Int?) -> String {
        if let frame = int(connection["complete_frame"]) ?? int(connection["connect_frame"]) {
            return "completion frame \(frame)"
        }
        let handle = String(format: "0x%04x", int(connection["handle"]) ?? 0)
        return "handle \(handle) from before the capture" + (disconnect.map { ", closed at frame \($0)" } ?? "")
    }

    static func describe(_ connection: [String: Any]) -> String {
        let handle = int(connection["handle"]).map { String(format: ", handle 0x%04x", $0) } ?? ""
        return "\(text(connection["transport"])) connection\(handle)"
    }

    static func int(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        return number.intValue
    }

    static func bool(_ value: Any?) -> Bool { (value as? NSNumber)?.boolValue ?? false }

    static func text(_ value: Any?) -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return "\(number.intValue)" }
        return "none"
    }
}
