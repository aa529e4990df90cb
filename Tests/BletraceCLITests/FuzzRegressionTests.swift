import Foundation
import Testing
import TestSupport

/// Replays the inputs `make fuzz` kept (Tests/Fixtures/fuzz/README.md) through the commands that
/// run the same code as their fuzz target: each must end with an exit code (0, 1 or 2), never a
/// signal. Every target's folder holds at least its seed (Fuzz/regression-seeds.py): a folder with
/// nothing to replay fails, so that no test passes on an empty loop.
@Suite struct FuzzRegressionTests {
    static let root = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/fuzz").path
    static let captureTargets = [
        "btsnoop", "pcap", "pklg", "hci", "acl-l2cap-att-smp", "lifecycle", "replay", "container", "link-layer",
    ]

    /// Every kept input of a target; an issue recorded when there is none.
    static func inputs(_ target: String) -> [String] {
        let folder = root + "/" + target
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let inputs = names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
        #expect(!inputs.isEmpty, "nothing to replay in \(folder) (python3 Fuzz/regression-seeds.py writes its seed)")
        return inputs
    }

    @Test(arguments: captureTargets + ["h4-stream", "flow"])
    func everyTargetHasItsSeed(target: String) {
        #expect(Self.inputs(target).contains { ($0 as NSString).lastPathComponent.hasPrefix("seed-") })
    }

    func expectExits(_ result: ProcessResult, _ what: String) {
        #expect((0...2).contains(result.status), "\(what): status \(result.status), \(result.stderr.suffix(400))")
    }

    @Test func theRegressionFolderIsThere() {
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: Self.root, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test(arguments: captureTargets)
    func keptCapturesEndWithAnExitCode(target: String) throws {
        var replayed = 0
        defer { #expect(replayed > 0, "no input of \(target) replayed") }
        for input in Self.inputs(target) {
            replayed += 1
            var path = input
            // The packet-level targets read their input as btsnoop H4 records.
            if ["hci", "acl-l2cap-att-smp", "lifecycle"].contains(target) {
                let bytes = try Fixtures.contents(input)
                let header = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]
                if !bytes.starts(with: Array("btsnoop\0".utf8)) {
                    path = try Fixtures.temporaryFile(header + bytes, name: "input.btsnoop")
                }
            }
            for command in [
                ["decode", "-v"], ["errors"], ["lifecycle"], ["lifecycle", "--format", "html"], ["gatt"], ["replay"],
                ["replay", "--app", "reconnecting"], ["replay", "--app", "explorer"],
                ["replay", "--app", "sensor-server"],
            ] {
                expectExits(try run(bletracePath, [command[0], path] + command.dropFirst()), "\(command) \(input)")
            }
        }
    }

    @Test func keptH4StreamsEndWithAnExitCode() throws {
        var replayed = 0
        defer { #expect(replayed > 0, "no H4 stream replayed") }
        for input in Self.inputs("h4-stream") {
            replayed += 1
            let output = try Fixtures.temporaryFile([], name: "out.btsnoop")
            expectExits(try bletrace("capture", "-i", input, "-w", output, "--duration", "10"), input)
        }
    }

    @Test func keptFlowPairsEndWithAnExitCode() throws {
        var replayed = 0
        defer { #expect(replayed > 0, "no flow pair replayed") }
        for input in Self.inputs("flow") {
            replayed += 1
            let bytes = try Fixtures.contents(input)
            let split = bytes.firstIndex(of: 0) ?? bytes.count
            let first = try Fixtures.temporaryFile(Array(bytes[..<split]), name: "a.flow")
            let second = try Fixtures.temporaryFile(
                split < bytes.count ? Array(bytes[(split + 1)...]) : [], name: "b.flow")
            expectExits(try bletrace("diff", first, second), input)
            expectExits(try bletrace("diff", second, first), input)
        }
    }
}
