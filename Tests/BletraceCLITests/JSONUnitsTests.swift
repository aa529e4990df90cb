import Foundation
import TestSupport
import Testing

/// The numbering and units of every JSON document every command writes (Formats/commands.md, "Conventions",
/// Formats/json.md version 3): a number of a thing is 1-based (never 0) unless its key is an
/// `index`; a time or duration has its unit in its key; a fractional value is rounded to the
/// microsecond of its unit.
@Suite struct JSONUnitsTests {
    /// A JSON value as written, numbers kept apart from booleans and integers from fractions.
    indirect enum Value: Decodable {
        case null, bool(Bool), integer(Int64), number(Double), string(String), array([Value]), object([String: Value])

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? single.decode(Double.self) {
                self = .number(value)
            } else if let value = try? single.decode(String.self) {
                self = .string(value)
            } else if let value = try? single.decode([Value].self) {
                self = .array(value)
            } else {
                self = .object(try single.decode([String: Value].self))
            }
        }
    }

    /// Words that make a key a time or a duration. (`latency` is not one: the peripheral latency is
    /// a count of connection events; a latency measured in time says its unit, `latency_ms_median`.)
    static let timeWords: Set<Substring> = [
        "ts", "time", "seconds", "duration", "interval", "timeout", "window", "delay", "elapsed", "gap", "at", "after",
        "within",
    ]
    /// Unit words, and how many decimals a value in that unit may have (the microsecond).
    static let units: [Substring: Int] = ["us": 0, "ms": 3, "s": 6, "raw": 0]
    /// Keys that number things: 1-based, so never 0. (`connections` is a list of connection
    /// numbers in `gatt`, a count elsewhere: only its list's elements are numbers.)
    static let numbering: Set<String> = ["id", "frame", "line", "connection", "expected_event", "first_divergence"]

    /// What breaks the rules in `value`, found at `path`, as `path: what` lines.
    static func violations(_ value: Value, path: String = "", key: String? = nil, inList: Bool = false) -> [String] {
        let words = key.map { $0.split(separator: "_") } ?? []
        func numeric(_ number: Double, whole: Bool) -> [String] {
            var found: [String] = []
            guard let key else { return found }
            let unit = words.last { units[$0] != nil }
            if words.contains(where: timeWords.contains), unit == nil {
                found.append("\(path): a time without its unit")
            }
            if !whole {
                let decimals = unit.flatMap { units[$0] } ?? 6
                let scale = pow(10, Double(decimals))
                if (number * scale).rounded() / scale != number {
                    found.append("\(path): \(number) not rounded to \(decimals) decimals")
                }
            }
            let numbers = numbering.contains(key) || key.hasSuffix("_frame") || (inList && key == "connections")
            if whole, number == 0, numbers { found.append("\(path): 0 in a 1-based number") }
            return found
        }
        switch value {
        case .integer(let number): return numeric(Double(number), whole: true)
        case .number(let number): return numeric(number, whole: number == number.rounded())
        case .array(let items):
            return items.enumerated().flatMap { violations($1, path: path + "[\($0)]", key: key, inList: true) }
        case .object(let members):
            return members.sorted { $0.key < $1.key }.flatMap { violations($1, path: path + "." + $0, key: $0) }
        case .null, .bool, .string: return []
        }
    }

    /// The violations in `text`, a JSON document or JSON Lines.
    static func violations(in text: String, lines: Bool, of name: String) throws -> [String] {
        let documents = lines ? text.split(separator: "\n").map(String.init) : [text]
        return try documents.flatMap { document in
            try violations(JSONDecoder().decode(Value.self, from: Data(document.utf8))).map { "\(name) \($0)" }
        }
    }

    /// The bundled captures (HCI in every format, the over-the-air ones as a directory, whose
    /// non-HCI files the analysis commands pass over) and two public Android logs.
    static let captures: [String] = {
        let root = Fixtures.packageRoot.appendingPathComponent("Captures").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let ours = names.filter { [".btsnoop", ".pcap", ".pcapng", ".pklg"].contains(where: $0.hasSuffix) }.sorted()
        return ours.map(Fixtures.capture) + [Fixtures.capture("linklayer")]
            + Fixtures.publicCaptures(["whoisbe-pongbot-last.btsnoop", "syssi-jkbms-b5a24s.btsnoop"])
    }()

    @Test func theCheckFindsWhatBreaksTheRules() throws {
        let bad =
            #"{"duration_ms": 1899.9440000000002, "ts": 1.5, "at_s": 0.25, "id": 0, "frames": [{"frame": 0, "index": 0}], "latency": 3, "gap_s": 1.0000004, "connections": [0]}"#
        let found = Set(try Self.violations(in: bad, lines: false, of: "x"))
        #expect(
            found == [
                "x .duration_ms: 1899.9440000000002 not rounded to 3 decimals", "x .ts: a time without its unit",
                "x .id: 0 in a 1-based number",
                "x .frames[0].frame: 0 in a 1-based number", "x .gap_s: 1.0000004 not rounded to 6 decimals",
                "x .connections[0]: 0 in a 1-based number",
            ])
        #expect(
            try Self.violations(
                in: #"{"duration_ms": 1899.944, "ts_s": 1.5, "index": 0, "window_raw": 16, "connections": 0}"#,
                lines: false, of: "x"
            ).isEmpty)
    }

    @Test(arguments: ["info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt"])
    func everyAnalysisDocumentNumbersFromOneWithUnitsAndRoundedValues(_ command: String) throws {
        for format in ["json", "jsonl"] {
            let result = try bletrace([command, "--format", format] + Self.captures)
            #expect(result.status != 2, "\(command) --format \(format): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
            let found = try Self.violations(
                in: result.stdout, lines: format == "jsonl", of: "\(command) --format \(format)")
            #expect(found.isEmpty, "\(found.prefix(20).joined(separator: "\n"))")
        }
    }

    /// The diff's lines, timings and first divergence (1-based, as its JUnit report says), and the sweep's
    /// kill points.
    @Test func theDiffAndTheSweepNumberFromOneWithUnitsAndRoundedValues() throws {
        let actual = Fixtures.capture("att-errors.mirror.flow")
        let timed = try Fixtures.temporaryFile(
            Array("...\napp connect peripheral=F0:F1:F2:F3:F4:05\ncentral didConnect peripheral=* @<=0.0001\n".utf8),
            name: "timed.flow")
        for expected in [Fixtures.capture("att-errors.sdk-timeout.flow"), timed] {
            let diff = try bletrace("diff", expected, actual, "--format", "json")
            #expect(diff.status == 1, "\(diff.stderr)")
            let found = try Self.violations(in: diff.stdout, lines: false, of: "diff")
            #expect(found.isEmpty, "\(found.prefix(20).joined(separator: "\n"))")
            let junit = try bletrace("diff", expected, actual, "--format", "junit")
            let document = try json(diff.stdout)
            let first = try #require((document["first_divergence"] as? [String: Any])?["expected_event"] as? Int)
            #expect(
                junit.stdout.contains("expected event \(first):") || junit.stdout.contains("expected event \(first)\""),
                "\(junit.stdout)")
        }
        let sweep = try bletrace(
            "replay", Fixtures.capture("restore-notifying.btsnoop"), "--app", "restoring", "--sweep", "all", "--format",
            "json")
        let found = try Self.violations(in: sweep.stdout, lines: false, of: "sweep")
        #expect(found.isEmpty, "\(found.prefix(20).joined(separator: "\n"))")
        let documents = try #require(
            try JSONSerialization.jsonObject(with: Data(sweep.stdout.utf8)) as? [[String: Any]])
        let points = documents.flatMap { $0["points"] as? [[String: Any]] ?? [] }
        #expect(!points.isEmpty && points.allSatisfy { $0["at_s"] is Double })
    }

    /// gatt's connections and diagnose's connection are lifecycle's ids, which its text numbers
    /// `connection N`.
    @Test func gattAndDiagnoseNameConnectionsAsLifecycleNumbersThem() throws {
        let capture = Fixtures.capture("reconnect-answers-differ.btsnoop")
        let story = try bletrace("lifecycle", capture).stdout
        let lifecycle = try json(try bletrace("lifecycle", capture, "--format", "json").stdout)
        let ids = try #require((lifecycle["connections"] as? [[String: Any]])?.compactMap { $0["id"] as? Int })
        #expect(ids == Array(1...ids.count))
        for id in ids { #expect(story.contains("connection \(id):"), "\(story)") }
        let gatt = try json(try bletrace("gatt", capture, "--format", "json").stdout)
        let named = try #require((gatt["peers"] as? [[String: Any]])?.flatMap { $0["connections"] as? [Int] ?? [] })
        #expect(!named.isEmpty && Set(named).isSubset(of: Set(ids)))
        #expect(
            try bletrace("gatt", capture).stdout.contains(
                "connections \(named.map(String.init).joined(separator: ", "))"))
    }
}
