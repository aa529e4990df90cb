import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import HCI
import TestSupport
import Testing

@testable import Flow
@testable import Replay

/// Each fault `--inject` plays (issue 42), reported to the app as the replay's iOS model says iOS
/// reports it: the errors come from `CoreBluetoothMapping`, the same table the capture's own
/// failures are told through, so that each expectation below is the model's, not a copy of it.
@Suite struct FaultInjectionTests {
    /// Replays `capture` to the reference app `app` with `faults`; the engine after the run.
    func replay(_ capture: String, app: String = "steadfast", _ faults: [String], platform: Platform = Platform())
        async throws -> (ReplayEngine, Flow)
    {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
        let entry = try #require(ReferenceApps.named(app))
        let engine = ReplayEngine(cassette: cassette)
        engine.platform = platform
        engine.faults = try faults.map { try Fault(parsing: $0) }
        let flow = await engine.run(name: entry.name) { entry.make(for: cassette) }
        return (engine, flow)
    }

    /// The requests the app makes without a fault.
    func requests(_ capture: String, app: String = "steadfast") async throws -> [LoggedRequest] {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
        let entry = try #require(ReferenceApps.named(app))
        let engine = ReplayEngine(cassette: cassette)
        engine.logsRequests = true
        _ = await engine.run(name: entry.name) { entry.make(for: cassette) }
        return engine.requestLog
    }

    /// `error=`'s text for the error an app gets.
    func text(_ error: (any Error)?) -> String { FlowRecord.Argument.error(error).value.description }

    func events(_ flow: Flow, _ name: String) -> [FlowEvent] { flow.events.filter { "\($0.actor) \($0.name)" == name } }

    static let capture = "reconnect-supervision-timeout.btsnoop"

    // MARK: Text

    @Test(arguments: [
        "link-loss:0x08@12.5", "link-loss:0x3E@frame:57", "att-error:0x05@request:3", "timeout@request:1",
        "notifications:drop@2",
        "notifications:duplicate@0.25", "notifications:early@request:4", "service-changed@1", "bond-lost@0",
        "pairing:cancelled@request:2",
        "pairing:failed@request:2", "pairing:timeout@request:2", "reset@3", "power@3.000001",
    ])
    func aFaultsTextReadsBack(_ text: String) throws {
        let fault = try Fault(parsing: text)
        #expect(fault.description == text)
        #expect(try Fault(parsing: fault.description) == fault)
    }

    @Test func defaultsAndOtherSpellingsAreRead() throws {
        #expect(try Fault(parsing: "link-loss@+1.5") == Fault(.linkLoss(0x08), at: .seconds(1.5)))
        #expect(try Fault(parsing: "att-error:62@request:1").kind == .attError(62))
        #expect(try Fault(parsing: "notifications@1").kind == .notification(.drop))
        #expect(try Fault(parsing: "pairing@1").kind == .pairing(.failed))
    }

    @Test(arguments: [
        ("link-loss", "KIND@POINT"), ("nonsense@1", "no fault named 'nonsense'"), ("att-error@1", "ATT error code"),
        ("att-error:0x100@1", "ATT error code"), ("link-loss:0@1", "HCI reason"), ("timeout:3@1", "takes no parameter"),
        ("notifications:late@1", "drop, duplicate or early"), ("reset@-1", "0 or more"),
        ("reset@frame:0", "a number from 1"),
        ("reset@request:x", "a number from 1"), ("pairing:maybe@1", "cancelled, failed or timeout"),
    ])
    func aBadFaultSaysWhatWasExpected(_ text: String, _ expected: String) {
        #expect(throws: FaultError.self) { try Fault(parsing: text) }
        do {
            _ = try Fault(parsing: text)
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func aFrameIsPlacedAtItsTime() throws {
        let path = Fixtures.capture(Self.capture)
        let (cassette, _) = try Cassette.load(path: path)
        let faults = try Fault.resolvingFrames(
            [Fault(parsing: "link-loss@frame:3")], path: path, origin: cassette.origin)
        guard case .seconds(let seconds) = faults[0].point else {
            Issue.record("not placed: \(faults[0])")
            return
        }
        let (records, _) = try Fixtures.readAll(path)
        #expect(abs(seconds - records[2].timestamp.seconds(since: cassette.origin)) < 1e-6)
        #expect(throws: FaultError.self) {
            try Fault.resolvingFrames([Fault(parsing: "reset@frame:999999")], path: path, origin: cassette.origin)
        }
    }

    // MARK: Link loss

    @Test(arguments: [UInt8(0x08), 0x13, 0x16])
    func aLinkLossIsADisconnectionTheAppDidNotAskFor(_ reason: UInt8) async throws {
        let (_, flow) = try await replay(Self.capture, ["link-loss:\(Fault.hexByte(reason))@2.5"])
        let lost = try #require(events(flow, "central didDisconnectPeripheral").first { $0.time == 2.5 })
        let expected = CoreBluetoothMapping.disconnectionError(
            reason: HCIStatus(rawValue: reason), requestedByApp: false
        ).value?.error
        #expect(lost.argument("error") == text(expected))
        // The peer stays: the app's connect gets the capture's connection again, after the time
        // the capture took to establish it, and its notifications go on.
        let reconnected = try #require(events(flow, "central didConnect").last)
        #expect((reconnected.time ?? 0) > 2.5)
        #expect(events(flow, "peripheral didUpdateNotificationStateFor").count == 3)
    }

    @Test func aFailedEstablishmentIsRetriedByIOSOrFailsTheAttemptAsThePlatformReads() async throws {
        // By default iOS tries again by itself and tells the app nothing: the connection comes,
        // later (Formats/corebluetooth.md, F-1).
        let (_, plain) = try await replay(Self.capture, [])
        let (_, retried) = try await replay(Self.capture, ["link-loss:0x3E@0.1"])
        #expect(events(retried, "central didFailToConnect").isEmpty)
        #expect(retried.comments.contains { $0.contains("iOS tries again by itself") })
        let first = try #require(events(retried, "central didConnect").first?.time)
        #expect(first > (events(plain, "central didConnect").first?.time ?? 0))
        // The other reading: didFailToConnect, and the app's next attempt gets the connection.
        let (_, failing) = try await replay(
            Self.capture, ["link-loss:0x3E@0.1"], platform: Platform(establishmentFailure: .fail))
        let failed = try #require(events(failing, "central didFailToConnect").first)
        let expected = CoreBluetoothMapping.connectionFailureError(status: .connectionFailedToBeEstablished).value
        #expect(failed.argument("error") == text(expected))
        #expect(
            events(failing, "central didConnect").count == 2,
            "steadfast connects again: the first connection is the next attempt's, then the capture's second")
    }

    @Test func aLostBondFailsTheConnectionToAPeerTheCaptureShowsEncrypted() async throws {
        let (_, flow) = try await replay("bond-lost.btsnoop", ["bond-lost@0.1"])
        let failed = try #require(events(flow, "central didFailToConnect").first)
        let expected = CoreBluetoothMapping.connectionFailureError(status: .pinOrKeyMissing).value
        #expect(failed.argument("error") == text(expected))
        #expect(
            events(flow, "app cancelPeripheralConnection").count == 1,
            "steadfast gives a peer that removed its pairing up")
        // A peer the capture never shows encrypted has no bond to lose.
        let (_, unbonded) = try await replay(Self.capture, ["bond-lost@0.1"])
        #expect(events(unbonded, "central didFailToConnect").isEmpty)
        #expect(unbonded.comments.contains { $0.contains("no bond to lose") })
    }

    // MARK: Requests

    @Test func aRefusalReachesTheRequestsCallback() async throws {
        let requests = try await requests(Self.capture)
        let subscribe = try #require(requests.first { $0.subscribes })
        let (_, flow) = try await replay(Self.capture, ["att-error:0x03@request:\(subscribe.number)"])
        let answer = try #require(events(flow, "peripheral didUpdateNotificationStateFor").first)
        #expect(answer.argument("error") == text(CBATTError(.writeNotPermitted)))
        #expect(answer.argument("isNotifying") == "false")
        // steadfast subscribes again a second later, and the capture's answer comes.
        #expect(
            events(flow, "peripheral didUpdateNotificationStateFor").dropFirst().first?.argument("isNotifying")
                == "true")
    }

    @Test func aRefusalForSecurityIsTheErrorAfterIOSPairs() async throws {
        let requests = try await requests("att-errors.btsnoop", app: "mirror")
        let read = try #require(requests.first { $0.method == "readValue" })
        let (_, flow) = try await replay("att-errors.btsnoop", app: "mirror", ["att-error:0x05@request:\(read.number)"])
        #expect(flow.comments.contains { $0.contains("iOS pairs and sends it again, the peer refuses again") })
        let answer = try #require(events(flow, "peripheral didUpdateValueFor").first { $0.time ?? 0 >= read.seconds })
        #expect(answer.argument("error") == text(CBATTError(.insufficientAuthentication)))
    }

    @Test(arguments: [CBError?.none, CBError(.connectionTimeout)])
    func anUnansweredRequestEndsTheLinkAfterATTsTimeout(_ attTimeoutError: CBError?) async throws {
        // The last connection's first request: the capture's link stays up after it.
        let requests = try await requests(Self.capture)
        let last = try #require(requests.last)
        let first = try #require(requests.first { $0.seconds == last.seconds })
        let (_, flow) = try await replay(
            Self.capture, ["timeout@request:\(first.number)"], platform: Platform(attTimeoutError: attTimeoutError))
        #expect(
            !events(flow, "peripheral didDiscoverServices").contains {
                ($0.time ?? 0) >= first.seconds && ($0.time ?? 0) < first.seconds + 30
            }, "no answer before the link ends")
        let end = try #require(
            events(flow, "central didDisconnectPeripheral").first { ($0.time ?? 0) >= first.seconds + 30 })
        #expect(abs((end.time ?? 0) - (first.seconds + 30)) < 1e-6)
        #expect(end.argument("error") == text(attTimeoutError))
    }

    @Test func laterRequestsWaitBehindTheOneNeverAnswered() async throws {
        let requests = try await requests("att-errors.btsnoop", app: "mirror")
        let first = try #require(requests.first { $0.isValueRequest })
        let (_, flow) = try await replay("att-errors.btsnoop", app: "mirror", ["timeout@request:\(first.number)"])
        // The mirror asks at the capture's times; CBPeripheral sends one request at a time, so
        // nothing is answered until the link ends (here the captured app's own cancel).
        let answers = flow.events.filter { $0.actor == "peripheral" && ($0.time ?? 0) > first.seconds }
        let end = try #require(events(flow, "central didDisconnectPeripheral").first)
        #expect(!answers.contains { ($0.time ?? 0) < (end.time ?? 0) }, "\(answers.first.map(\.signature) ?? "")")
        #expect(
            requests.contains { $0.number > first.number && $0.isValueRequest }, "the mirror had more requests to make")
    }

    @Test func aCancelledPairingFailsTheRequestInTheOtherReading() async throws {
        let requests = try await requests(Self.capture)
        let subscribe = try #require(requests.last { $0.subscribes })
        let (_, flow) = try await replay(
            Self.capture, ["pairing:cancelled@request:\(subscribe.number)"],
            platform: Platform(pairingCancel: .failsRequest))
        let answer = try #require(
            events(flow, "peripheral didUpdateNotificationStateFor").first { ($0.time ?? 0) >= subscribe.seconds })
        #expect(answer.argument("error") == text(CoreBluetoothMapping.pairingCancelledError.value))
        #expect(!events(flow, "central didDisconnectPeripheral").contains { ($0.time ?? 0) >= subscribe.seconds })
    }

    @Test(arguments: Fault.PairingFault.allCases)
    func aPairingEndsAsIOSReportsIt(_ how: Fault.PairingFault) async throws {
        // The last subscription: the capture's link stays up after it.
        let requests = try await requests(Self.capture)
        let subscribe = try #require(requests.last { $0.subscribes })
        let (_, flow) = try await replay(Self.capture, ["pairing:\(how.rawValue)@request:\(subscribe.number)"])
        let answer = events(flow, "peripheral didUpdateNotificationStateFor").first {
            ($0.time ?? 0) >= subscribe.seconds
        }
        switch how {
        case .cancelled:
            let end = try #require(
                events(flow, "central didDisconnectPeripheral").first { ($0.time ?? 0) > subscribe.seconds })
            #expect(end.argument("error") == text(CoreBluetoothMapping.pairingCancelledError.value))
            #expect(
                answer?.argument("isNotifying") == "true",
                "the request got no callback; the answer is the reconnected link's")
        case .failed:
            #expect(
                answer?.argument("error") == text(CoreBluetoothMapping.pairingFailureError(reason: 5, refusal: 5).value)
            )
        case .timeout:
            #expect(answer?.argument("error") == text(CoreBluetoothMapping.pairingTimeoutError.value))
            #expect(((answer?.time ?? 0) - subscribe.seconds) >= 30)
        }
    }

    // MARK: Notifications, service changes, the system

    @Test func aNotificationIsLostOrComesTwice() async throws {
        let (_, plain) = try await replay(Self.capture, [])
        let values = events(plain, "peripheral didUpdateValueFor")
        let second = try #require(values.dropFirst().first)
        let before = try #require(values.first?.time)
        let at = (before + (second.time ?? 0)) / 2
        let (_, dropped) = try await replay(Self.capture, ["notifications:drop@\(at)"])
        #expect(events(dropped, "peripheral didUpdateValueFor").count == values.count - 1)
        #expect(!events(dropped, "peripheral didUpdateValueFor").contains { $0.time == second.time })
        let (_, doubled) = try await replay(Self.capture, ["notifications:duplicate@\(at)"])
        let twice = events(doubled, "peripheral didUpdateValueFor")
        #expect(twice.count == values.count + 1)
        #expect(twice.filter { $0.time == second.time && $0.argument("value") == second.argument("value") }.count == 2)
    }

    @Test func anEarlyNotificationComesBeforeTheSubscriptionsAnswer() async throws {
        let requests = try await requests(Self.capture)
        let subscribe = try #require(requests.first { $0.subscribes })
        let (_, flow) = try await replay(Self.capture, ["notifications:early@request:\(subscribe.number)"])
        let names = flow.events.map { "\($0.actor) \($0.name)" }
        let early = try #require(names.firstIndex(of: "peripheral didUpdateValueFor"))
        let answer = try #require(names.firstIndex(of: "peripheral didUpdateNotificationStateFor"))
        #expect(early < answer)
    }

    @Test func aServiceChangeInvalidatesTheAppsServices() async throws {
        let (_, flow) = try await replay(Self.capture, ["service-changed@2"])
        let changed = try #require(events(flow, "peripheral didModifyServices").first)
        #expect(changed.argument("invalidatedServices") == "180D")
        #expect(events(flow, "app discoverServices").contains { $0.time == 2 }, "steadfast starts over")
    }

    @Test(arguments: [("reset", "system reset"), ("power", "system powerOff")])
    func bluetoothsOwnFaultsAreSystemEvents(_ kind: String, _ event: String) async throws {
        let (_, flow) = try await replay(Self.capture, ["\(kind)@1"])
        #expect(events(flow, event).first?.time == 1)
        #expect(events(flow, "central didUpdateState").last?.argument("state") == "poweredOn")
    }

    @Test func aFaultThatNeverHappensIsSaid() async throws {
        let (engine, flow) = try await replay(Self.capture, ["timeout@request:999"])
        #expect(engine.faultsNotInjected.map(\.description) == ["timeout@request:999"])
        #expect(flow.comments.contains { $0.contains("never happened") })
    }

    @Test func aMomentsFaultAtARequestHappensWhileItIsInFlight() async throws {
        let requests = try await requests(Self.capture)
        let subscribe = try #require(requests.first { $0.subscribes })
        let (_, flow) = try await replay(Self.capture, ["link-loss@request:\(subscribe.number)"])
        let lost = try #require(events(flow, "central didDisconnectPeripheral").first)
        #expect(lost.time == subscribe.seconds)
        #expect(
            !events(flow, "peripheral didUpdateNotificationStateFor").contains { $0.time == subscribe.seconds },
            "the request in flight gets no callback")
    }
}
