import Reports
import Testing

@testable import Lifecycle

/// A capture's fitness problems are worded in Reports from their facts only (issue 45 §3): for
/// each case of `FitnessProblem.Facts`, the sentence follows the facts (a count, a frame, a
/// handle, a plural), and the remedy is the one of its kind.
@Suite struct FitnessWordsTests {
    static func words(_ facts: FitnessProblem.Facts) -> (problem: String, remedy: String) {
        FitnessProblem(evidence: [], facts: facts).words
    }

    /// Android's full snoop log, as every HCI remedy but lost-its-start gives it.
    static let androidFull = "Android: Developer options > Enable Bluetooth HCI snoop log > Enabled (not Filtered)"

    @Test func eachFactsCaseHasItsKind() {
        let kinds: [(FitnessProblem.Facts, FitnessProblem.Kind)] = [
            (.aclCutShort(packets: 1, first: 0, kept: 1, whole: 2), .aclCutShort),
            (.startedMidConnection(connections: 1, first: []), .startedMidConnection),
            (.linksJoined(links: 1, first: 0, from: nil), .startedMidConnection),
            (.lostItsStart(first: 0, resetSeen: false, rotatedFile: false), .lostItsStart),
            (.encryptedWithoutKey(packets: 1, links: 1, first: 0, from: nil), .encryptedWithoutKey),
            (.oneSideOnly(recorded: .commands, count: 10), .oneSideOnly),
            (.oneSideHeard(links: 1, first: 0, central: 0, peripheral: 10), .oneSideOnly),
        ]
        for (facts, kind) in kinds {
            #expect(FitnessProblem(evidence: [], facts: facts).kind == kind, "\(facts)")
        }
        #expect(Set(kinds.map(\.1)) == Set(FitnessProblem.Kind.allCases))
    }

    @Test func aclCutShortSaysTheCountAndTheFirstPacket() {
        let one = Self.words(.aclCutShort(packets: 1, first: 4, kept: 13, whole: 40))
        #expect(one.problem.hasPrefix("1 ACL packet was cut short by the capture (frame 5 keeps 13 of 40 bytes): "))
        let many = Self.words(.aclCutShort(packets: 27, first: 9, kept: 14, whole: 251))
        #expect(
            many.problem.hasPrefix("27 ACL packets were cut short by the capture (frame 10 keeps 14 of 251 bytes): "))
        #expect(one.remedy == many.remedy)
        #expect(one.remedy.hasPrefix(Self.androidFull))
        #expect(one.remedy.hasSuffix(" A btsnooz summary is never whole: turn the snoop log on."))
    }

    @Test func startedMidConnectionListsTheFirstHandlesAndSaysWhenThereAreMore() {
        let one = Self.words(.startedMidConnection(connections: 1, first: [.init(handle: 0x0040, record: 2)]))
        #expect(one.problem.hasPrefix("The capture began in the middle of 1 connection (handle 0x0040 from frame 3): "))
        let first: [FitnessProblem.HandleInUse] = [
            .init(handle: 0x0001, record: 0), .init(handle: 0x0002, record: 7), .init(handle: 0x0EFF, record: 99),
        ]
        let three = Self.words(.startedMidConnection(connections: 3, first: first))
        #expect(
            three.problem.hasPrefix(
                "The capture began in the middle of 3 connections (handle 0x0001 from frame 1, handle 0x0002 from frame 8, handle 0x0eff from frame 100): "
            ))
        let five = Self.words(.startedMidConnection(connections: 5, first: first))
        #expect(five.problem.contains("5 connections (handle 0x0001 from frame 1, "))
        #expect(five.problem.contains("handle 0x0eff from frame 100, …): "))
        #expect(one.remedy.hasPrefix("Start recording before the app connects. " + Self.androidFull))
        #expect(one.remedy.contains("iOS: install Apple's Bluetooth logging profile"))
    }

    @Test func lostItsStartSaysTheFrameTheResetAndTheRotation() {
        let cut = Self.words(.lostItsStart(first: 11, resetSeen: false, rotatedFile: false))
        #expect(cut.problem.contains("frame 12 answers a command (or continues a packet)"))
        #expect(cut.problem.contains(", and no HCI Reset starts it: it was cut from a longer log"))
        let reset = Self.words(.lostItsStart(first: 0, resetSeen: true, rotatedFile: false))
        #expect(reset.problem.contains("frame 1 answers"))
        #expect(!reset.problem.contains("no HCI Reset"))
        let rotated = Self.words(.lostItsStart(first: 0, resetSeen: true, rotatedFile: true))
        #expect(
            rotated.problem.hasSuffix(
                "; it holds exactly 65,535 records, the size at which Android's snoop logger starts a new file, so it is one of a rotated pair."
            ))
        #expect(!rotated.problem.contains("cut from a longer log"))
        #expect(cut.remedy.contains("btsnoop_hci.log.last"))
        #expect(cut.remedy.contains("persist.bluetooth.btsnoopsize"))
    }

    @Test func oneSideOnlySaysWhichSideAndHowMany() {
        let sides: [(FitnessProblem.HCISide, String)] = [
            (.commands, "12 commands and no event: the controller's side was not recorded"),
            (.events, "12 events and no command: the host's side was not recorded"),
            (.aclSent, "12 ACL packets sent and none received: the peer's answers were not recorded"),
            (.aclReceived, "12 ACL packets received and none sent: this host's requests were not recorded"),
        ]
        for (side, what) in sides {
            let words = Self.words(.oneSideOnly(recorded: side, count: 12))
            #expect(
                words.problem
                    == "The capture holds one side only (\(what)), so no request can be matched with its answer.")
            #expect(
                words.remedy.hasPrefix(
                    "Record the host's own HCI log, which holds both directions: " + Self.androidFull))
        }
        #expect(
            Self.words(.oneSideOnly(recorded: .events, count: 4000)).problem.contains("(4000 events and no command"))
    }

    @Test func linksJoinedSaysHowManyAndTheFirst() {
        let one = Self.words(.linksJoined(links: 1, first: 3, from: 41))
        #expect(
            one.problem.hasPrefix("The sniffer joined 1 link after it began (no CONNECT_IND; link 3 from frame 42): "))
        let two = Self.words(.linksJoined(links: 2, first: 0, from: 5))
        #expect(
            two.problem.hasPrefix("The sniffer joined 2 links after they began (no CONNECT_IND; link 0 from frame 6): ")
        )
        #expect(one.remedy.hasPrefix("nRF Sniffer: start capturing before the devices connect"))
    }

    @Test func encryptedWithoutKeySaysThePacketsTheLinksAndWhereItStarts() {
        let one = Self.words(.encryptedWithoutKey(packets: 1, links: 1, first: 2, from: nil))
        #expect(one.problem.hasPrefix("1 encrypted packet on 1 link could not be read (link 2): "))
        let many = Self.words(.encryptedWithoutKey(packets: 310, links: 2, first: 0, from: 17))
        #expect(many.problem.hasPrefix("310 encrypted packets on 2 links could not be read (link 0, from frame 18): "))
        #expect(one.remedy.hasPrefix("Give the long-term key: bletrace diagnose --ltk HEX"))
    }

    @Test func oneSideHeardSaysEachSidesPackets() {
        let words = Self.words(.oneSideHeard(links: 2, first: 1, central: 0, peripheral: 14))
        #expect(
            words.problem
                == "The sniffer heard one side only on 2 links (link 1: 0 packets from the central, 14 from the peripheral), so no request can be matched with its answer."
        )
        let other = Self.words(.oneSideHeard(links: 1, first: 5, central: 33, peripheral: 0))
        #expect(other.problem.contains("on 1 link (link 5: 33 packets from the central, 0 from the peripheral)"))
        #expect(words.remedy.hasPrefix("Place the sniffer between the two devices"))
        #expect(words.remedy.contains("nRF Sniffer: start capturing before the devices connect"))
    }

    /// The list `info` and `diagnose` print takes the same words.
    @Test func theListShowsTheWords() {
        let problem = FitnessProblem(
            evidence: [2, 8], facts: .startedMidConnection(connections: 2, first: [.init(handle: 1, record: 2)]))
        var lines: [String] = []
        FitnessList([problem]).write { lines.append($0) }
        #expect(lines.first == "This capture cannot tell the whole story:")
        #expect(lines.dropFirst().first == "  started-mid-connection: " + problem.problem)
        #expect(lines.contains("    evidence: frames 3, 9"))
        #expect(lines.contains("    to record one that can: " + problem.remedy))
    }
}
