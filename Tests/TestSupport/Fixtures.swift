import Foundation
import TraceFiles
import Wire

/// Where the test fixtures are: the package's own `Captures/` (recorded with Bumble) and the public
/// captures in `Captures/public/` (real devices; sources and licences in its SOURCES.md).
public enum Fixtures {
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static func capture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Captures").appendingPathComponent(name).path
    }

    public static let publicCaptures = packageRoot.appendingPathComponent("Captures/public")

    /// The team's shared folder of other people's captures (`captures/public/`, `captures/field/`):
    /// `$BLETRACE_SHARED` when set (`.ci/run` sets it for the copy it tests), else `../shared`
    /// beside the package; nil when neither exists, as in a user's lone clone.
    public static let shared: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["BLETRACE_SHARED"].map { URL(fileURLWithPath: $0) },
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared"),
        ]
        return candidates.compactMap { $0 }.first { url in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent("captures").path, isDirectory: &directory)
                && directory.boolValue
        }
    }()

    /// Why tests of shared captures did not run, for their skip notes.
    public static let sharedMissing =
        "the shared captures folder was not found (set BLETRACE_SHARED, or put shared/ beside the clone)"

    /// The captures of one folder of the shared one (`public` or `field`), sorted; empty when the
    /// shared folder is not there.
    public static func sharedCaptures(_ folder: String) -> [String] {
        guard let directory = shared?.appendingPathComponent("captures").appendingPathComponent(folder),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter(isCapture).sorted().map { directory.appendingPathComponent($0).path }
    }

    public static func publicCapture(_ name: String) -> String {
        publicCaptures.appendingPathComponent(name).path
    }

    /// Every capture bletrace should read: ours and the public ones, minus the over-the-air
    /// sniffer file (not HCI).
    public static func allReadableCaptures() throws -> [String] {
        let ours = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Captures").path)
            .filter(isCapture)
            .map(capture)
        let others = try FileManager.default.contentsOfDirectory(atPath: publicCaptures.path)
            .filter { isCapture($0) && $0 != "mikeryan-crackle-le-sc.pcapng" }
            .map(publicCapture)
        return (ours + others).sorted()
    }

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
public func run(_ executable: String, _ arguments: [String], input: Data?, environment: [String: String]?) throws -> ProcessResult {
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
