import HCI
import Lifecycle
import LinkLayer
import Replay
import TestSupport
import Testing
import Wire

/// The analyses of an over-the-air capture give the answers of its session's HCI capture.
///
/// Each twin pairs a Bumble HCI recording in Captures/ with the air capture of the same session
/// that `Captures/linklayer/air_from_hci.py` makes from it (Captures/linklayer/README.md): the
/// connections (role, peer, outcome, who ended them and why, MTU, traffic counts, discovery,
/// subscriptions, pairing, parameter and encryption changes), every error with its CoreBluetooth
/// equivalent, each peer's GATT databases, the diagnosis's rules, and the replay's cassette.
/// Times are not compared: the air has connection events where Bumble's virtual link has none.
@Suite struct AirTwinTests {
    struct Twin: CustomTestStringConvertible, Sendable {
        var name: String
        var host: AirHost = .central
        /// The LTK of the HCI capture's LE Enable Encryption, as tshark shows
        /// `bthci_cmd.le_long_term_key` (least significant octet first).
        var ltk: String?
        var testDescription: String { name }
    }

    static let twins: [Twin] = [
        Twin(name: "peer-disconnect"),
        Twin(name: "att-errors"),
        Twin(name: "service-changed"),
        Twin(name: "timeout-after-update"),
        Twin(name: "reconnect-supervision-timeout"),
        Twin(name: "pairing-retry", ltk: "d242db010ce1308f4ab93aca1c314213"),
        Twin(name: "peripheral-server", host: .peripheral),
    ]

    static func air(_ twin: Twin) -> String { Fixtures.capture("linklayer/twins/\(twin.name).air.pcap") }
    static func options(_ twin: Twin) -> AirOptions {
        AirOptions(host: twin.host, keys: twin.ltk.map { [packet($0)] } ?? [])
    }

    @Test(arguments: twins) func lifecyclesAgree(_ twin: Twin) throws {
        let hci = try TraceAnalysis(path: Fixtures.capture("\(twin.name).btsnoop"))
        let air = try TraceAnalysis(path: Self.air(twin), air: Self.options(twin))
        #expect(hci.fault == nil && air.fault == nil)
        #expect(!hci.lifecycle.connections.isEmpty)
        let expected = hci.lifecycle.connections.map(Answers.init)
        let actual = air.lifecycle.connections.map(Answers.init)
        #expect(actual.count == expected.count)
        for (got, want) in zip(actual, expected) { #expect(got == want) }
        #expect(air.lifecycle.connections.allSatisfy { $0.air != nil })
        // The peers' names come from the advertisements the air carries, as from the HCI's
        // advertising reports (a central host: a peripheral host's HCI shows none).
        #expect(air.lifecycle.connections.map(\.peerName) == hci.lifecycle.connections.map(\.peerName))
        if twin.host == .central, hci.lifecycle.connections.contains(where: { $0.peerName != nil }) {
            #expect(!air.lifecycle.scans.isEmpty)
        }
        // A disconnection this host asked for: the air has the LL_TERMINATE_IND's reason, which
        // is the reason of the HCI Disconnect, and Bumble's controller reports it back in
        // Disconnection Complete (where the specification's controllers report 0x16).
        for (got, want) in zip(air.lifecycle.connections, hci.lifecycle.connections)
        where want.disconnection?.initiator == .local {
            #expect(got.air?.terminatedBy == twin.host && got.air?.terminateReason == want.disconnection?.reason)
        }
    }

    @Test(arguments: twins) func errorsAgree(_ twin: Twin) throws {
        let hci = try TraceAnalysis(path: Fixtures.capture("\(twin.name).btsnoop"))
        let air = try TraceAnalysis(path: Self.air(twin), air: Self.options(twin))
        #expect(air.errors.map(ErrorAnswer.init) == hci.errors.map(ErrorAnswer.init))
        #expect(!hci.errors.isEmpty)
    }

    @Test(arguments: twins) func gattDatabasesAndDiagnosisAgree(_ twin: Twin) throws {
        let hci = try TraceAnalysis(path: Fixtures.capture("\(twin.name).btsnoop"))
        let air = try TraceAnalysis(path: Self.air(twin), air: Self.options(twin))
        #expect(air.gatt.map { withoutRecords($0.database) } == hci.gatt.map { withoutRecords($0.database) })
        #expect(air.gatt.map { withoutRecords($0.localDatabase) } == hci.gatt.map { withoutRecords($0.localDatabase) })
        #expect(!hci.gatt.isEmpty)
        #expect(air.gatt.map(\.peer) == hci.gatt.map(\.peer))
        #expect(air.findings.map(\.rule).sorted() == hci.findings.map(\.rule).sorted())
    }

    @Test(arguments: twins) func cassettesAgree(_ twin: Twin) throws {
        let (hci, _) = try Cassette.load(path: Fixtures.capture("\(twin.name).btsnoop"))
        let (air, _) = try Cassette.load(path: Self.air(twin), air: Self.options(twin))
        #expect(air.peers == hci.peers && air.centrals == hci.centrals)
        #expect(air.links.map(LinkAnswer.init) == hci.links.map(LinkAnswer.init))
    }

    /// Without the key, the encrypted part of the link is not seen: the connection is marked
    /// encrypted and its encrypted packets counted, but what came after the encryption is missing.
    @Test func anEncryptedLinkWithoutItsKeyIsMarkedAndCounted() throws {
        let twin = Self.twins.first { $0.name == "pairing-retry" }!
        let air = try TraceAnalysis(path: Self.air(twin))
        let link = try #require(air.lifecycle.connections.first?.air)
        #expect(link.encrypted && link.undecryptedPackets > 0 && link.decryptedPackets == 0 && link.micFailures == 0)
        var wrong = packet(twin.ltk!)
        wrong[0] ^= 1
        let failed = try TraceAnalysis(path: Self.air(twin), air: AirOptions(keys: [wrong]))
        let failedLink = try #require(failed.lifecycle.connections.first?.air)
        #expect(failedLink.micFailures > 0 && failedLink.decryptedPackets == 0)
        let keyed = try TraceAnalysis(path: Self.air(twin), air: Self.options(twin))
        let keyedLink = try #require(keyed.lifecycle.connections.first?.air)
        #expect(keyedLink.decryptedPackets == link.undecryptedPackets && keyedLink.undecryptedPackets == 0)
    }

    @Test func theAirFactsOfATimedOutLinkAreKept() throws {
        let twin = Self.twins.first { $0.name == "timeout-after-update" }!
        let air = try TraceAnalysis(path: Self.air(twin))
        let connection = try #require(air.lifecycle.connections.first)
        let link = try #require(connection.air)
        #expect(link.supervisionTimeoutInferred && link.terminatedBy == nil)
        #expect(connection.disconnection?.reason.rawValue == 0x08 && connection.disconnection?.initiator == .remote)
        #expect(link.updates.contains { if case .parameters = $0.kind { $0.applied != nil } else { false } })
        #expect(link.centralPackets > 0 && link.peripheralPackets > 0 && link.events > 0)
        #expect(link.crcErrors == 0 && link.retransmissions == 0 && link.missedEvents == 0)
    }

    /// What is compared of a connection.
    struct Answers: Equatable, CustomStringConvertible {
        var text: [String]
        init(_ connection: Connection) {
            var text = [
                "role \(connection.role.map { "\($0)" } ?? "-") peer \(connection.peer.map { "\($0)" } ?? "-") type \(connection.peerAddressType.map { "\($0)" } ?? "-")",
                "status \(connection.completion.map { "\($0.status.rawValue)" } ?? "-") outcome \(connection.outcome) before \(connection.beganBeforeCapture)",
                // (A local disconnection's reason is the controller's: see lifecyclesAgree.)
                "reason \(connection.disconnection?.initiator == .local ? "local" : connection.disconnection.map { "\($0.reason.rawValue)" } ?? "-") by \(connection.disconnection.map { "\($0.initiator)" } ?? "-") cb \(connection.cbError.map { "\($0.value.map { "\($0)" } ?? "none")" } ?? "-")",
                "interval \(connection.interval ?? 0) latency \(connection.latency ?? 0) timeout \(connection.supervisionTimeout ?? 0)",
                "mtu \(connection.mtu.map { "\($0)" } ?? "-") effective \(connection.effectiveMTU.map { "\($0)" } ?? "-")",
                "att requests \(connection.att.requests) errors \(connection.att.errors) notifications \(connection.att.notifications) indications \(connection.att.indications) reads \(connection.att.reads) writes \(connection.att.writes) commands \(connection.att.writeCommands) bytes \(connection.att.bytes)",
                "unanswered \(connection.unansweredRequests.map { "\($0.opcode)" }) service changed \(connection.serviceChangedIndications)",
            ]
            text += connection.discoveryProcedures.map { "discovery \($0.kind) \($0.requests)" }
            text += connection.subscriptions.map {
                "subscription \($0.descriptorHandle) \($0.characteristicHandle ?? 0) \($0.uuid.map { "\($0)" } ?? "-") \($0.mode)"
            }
            text += connection.peerSubscriptions.map { "peer subscription \($0.descriptorHandle) \($0.mode)" }
            text += connection.pairings.map {
                "pairing by \($0.startedBy) \($0.method.map { "\($0)" } ?? "-") sc \($0.secureConnections) bonding \($0.bonding) \($0.outcome) \($0.failureReason ?? 0)"
            }
            text += connection.changes.compactMap { change in
                switch change.kind {
                case .parameters, .encryption, .keyRefresh, .failed, .serviceChanged: "change \(change.kind)"
                default: nil
                }
            }
            self.text = text
        }
        var description: String { text.joined(separator: "\n") }
    }

    struct ErrorAnswer: Equatable {
        var text: String
        init(_ error: TraceError) {
            text = withoutRecords(
                "\(error.layer) \(error.code) \(error.name) \(error.requestOpcode ?? 0) \(error.attributeHandle ?? 0) \(error.peer.map { "\($0)" } ?? "-") expected \(error.expected) \(error.procedure.map { "\($0)" } ?? "-") cb \(error.coreBluetooth.map { "\($0.domain) \($0.code) \($0.callback)" } ?? "-")"
            )
        }
    }

    struct LinkAnswer: Equatable {
        var text: [String]
        init(_ link: Cassette.Link) {
            text = [
                "peer \(link.peer.map { "\($0)" } ?? "-") role \(link.hostRole.map { "\($0)" } ?? "-") mtu \(link.mtu ?? 0)"
            ]
            text += link.exchanges.map {
                "exchange \($0.opcode) \($0.handle ?? 0) \($0.value) -> \($0.answer.map { "\($0.opcode) \($0.error.map { "\($0)" } ?? "-") \($0.value)" } ?? "-")"
            }
            text.append(
                "operations \(link.operations.count) notifications \(link.notifications.count) service changes \(link.serviceChanges.count) security \(link.security.count)"
            )
            text.append("database \(link.database.map { withoutRecords($0) } ?? "-")")
        }
    }
}

/// `value`'s description with the record and frame numbers in it blanked: the air capture numbers
/// its records otherwise than the HCI capture.
func withoutRecords(_ value: Any) -> String {
    "\(value)".replacing(/(record: |frame )\d+/) { "\($0.output.1)N" }
}
