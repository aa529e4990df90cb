import Foundation
import TestSupport
import Testing
import TraceFiles

/// Every command that writes a file writes it under any name it is given: one character (which
/// trapped in Foundation's path methods on Linux), relative, absolute, `-` (standard output),
/// unicode, hidden, with several dots.
@Suite struct OutputPathTests {
    /// The names, as given on the command line; `ABSOLUTE/` stands for the run's own directory.
    static let names = ["a", "./x", "ABSOLUTE/y", "-", "ünï.txt", ".hidden", "a.b.c", "b"]

    /// The commands that write a file, and how each is given its name.
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case info, decode, errors, stats, lifecycle, gatt, replay, convert, diff
        #if os(Linux)
        case capture
        #endif
        var testDescription: String { rawValue }
    }

    static let capture = Fixtures.capture("att-errors.btsnoop")
    static let flow = Fixtures.capture("att-errors.mirror.flow")

    /// What one run left: its exit status, its standard output as bytes, its messages.
    struct Run {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    /// Runs the built `bletrace` in `directory`, its standard output a file (so that binary
    /// output is kept as it is).
    static func bletrace(in directory: URL, _ arguments: [String]) throws -> Run {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bletrace-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout")
        let err = scratch.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bletracePath)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: try Fixtures.contents(out.path),
            stderr: String(decoding: try Fixtures.contents(err.path), as: UTF8.self))
    }

    static func freshDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The arguments that make `writer` write to `name`, in `directory`; `nil` for standard output
    /// is the command with no output named (the reference). `port` is capture's source.
    static func arguments(_ writer: Writer, _ name: String?, in directory: URL, port: UInt16 = 0) -> [String] {
        let output = name.map {
            $0.hasPrefix("ABSOLUTE/") ? directory.path + "/" + $0.dropFirst("ABSOLUTE/".count) : $0
        }
        let dashO = output.map { ["-o", $0] } ?? []
        switch writer {
        case .info, .decode, .errors, .stats, .lifecycle, .gatt: return [writer.rawValue, capture] + dashO
        case .replay: return ["replay", capture] + dashO
        case .convert: return ["convert", capture, output ?? "-", "--to", "pcap"]
        case .diff: return ["diff", output ?? "expected.flow", flow, "--update"]
        #if os(Linux)
        case .capture:
            return ["capture", "-i", "tcp:127.0.0.1:\(port)", "-w", output ?? "-", "--to", "btsnoop", "--count", "3"]
        #endif
        }
    }

    /// Where `name` is, run in `directory`.
    static func location(_ name: String, in directory: URL) -> String {
        name.hasPrefix("ABSOLUTE/")
            ? directory.path + "/" + name.dropFirst("ABSOLUTE/".count) : directory.path + "/" + name
    }

    @Test(arguments: Writer.allCases, names)
    func writesUnderAnyName(_ writer: Writer, _ name: String) throws {
        let directory = try Self.freshDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // diff --update rewrites the expected flow, which must exist (and differ); `-` cannot be
        // rewritten and is refused (as `diff --help` says).
        if writer == .diff {
            let expected = try String(contentsOfFile: Self.flow, encoding: .utf8)
                .replacingOccurrences(of: "services=1800,1801,180D,AAA0,EEE0", with: "services=1800")
            if name == "-" {
                let run = try Self.bletrace(in: directory, Self.arguments(writer, name, in: directory))
                #expect(run.status == 2)
                #expect(run.stderr.contains("--update rewrites the expected file: it cannot be -"))
                return
            }
            try expected.write(toFile: Self.location(name, in: directory), atomically: false, encoding: .utf8)
        }
        let run: Run
        #if os(Linux)
        if writer == .capture {
            run = try Self.captureRun(name, in: directory)
        } else {
            run = try Self.bletrace(in: directory, Self.arguments(writer, name, in: directory))
        }
        #else
        run = try Self.bletrace(in: directory, Self.arguments(writer, name, in: directory))
        #endif
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("crashed"))

        let written: [UInt8]
        if name == "-" {
            written = run.stdout
            // Standard output, not a file named `-`.
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/-"))
        } else {
            let path = Self.location(name, in: directory)
            #expect(FileManager.default.fileExists(atPath: path), "\(path) was not written")
            written = (try? Fixtures.contents(path)) ?? []
            // Only that file: no temporary file left beside it.
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left == [String(name.split(separator: "/").last!)], "\(left)")
            // convert says what it wrote, diff how the flows differed: on standard output.
            if writer != .convert, writer != .diff {
                #expect(
                    run.stdout.isEmpty,
                    "the output went to standard output too: \(String(decoding: run.stdout.prefix(200), as: UTF8.self))"
                )
            }
        }
        #expect(!written.isEmpty)
        try Self.checkContents(writer, written, run: run)
    }

    /// The bytes written are what the command writes to standard output with no name given (the
    /// capture converted, the flow replayed, the actual flow for diff); for capture, the records
    /// served.
    static func checkContents(_ writer: Writer, _ written: [UInt8], run: Run) throws {
        switch writer {
        case .diff:
            #expect(written == (try Fixtures.contents(flow)))
        #if os(Linux)
        case .capture:
            let path = try Fixtures.temporaryFile(written, name: "captured.btsnoop")
            let (records, fault) = try Fixtures.readAll(path)
            #expect(fault == nil)
            #expect(records.map(\.kind) == [.command, .event, .acl])
        #endif
        default:
            let directory = try freshDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let reference = try bletrace(in: directory, arguments(writer, nil, in: directory))
            #expect(reference.status == 0, "\(reference.stderr)")
            #expect(written == reference.stdout)
            if writer == .convert {
                let (records, fault) = try Fixtures.readAll(try Fixtures.temporaryFile(written, name: "converted.pcap"))
                #expect(fault == nil)
                #expect(records.count == 100)
            }
        }
    }

    #if os(Linux)
    /// `bletrace capture` of three records served over loopback (CaptureTests' packets).
    static func captureRun(_ name: String, in directory: URL) throws -> Run {
        let server = try LoopbackServer()
        let done = server.serve(
            [CaptureTests.reset, CaptureTests.resetComplete, CaptureTests.notification], holdOpen: .milliseconds(300))
        let run = try bletrace(in: directory, arguments(.capture, name, in: directory, port: server.port))
        done.wait()
        return run
    }
    #endif
}
