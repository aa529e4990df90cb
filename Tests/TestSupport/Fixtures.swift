import Foundation
import Testing
import TraceFiles
import Wire

/// Where the test fixtures are: the package's own `Captures/` (recorded with Bumble) and other
/// people's captures of real devices, which the repository does not hold: they are read from the
/// shared folder's `captures/public/` (sources and licences in its SOURCES.md), see ``shared``.
public enum Fixtures {
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static func capture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Captures").appendingPathComponent(name).path
    }

    /// The team's shared folder of other people's captures (`captures/public/`, `captures/field/`):
    /// `$BLETRACE_SHARED` when set (`.ci/run` sets it for the copy it tests; `none` means no shared
    /// folder, to test as a lone clone would), else `../shared` beside the package; nil when the
    /// folder chosen has no `captures/`, as in a user's lone clone.
    public static let shared: URL? = {
        let candidate: URL
        switch ProcessInfo.processInfo.environment["BLETRACE_SHARED"] {
        case "none": return nil
        case let path? where !path.isEmpty: candidate = URL(fileURLWithPath: path)
        default: candidate = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
        }
        var directory: ObjCBool = false
        let found = FileManager.default.fileExists(
            atPath: candidate.appendingPathComponent("captures").path, isDirectory: &directory)
        return found && directory.boolValue ? candidate : nil
    }()

    /// Why tests of shared captures did not run, for their skip notes.
    public static let sharedMissing =
        "the shared captures folder was not found (set BLETRACE_SHARED, or put shared/ beside the clone)"

    /// The shared folder's `captures/public/`: other people's captures from public repositories
    /// (sources and licences in its SOURCES.md); nil without the shared folder.
    public static let publicCaptures: URL? = shared?.appendingPathComponent("captures/public")

    /// How many captures ``allReadableCaptures()`` takes from `captures/public/` when the shared
    /// folder is there (its 24 files but the over-the-air sniffer file), for the note of a test that
    /// ran without them; `SharedCapturesTests` checks it against the folder.
    public static let publicHCICaptureCount = 23

    /// The captures of one folder of the shared one (`public` or `field`), sorted; empty when the
    /// shared folder is not there.
    public static func sharedCaptures(_ folder: String) -> [String] {
        guard let directory = shared?.appendingPathComponent("captures").appendingPathComponent(folder),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter(isCapture).sorted().map { directory.appendingPathComponent($0).path }
    }

    /// The path of a capture in the shared folder's `captures/public/`. Without the shared folder
    /// the path names no file: a test that reads it carries the ``Testing/Trait/sharedCaptures``
    /// trait, or takes its paths from ``publicCaptures(_:)``.
    public static func publicCapture(_ name: String) -> String {
        (publicCaptures ?? URL(fileURLWithPath: "/nonexistent-shared/captures/public")).appendingPathComponent(name)
            .path
    }

    /// The paths of these shared public captures, or none without the shared folder (for tests
    /// that also check captures of ours, and say what they left out with ``noteSharedSkipped(_:count:)``).
    public static func publicCaptures(_ names: [String]) -> [String] {
        shared == nil ? [] : names.map(publicCapture)
    }

    /// Every capture bletrace should read: ours and, when the shared folder is there, the public
    /// ones in it, minus the over-the-air sniffer file (not HCI). A test that loops over them says
    /// what it left out with ``noteSharedSkipped(_:count:)``.
    public static func allReadableCaptures() throws -> [String] {
        let ours = try FileManager.default.contentsOfDirectory(
            atPath: packageRoot.appendingPathComponent("Captures").path
        )
        .filter(isCapture)
        .map(capture)
        let others = sharedCaptures("public").filter { !$0.hasSuffix("/mikeryan-crackle-le-sc.pcapng") }
        return (ours + others).sorted()
    }

    /// Whether `path` is one of the package's own captures (under `Captures/`), not a shared one.
    public static func isOurs(_ path: String) -> Bool {
        path.hasPrefix(packageRoot.appendingPathComponent("Captures").path + "/")
    }

    private static let notedLock = NSLock()
    nonisolated(unsafe) private static var noted: Set<String> = []

    /// For a test that checks our own captures and would also check shared ones: without the shared
    /// folder, prints once per test (however many arguments it runs with) how many shared captures
    /// it did not check and why. Nothing with the shared folder there.
    public static func noteSharedSkipped(_ test: String, count: Int = publicHCICaptureCount) {
        guard shared == nil else { return }
        notedLock.lock()
        let first = noted.insert(test).inserted
        notedLock.unlock()
        if first { print("\(test): \(count) shared public captures not checked: \(sharedMissing)") }
    }

    /// The conversions of the shared Ubertooth capture (`mikeryan-crackle-le-sc.pcapng`) that
    /// `Captures/linklayer/convert.py` makes: `crackle-phdr.pcap`, `crackle-ll.pcapng`,
    /// `crackle-nordic-v1.pcapng`, `crackle-nordic-v2.pcap` and `crackle-nordic-v3.pcap`. Their
    /// packets are other people's, so the repository does not hold them: they are made once a test
    /// run, with python3, into a temporary directory. Without the shared folder nothing is made and
    /// the paths name no file (the tests that read them carry ``Testing/Trait/sharedCaptures``).
    public static func crackleConversion(_ name: String) -> String {
        crackleConversions.appendingPathComponent(name).path
    }

    private static let crackleConversions: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bletrace-linklayer-\(UUID().uuidString)")
        guard shared != nil else { return directory }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let script = packageRoot.appendingPathComponent("Captures/linklayer/convert.py").path
            let result = try run(
                which("python3") ?? "/usr/bin/python3",
                [
                    script, "--only", "crackle", "--out", directory.path, "--source",
                    publicCapture("mikeryan-crackle-le-sc.pcapng"),
                ])
            if result.status != 0 { print("convert.py failed (\(result.status)): \(result.stderr)") }
        } catch {
            print("convert.py could not be run: \(error)")
        }
        return directory
    }()

    static func isCapture(_ name: String) -> Bool {
        name.hasSuffix(".btsnoop") || name.hasSuffix(".pcap") || name.hasSuffix(".pcapng") || name.hasSuffix(".pklg")
    }

    /// Writes `bytes` to a new file in a fresh temporary directory and returns its path.
    public static func temporaryFile(_ bytes: [UInt8], name: String = "capture.bin") throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bletrace-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    public static func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every record of a capture, copied out, and the error that ended the reading, if any.
    public static func readAll(_ path: String) throws -> (records: [OwnedRecord], fault: (any Error)?) {
        let reader = try CaptureReader(path: path)
        var records: [OwnedRecord] = []
        do {
            while let record = try reader.next() { records.append(OwnedRecord(record)) }
        } catch {
            return (records, error)
        }
        return (records, nil)
    }
}

/// A capture record with its bytes copied, for tests that keep records.
public struct OwnedRecord: Hashable {
    public var index: Int
    public var fileOffset: Int64
    public var timestamp: Timestamp
    public var direction: Direction?
    public var kind: PacketKind
    public var controllerIndex: UInt16?
    public var originalLength: Int
    public var bytes: [UInt8]
    public var sourceType: CaptureRecord.SourceType?
    /// What the record said of itself (``CaptureRecord/note``), kept for comparisons.
    public var note: String?

    public init(_ record: CaptureRecord) {
        index = record.index
        fileOffset = record.fileOffset
        timestamp = record.timestamp
        direction = record.direction
        kind = record.kind
        controllerIndex = record.controllerIndex
        originalLength = record.originalLength
        bytes = Array(record.bytes)
        sourceType = record.sourceType
        note = record.note
    }

    public init(kind: PacketKind, direction: Direction?, hex: String, index: Int = 0, time: Int64 = 0) {
        self.index = index
        fileOffset = 0
        timestamp = Timestamp(microseconds: time)
        self.direction = direction
        self.kind = kind
        controllerIndex = nil
        bytes = Wire.bytes(hex: hex)!
        originalLength = bytes.count
        sourceType = nil
        note = nil
    }

    /// Lends the record to `body` as a ``CaptureRecord`` borrowing these bytes.
    public func withRecord<T>(_ body: (CaptureRecord) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { buffer in
            try body(
                CaptureRecord(
                    index: index, fileOffset: fileOffset, timestamp: timestamp, direction: direction,
                    kind: kind, controllerIndex: controllerIndex, originalLength: originalLength,
                    bytes: buffer, sourceType: sourceType))
        }
    }
}

/// Runs a program and collects its output.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
    try run(executable, arguments, input: stdin.map { Data($0.utf8) }, environment: nil)
}

/// Runs a program with `input` (bytes) on its standard input and, if given, only `environment`.
public func run(_ executable: String, _ arguments: [String], input: Data?, environment: [String: String]?) throws
    -> ProcessResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let bytes = input
    // A program that exits before reading all its input must not kill the tests with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    let input = Pipe()
    process.standardInput = input
    try process.run()
    // Written in the background: a large input must not block while the program fills its pipes.
    let writer = input.fileHandleForWriting
    let written = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        if let bytes { try? writer.write(contentsOf: bytes) }
        try? writer.close()
        written.signal()
    }
    // Read both pipes while the process runs so a large output cannot block it.
    let errors = DataBox()
    let done = DispatchSemaphore(value: 0)
    let errHandle = err.fileHandleForReading
    DispatchQueue.global().async {
        errors.data = errHandle.readDataToEndOfFile()
        done.signal()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    done.wait()
    written.wait()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errors.data, as: UTF8.self))
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The path of a program on PATH.
public func which(_ name: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// Joins hand-written hex fields (one field an argument, so each can carry a comment) into bytes.
public func packet(_ fields: String...) -> [UInt8] { packet(fields) }

public func packet(_ fields: [String]) -> [UInt8] {
    guard let result = Wire.bytes(hex: fields.joined(separator: " ")) else {
        preconditionFailure("malformed test hex: \(fields)")
    }
    return result
}

extension Trait where Self == ConditionTrait {
    /// For a test or suite that reads captures of the shared folder (``Fixtures/shared``): without
    /// it, the test is skipped, and says why.
    public static var sharedCaptures: Self {
        .enabled(if: Fixtures.shared != nil, Comment(rawValue: Fixtures.sharedMissing))
    }
}
