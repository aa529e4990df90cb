import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing

@testable import Flow
@testable import Replay

/// The one table of actors and events, and what `bletrace diff` says of a word not in it.
@Suite struct FlowVocabularyTests {
    func error(_ line: String) -> FlowError? {
        do {
            _ = try FlowExpectation(parsing: line, source: "e.flow")
            return nil
        } catch {
            return error
        }
    }

    @Test func everyBundledFlowUsesOnlyTheVocabulary() throws {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path
        )
        .filter { $0.hasSuffix(".flow") }
        try #require(names.count >= 5)
        for name in names {
            let flow = try Flow(parsing: String(contentsOfFile: Fixtures.capture(name), encoding: .utf8), source: name)
            for event in flow.events {
                #expect(FlowVocabulary.contains(event), "\(name): \(event.signature)")
                for argument in event.arguments {
                    #expect(FlowVocabulary.keys.contains(argument.key), "\(name): \(event.signature)")
                }
            }
        }
    }

    @Test func theReplayRecordsOnlyWordsOfTheVocabulary() async throws {
        // Every reference app on every bundled capture: the actors, the events, the argument keys
        // and the error names.
        let captures = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path
        )
        .filter { $0.hasSuffix(".btsnoop") }.sorted()
        try #require(captures.count >= 10)
        for capture in captures {
            let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
            for entry in ReferenceApps.all {
                let flow = await ReplayEngine(cassette: cassette).run(entry.make(for: cassette), name: entry.name)
                #expect(!flow.events.isEmpty)
                for event in flow.events {
                    #expect(FlowVocabulary.contains(event), "\(capture) \(entry.name): \(event.signature)")
                    for argument in event.arguments {
                        #expect(
                            FlowVocabulary.keys.contains(argument.key), "\(capture) \(entry.name): \(event.signature)")
                        if argument.key == "error" {
                            #expect(FlowVocabulary.errorNameFault(argument.value) == nil, "\(event.signature)")
                        }
                    }
                }
            }
        }
    }

    @Test func restorationWordsAreThere() {
        for name in ["launch", "terminate", "relaunch", "forceQuit", "powerOff", "powerOn", "reset", "unauthorized"] {
            #expect(FlowVocabulary.contains(FlowEvent(time: nil, actor: "system", name: name)))
        }
        #expect(FlowVocabulary.contains(FlowEvent(time: nil, actor: "central", name: "willRestoreState")))
        #expect(FlowVocabulary.contains(FlowEvent(time: nil, actor: "peripheralManager2", name: "willRestoreState")))
    }

    @Test(arguments: [
        ("garbage line", 1, "an actor (`app`, `central`, `peripheral`, `peripheralManager`, `system`), not `garbage`"),
        (
            "+1.0 centrl didConnect peripheral=A", 6,
            "an actor (`app`, `central`, `peripheral`, `peripheralManager`, `system`), not `centrl`; did you mean `central`?"
        ),
        ("central  didConect peripheral=A", 10, "an event of `central`, not `didConect`; did you mean `didConnect`?"),
        (
            "app didConnect peripheral=A", 5,
            "an event of `app`, not `didConnect`; `didConnect` is an event of `central`"
        ),
        (
            "central1 didConnect peripheral=A", 1,
            "an actor (`app`, `central`, `peripheral`, `peripheralManager`, `system`), not `central1`; did you mean `central`?"
        ),
        ("peripheral frobnicate x=1", 12, "an event of `peripheral`, not `frobnicate`"),
        (
            "central didConnect periphral=A", 20,
            "an argument key of a flow event, not `periphral`; did you mean `peripheral`?"
        ),
        (
            "central didDisconnectPeripheral peripheral=A error=CBError.connectionTimout", 52,
            "a case of `CBError`, not `connectionTimout`; did you mean `CBError.connectionTimeout`?"
        ),
        ("peripheral didReadValueFor peripheral=A", 12, "an event of `peripheral`, not `didReadValueFor`"),
        (
            "peripheral didWriteValueFor peripheral=A characteristic=2A37 error=CBATTError.writeNotPermited", 68,
            "a case of `CBATTError`, not `writeNotPermited`; did you mean `CBATTError.writeNotPermitted`?"
        ),
    ])
    func aWordNotInTheVocabularyIsBadInputWithItsPlaceAndANearMiss(line: String, column: Int, expected: String) {
        #expect(
            error("# bletrace flow 2\n" + line)
                == FlowError(source: "e.flow", line: 2, column: column, expected: expected))
    }

    @Test func errorValuesOfOtherFormsAndPatternsPass() {
        for value in [
            "nil", "CBError.connectionTimeout", "CBATTError.Code(128)", "CBError.*", "CBError.connection*",
            "CBInternalError.pairingCancelled", "CBInternalError(99)", "=0x05",
        ] {
            #expect(FlowVocabulary.errorNameFault(value) == nil, "\(value)")
        }
        #expect(FlowVocabulary.errorNameFault("CBInternalError.pairingCanceled") != nil)
    }

    @Test func numberedManagersAreTheirKind() {
        #expect(FlowVocabulary.kind(of: "central2") == "central")
        #expect(FlowVocabulary.kind(of: "peripheralManager12") == "peripheralManager")
        #expect(FlowVocabulary.kind(of: "central02") == nil)
        #expect(FlowVocabulary.kind(of: "peripheral2") == nil)
        #expect(FlowVocabulary.kind(of: "app") == "app")
    }

    @Test func aReaderChecksOnlyWhenAsked() throws {
        let path = try Fixtures.temporaryFile(Array("garbage line\n".utf8), name: "g.flow")
        #expect(try FlowReader(path: path).next()?.event.actor == "garbage")
        let checking = try FlowReader(path: path)
        checking.checksVocabulary = true
        #expect(throws: FlowError.self) { try checking.next() }
    }

    @Test func aReaderRewindsToReadTheSameEventsAgain() throws {
        let path = try Fixtures.temporaryFile(
            Array("# match: in-order\r\napp connect peripheral=A\r\n...\ncentral didConnect peripheral=A".utf8),
            name: "r.flow")
        let reader = try FlowReader(path: path)
        var first: [String] = []
        while let item = try reader.nextItem() { if case .event(let e) = item { first.append(e.event.signature) } }
        #expect(reader.matchesInOrder)
        try reader.rewind()
        #expect(!reader.matchesInOrder)
        var second: [String] = []
        while let item = try reader.nextItem() { if case .event(let e) = item { second.append(e.event.signature) } }
        #expect(first == ["app connect peripheral=A", "central didConnect peripheral=A"])
        #expect(second == first)
        #expect(reader.matchesInOrder)
    }

    @Test func aGATTRequestsEventIsItsMethodsName() {
        // The flow writes a request as its CoreBluetooth method and a callback as its delegate
        // method: the vocabulary holds the same names.
        for method in GATTRequest.Method.allCases { #expect(FlowRecord.App(method).rawValue == method.rawValue) }
        for method in GATTCallback.Method.allCases {
            #expect(FlowRecord.Peripheral(method).rawValue == method.rawValue)
        }
    }
}

@Suite struct FlowOutlineTests {
    func outline(_ text: String) throws -> FlowReader.Outline {
        try FlowReader(path: Fixtures.temporaryFile(Array(text.utf8), name: "o.flow")).outline()
    }

    @Test func findsPatternsAndPeripheralsWithoutReadingEvents() throws {
        #expect(try !outline("#\n# \n \t\n#match\napp connect peripheral=A\n").isPattern)
        #expect(try outline("...\n").isPattern)
        #expect(try outline("  ... \t\n").isPattern)
        #expect(try outline("# match: in-order\n").isPattern)
        #expect(try outline("central didDisconnectPeripheral peripheral=A error=*\n").isPattern)
        #expect(try outline("app connect peripheral=A @<=1\n").isPattern)
        #expect(try !outline("app write value=a*b name=x@y\n").isPattern)
        #expect(
            try outline("app connect peripheral=A\napp connect peripheral=B\napp connect peripheral=C\n").peripherals
                == ["A", "B"])
        #expect(try outline("app connect peripheral=A*\n").peripherals.isEmpty)
    }

    @Test func everyBundledAndFuzzedFlowOutlinesWithoutTrapping() throws {
        let root = Fixtures.packageRoot
        var paths = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Captures").path)
            .filter { $0.hasSuffix(".flow") }.map { root.appendingPathComponent("Captures/\($0)").path }
        let fuzz = root.appendingPathComponent("Tests/Fixtures/fuzz/flow")
        paths += ((try? FileManager.default.contentsOfDirectory(atPath: fuzz.path)) ?? []).map {
            fuzz.appendingPathComponent($0).path
        }
        for path in paths {
            let reader = try FlowReader(path: path)
            _ = try? reader.outline()
        }
        #expect(paths.count >= 5)
    }
}
