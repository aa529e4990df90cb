import Foundation
import TestSupport
import Testing

/// `info` and `diagnose` say first when a capture cannot tell the whole story (issue 43 §4): the
/// text's first lines, and the `fitness` list of their JSON (empty when the capture can answer).
@Suite struct FitnessCommandTests {
    /// att-errors.btsnoop from its first ACL record on, byte for byte: a log that starts inside the
    /// connection. Returns its path and the frame (in the cut file) of that first record.
    static func startedInside() throws -> (path: String, frame: Int) {
        let source = Fixtures.capture("att-errors.btsnoop")
        let (records, _) = try Fixtures.readAll(source)
        let first = try #require(records.first { $0.kind == .acl })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let cut = bytes.prefix(16) + bytes.dropFirst(Int(first.fileOffset))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-fitness-\(UUID().uuidString).btsnoop")
        try cut.write(to: url)
        return (url.path, 1)
    }

    @Test func aWholeCaptureHasAnEmptyFitnessList() throws {
        let capture = Fixtures.capture("att-errors.btsnoop")
        for command in ["info", "diagnose"] {
            let result = try bletrace(command, capture, "--format", "json")
            #expect(result.status == 0)
            let document = try json(result.stdout)
            #expect((document["fitness"] as? [Any])?.isEmpty == true, "\(command)")
            #expect(!(try bletrace(command, capture).stdout.contains("cannot tell the whole story")))
        }
    }

    @Test func aCaptureStartedInsideAConnectionIsSaidFirst() throws {
        let (path, frame) = try Self.startedInside()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for command in ["info", "diagnose"] {
            let text = try bletrace(command, path)
            #expect(text.status == 0)
            let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first == "This capture cannot tell the whole story:", "\(command)")
            #expect(
                lines.dropFirst().first?.hasPrefix(
                    "  started-mid-connection: The capture began in the middle of 1 connection (handle 0x0001 from frame \(frame))"
                ) == true)
            #expect(lines.contains("    evidence: frame \(frame)"))
            #expect(
                lines.contains {
                    $0.hasPrefix("    to record one that can: Start recording before the app connects. Android: ")
                })

            let document = try json(try bletrace(command, path, "--format", "json").stdout)
            let fitness = try #require(document["fitness"] as? [[String: Any]])
            #expect(fitness.count == 1)
            #expect(Set(fitness[0].keys) == ["kind", "problem", "evidence", "remedy"])
            #expect(fitness[0]["kind"] as? String == "started-mid-connection")
            #expect(fitness[0]["evidence"] as? [Int] == [frame])
        }
    }
}
