import Flow
import Foundation
import Lifecycle
import TestSupport
import Testing
import Wire

@testable import Replay

/// Invariants of the mirror's replay on every capture we can read: nothing the capture shows is
/// lost in silence, and the flow keeps the capture's clock.
@Suite struct MirrorInvariantTests {
    static let captures = (try? Fixtures.allReadableCaptures()) ?? []

    struct Played {
        /// The peer's notifications and indications in the capture.
        var captured = 0
        /// Those the flow delivers (a `didUpdateValueFor` that answers no `readValue`).
        var delivered = 0
        /// Those a comment of the flow counts as not delivered, and why.
        var counted = 0
        /// Flow events at a time no record of the capture has.
        var offClock: [String] = []
    }

    static func play(_ path: String) async throws -> Played {
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        var played = Played()
        played.captured = cassette.links.map { $0.notifications.count { $0.sender != .host } }.reduce(0, +)
        // A value update answers the read of its characteristic still waiting, if there is one.
        var reads: [String: Int] = [:]
        for event in flow.events where event.name == "readValue" || event.name == "didUpdateValueFor" {
            let key = (event.argument("peripheral") ?? "") + " " + (event.argument("characteristic") ?? "")
            if event.name == "readValue" {
                reads[key, default: 0] += 1
            } else if reads[key, default: 0] > 0 {
                reads[key]! -= 1
            } else {
                played.delivered += 1
            }
        }
        for comment in flow.comments {
            guard let count = comment.firstMatch(of: #/(\d+) notifications? or indications? of the capture/#) else {
                continue
            }
            played.counted += Int(count.1)!
        }
        // The clock: every record's time from the capture's first; a timer the replay runs
        // (SMP's and ATT's 30 s) ends 30 s after one.
        var times = Set<Int64>()
        let reader = try AnalysisReader(path: path)
        while let record = try? reader.next() {
            times.insert(record.timestamp.microseconds - cassette.origin.microseconds)
        }
        for event in flow.events {
            guard let time = event.time else { continue }
            let micros = Int64((time * 1_000_000).rounded())
            if !times.contains(micros), !times.contains(micros - 30_000_000) {
                played.offClock.append("\(event.name) at +\(time)")
            }
        }
        return played
    }

    static func check(_ path: String) async throws {
        let played = try await play(path)
        #expect(played.delivered + played.counted == played.captured, "\(played)")
        #expect(played.offClock.isEmpty, "\(played.offClock.prefix(10))")
    }

    @Test(arguments: captures)
    func everyNotificationIsDeliveredOrCountedAndEveryTimeIsAFrames(_ path: String) async throws {
        Fixtures.noteSharedSkipped("MirrorInvariantTests")
        try await Self.check(path)
    }

    @Test(.sharedCaptures, arguments: Fixtures.sharedCaptures("field"))
    func theSameOnFieldLogs(_ path: String) async throws {
        try await Self.check(path)
    }

    @Test func theInvariantsAreNotVacuous() async throws {
        // Our own recordings deliver notifications, and discover at the capture's times.
        let played = try await Self.play(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(played.captured >= 4 && played.delivered == played.captured)
    }

    /// The host cancels (its HCI Disconnect) while the peer still notifies: what came after the
    /// app's cancelPeripheralConnection is counted, not lost.
    @Test func notificationsAfterTheAppCancelledAreCounted() async throws {
        let att = PairingOutcomeTests.att
        let records =
            PerConnectionAnswersTests.connectedAndDiscovered(service: "0d18", properties: "12", characteristic: "372a")
            + [
                OwnedRecord(kind: .acl, direction: .sent, hex: att("04 0400 0500"), time: 300_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("05 01 0400 0229"), time: 310_000),
                OwnedRecord(kind: .acl, direction: .sent, hex: att("12 0400 0100"), time: 400_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("13"), time: 410_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("1b 0300 01"), time: 500_000),
                OwnedRecord(kind: .command, direction: .sent, hex: "06 04 03 4000 13", time: 600_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("1b 0300 02"), time: 610_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("1b 0300 03"), time: 620_000),
                OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 16", time: 700_000),
            ]
        let cassette = PerConnectionAnswersTests.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        #expect(flow.events.count { $0.name == "didUpdateValueFor" } == 1)
        #expect(flow.events.contains { $0.name == "cancelPeripheralConnection" })
        #expect(
            flow.comments.contains {
                $0.contains("2 notifications or indications of the capture came after the link ended in the replay")
            })
    }
}
