import Foundation
import TestSupport
import Testing

/// Several captures at once (`CaptureBatch`): a worker per file, outputs in file order, `"file"`
/// in every JSON object, failures reported without stopping the others.
@Suite struct ManyCapturesTests {
    static let first = Fixtures.capture("att-errors.btsnoop")
    static let second = Fixtures.capture("peer-disconnect.pcap")
    static let third = Fixtures.capture("att-errors.pklg")

    /// A directory holding copies of the three captures (one in a subdirectory), a file that is
    /// no capture under a capture's name, and a file the directory walk leaves out. (A capture
    /// that fails when named on the command line: ``aFailureStopsNoOtherCapture()``.)
    func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("b"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.first, toPath: directory.appendingPathComponent("a.btsnoop").path)
        try FileManager.default.copyItem(atPath: Self.second, toPath: directory.appendingPathComponent("b/c.pcap").path)
        try FileManager.default.copyItem(atPath: Self.third, toPath: directory.appendingPathComponent("d.pklg").path)
        try Data("not a capture".utf8).write(to: directory.appendingPathComponent("b/broken.btsnoop"))
        try Data("notes".utf8).write(to: directory.appendingPathComponent("README.md"))
        return directory
    }

    @Test func decodeLinesComeInFileOrderEachNamingItsFile() throws {
        let files = [Self.first, Self.second, Self.third]
        let many = try bletrace(["decode", "--format", "jsonl"] + files)
        #expect(many.status == 0)
        var expected: [[String: Any]] = []
        for file in files {
            let single = try bletrace("decode", "--format", "jsonl", file)
            for var line in try jsonLines(single.stdout) {
                line["file"] = file
                expected.append(line)
            }
        }
        let lines = try jsonLines(many.stdout)
        #expect(lines.count == expected.count)
        for (line, wanted) in zip(lines, expected) {
            #expect(NSDictionary(dictionary: line).isEqual(to: wanted))
        }
        // "file" is the first key of each line.
        #expect(many.stdout.hasPrefix("{\"file\":\"\(Self.first)\","))
    }

    @Test func oneWorkerOrSeveralWriteTheSameBytes() throws {
        let files = [Self.first, Self.second, Self.third, Self.first]
        let one = try bletrace(["errors", "--format", "jsonl", "--jobs", "1"] + files)
        let several = try bletrace(["errors", "--format", "jsonl", "--jobs", "3"] + files)
        #expect(one.status == 0 && several.status == 0)
        #expect(!one.stdout.isEmpty)
        #expect(one.stdout == several.stdout)
    }

    @Test func aDirectoryIsWalkedAndAFileThatIsNoCaptureIsPassedOver() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bletrace("stats", "--format", "json", directory.path)
        // The file that is no capture is passed over with a note (a directory's
        // stray file is no failure of the run), the others reported.
        #expect(result.status == 0)
        #expect(result.stderr.contains("note: \(directory.path)/b/broken.btsnoop skipped"), "\(result.stderr)")
        let documents = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let names = documents.compactMap { $0["file"] as? String }.map { ($0 as NSString).lastPathComponent }
        #expect(names == ["a.btsnoop", "c.pcap", "d.pklg"])
        #expect(documents.allSatisfy { ($0["records"] as? Int ?? 0) > 0 })
    }

    @Test func aFailureStopsNoOtherCapture() throws {
        let broken = try Fixtures.temporaryFile(Array("not a capture".utf8), name: "broken.btsnoop")
        let result = try bletrace("stats", "--format", "json", Self.first, broken, Self.second)
        // Named on the command line, the broken file is bad input: exit 2, said on standard
        // error, the others reported.
        #expect(result.status == 2)
        #expect(result.stderr.contains("broken.btsnoop"))
        let documents = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(documents.compactMap { $0["file"] as? String } == [Self.first, Self.second])
    }

    @Test func textComesUnderAHeaderPerFile() throws {
        let result = try bletrace("lifecycle", "--brief", Self.first, Self.second)
        #expect(result.status == 0)
        let first = try #require(result.stdout.range(of: "==> \(Self.first) <=="))
        let second = try #require(result.stdout.range(of: "==> \(Self.second) <=="))
        #expect(first.lowerBound == result.stdout.startIndex)
        #expect(first.upperBound < second.lowerBound)
        let single = try bletrace("lifecycle", "--brief", Self.second)
        #expect(result.stdout.hasSuffix(single.stdout))
    }

    @Test func aPictureTakesOneCapture() throws {
        let result = try bletrace("lifecycle", "--format", "svg", Self.first, Self.second)
        #expect(result.status == 2)
        #expect(result.stderr.contains("one capture"))
        #expect(result.stdout.isEmpty)
    }
}

/// The route a team takes when its logs outgrow one machine: JSON lines of a directory of
/// captures queried with DuckDB (Formats/commands.md, "Many captures"). The query's answer per file must be
/// what bletrace says of each file on its own.
@Suite struct DuckDBQueryTests {
    @Test func errorsOfADirectoryQueriedWithDuckDBMatchEachFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-duckdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonl = directory.appendingPathComponent("errors.jsonl").path
        // The bundled captures (the shared public ones include a sniffer file bletrace refuses).
        let captures = directory.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        for capture in try Fixtures.allReadableCaptures() where Fixtures.isOurs(capture) {
            try FileManager.default.copyItem(
                atPath: capture, toPath: captures.appendingPathComponent((capture as NSString).lastPathComponent).path)
        }
        let written = try bletrace("errors", "--format", "jsonl", captures.path, "-o", jsonl)
        #expect(written.status == 0, "\(written.stderr)")

        // The query of Formats/commands.md, "Many captures at once".
        let query = """
            SELECT file, count(*) AS errors, count(*) FILTER (WHERE NOT expected) AS unexpected
            FROM read_json_auto('\(jsonl)') GROUP BY file ORDER BY file
            """
        let script =
            "import duckdb, sys\nfor row in duckdb.sql(sys.argv[1]).fetchall(): print('\\t'.join(map(str, row)))"
        let answer = try run("/usr/bin/env", ["python3", "-c", script, query])
        #expect(answer.status == 0, "DuckDB (make deps installs it from PyPI): \(answer.stderr)")
        let rows = answer.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.count > 3)
        for row in rows {
            let file = row[0]
            let single = try jsonLines(try bletrace("errors", "--format", "jsonl", file).stdout)
            #expect(Int(row[1]) == single.count, "\(file)")
            #expect(Int(row[2]) == single.filter { ($0["expected"] as? Bool) == false }.count, "\(file)")
        }
    }
}
