import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// A long replay writes its flow as it goes (`FlowWriter`): the text must be the very bytes the
/// flow's ``Flow/text`` gives when the events are kept, whatever the capture and the app; and the
/// mirror app's one-step-at-a-time scheduling must give the flow that scheduling everything at
/// launch gives.
@Suite struct FlowWriterTests {
    static let captures = ((try? Fixtures.allReadableCaptures()) ?? [])

    /// Replays `path` to `app`, once keeping the events and once writing them, and returns both
    /// texts (and the number of lines the writer counted against the number of events).
    static func bothTexts(_ path: String, app name: String) async throws -> (
        kept: String, written: String, lines: Int, events: Int
    ) {
        let app = try #require(ReferenceApps.named(name))
        let (cassette, _) = try Cassette.load(path: path)
        let kept = await ReplayEngine(cassette: cassette).run(app.make(for: cassette), name: name)
        let writer = try FlowWriter.spooling()
        let engine = ReplayEngine(cassette: cassette)
        engine.writer = writer
        let streamed = await engine.run(app.make(for: cassette), name: name)
        #expect(streamed.events.isEmpty)
        var bytes: [UInt8] = []
        try writer.writeFlow(comments: streamed.comments) { bytes += $0 }
        return (kept.text, String(decoding: bytes, as: UTF8.self), writer.lineCount, kept.events.count)
    }

    @Test(arguments: captures)
    func theWrittenMirrorFlowIsTheKeptFlowByteForByte(_ path: String) async throws {
        Fixtures.noteSharedSkipped("FlowWriterTests.theWrittenMirrorFlowIsTheKeptFlowByteForByte")
        let (kept, written, lines, events) = try await Self.bothTexts(path, app: "mirror")
        #expect(written == kept, "\(path)")
        #expect(lines == events)
    }

    @Test(arguments: ReferenceApps.all.map(\.name).filter { $0 != "mirror" })
    func theWrittenFlowOfEachOtherAppIsTheKeptFlow(_ app: String) async throws {
        for capture in ["att-errors.btsnoop", "reconnect-supervision-timeout.btsnoop", "service-changed.btsnoop"] {
            let (kept, written, _, _) = try await Self.bothTexts(Fixtures.capture(capture), app: app)
            #expect(written == kept, "\(capture) to \(app)")
        }
    }

    @Test(arguments: captures)
    func theMirrorStepByStepGivesTheFlowOfSchedulingEverythingAtLaunch(_ path: String) async throws {
        Fixtures.noteSharedSkipped("FlowWriterTests.theMirrorStepByStepGivesTheFlowOfSchedulingEverythingAtLaunch")
        let (cassette, _) = try Cassette.load(path: path)
        let lazy = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let eager = MirrorApp(cassette: cassette)
        eager.schedulesAllAtLaunch = true
        let upFront = await ReplayEngine(cassette: cassette).run(eager, name: "mirror")
        #expect(lazy.text == upFront.text, "\(path)")
    }

    @Test(arguments: [
        0.0, -0.0, 1.5, -0.25, 0.0000004, 0.0000005, -0.0000004, 59.999_999_6, 136.5, 1_234_567.000_001,
        8_999_999_999_999.0, 9e12, -9.5e12, 1e300, -1e300,
    ])
    func aLineWrittenIsTheEventsLine(_ time: Double) throws {
        var bytes: [UInt8] = []
        let writer = FlowWriter { bytes += $0 }
        let record = FlowRecord(
            time: time, .central(.didDisconnectPeripheral, manager: 2),
            [
                .init(.peripheral, "F0:F1:F2:F3:F4:05"), .init(.name, "é ünïcode"),
                .bytes(.value, [0x00, 0x0F, 0xA5, 0xFF]),
                .bytes(.descriptor, []), .error(CBError(.connectionTimeout)),
            ])
        writer.append(record)
        writer.begin(time: time, actor: "peripheral", name: "didUpdateValueFor")
        writer.argument("value", hex: [0x00, 0x0F, 0xA5, 0xFF])
        writer.argument("empty", hex: [])
        writer.end()
        writer.flush()
        let expected = [
            FlowEvent(
                time: time, actor: "central2", name: "didDisconnectPeripheral",
                arguments: [
                    .init("peripheral", "F0:F1:F2:F3:F4:05"), .init("name", "é ünïcode"), .init("value", "000fa5ff"),
                    .init("descriptor", "empty"), .init("error", "CBError.connectionTimeout"),
                ]
            ).line,
            FlowEvent(
                time: time, actor: "peripheral", name: "didUpdateValueFor",
                arguments: [.init("value", "000fa5ff"), .init("empty", "empty")]
            ).line,
        ].map { $0 + "\n" }.joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        // The record renders to the same line as the writer writes.
        #expect(record.rendered.line + "\n" == expected.split(separator: "\n")[0] + "\n")
        #expect(writer.lineCount == 2)
    }

    @Test func theSpoolGivesWholeLinesInOrderHoweverLong() throws {
        let writer = try FlowWriter.spooling()
        var expected = "# " + Flow.header + "\n# a comment\n"
        let long = String(repeating: "ab", count: 70_000)  // one line longer than the buffer
        for index in 0..<5_000 {
            let value = index == 2_500 ? long : "v\(index)"
            writer.append(FlowRecord(time: Double(index) / 1000, .app(.readValue), [.init(.characteristic, value)]))
            expected +=
                FlowEvent(
                    time: Double(index) / 1000, actor: "app", name: "readValue",
                    arguments: [.init("characteristic", value)]
                ).line + "\n"
        }
        var chunks: [[UInt8]] = []
        try writer.writeFlow(comments: ["a comment"]) { chunks.append(Array($0)) }
        #expect(chunks.count > 2)
        #expect(chunks.allSatisfy { $0.last == 0x0A })
        #expect(String(decoding: chunks.joined(), as: UTF8.self) == expected)
    }

    @Test func reservedPlacesKeepTheOrderOfSchedulingEverythingAtOnce() {
        // Eager: three steps scheduled at once (two at the same time), then another action at
        // time 2, which must come after the steps at time 2 since they were scheduled first.
        var order: [String] = []
        var eager = EventQueue()
        let t = { Timestamp(microseconds: $0) }
        eager.schedule(at: t(2), for: nil, process: 0) { order.append("step0") }
        eager.schedule(at: t(1), for: nil, process: 0) { order.append("step1") }
        eager.schedule(at: t(2), for: nil, process: 0) { order.append("step2") }
        eager.schedule(at: t(2), for: nil, process: 0) { order.append("other") }
        while let next = eager.popNext(notAfter: t(2)) { run(next) }
        let expected = order

        order = []
        var lazy = EventQueue()
        let places = lazy.reserve(3)
        lazy.schedule(at: t(2), for: nil, process: 0) { order.append("other") }
        // Steps in time order, each scheduled in its reserved place when the one before has run.
        let steps = [(t(1), 1), (t(2), 0), (t(2), 2)]
        var position = 0
        func scheduleNext(_ queue: inout EventQueue) {
            guard position < steps.count else { return }
            let (time, index) = steps[position]
            position += 1
            queue.schedule(at: time, sequence: places.lowerBound + index, for: nil, process: 0) {
                order.append("step\(index)")
            }
        }
        scheduleNext(&lazy)
        while let next = lazy.popNext(notAfter: t(2)) {
            run(next)
            if order.last?.hasPrefix("step") == true { scheduleNext(&lazy) }
        }
        #expect(order == expected)
        #expect(expected == ["step1", "step0", "step2", "other"])
    }

    @Test func theQueueGivesNothingDueAfterTheLimitAndKeepsIt() {
        var queue = EventQueue()
        let t = { Timestamp(microseconds: $0) }
        var ran: [Int] = []
        queue.schedule(at: t(5), for: nil, process: 0) { ran.append(5) }
        queue.schedule(at: t(3), for: nil, process: 0) { ran.append(3) }
        #expect(!queue.isRunningAction)
        while let next = queue.popNext(notAfter: t(4)) { run(next) }
        #expect(ran == [3])
        #expect(queue.isRunningAction)
        #expect(queue.nextTime() == t(5))
        queue.removeAll()
        #expect(!queue.isRunningAction && queue.nextTime() == nil)
    }
}

/// Runs an action of these tests' queues (all plain: scheduled for no peripheral).
private func run(_ scheduled: EventQueue.Scheduled) {
    if case .plain(let action) = scheduled.action { action() }
}
