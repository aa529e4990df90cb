#if canImport(Glibc)
import Glibc
#endif
import BLETrace

/// A file in memory (/dev/shm) holding one fuzz input at a time, for the readers that open a path.
public enum MemoryFile {
    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var name = ""

    /// The path of a file holding `bytes` (and nothing else).
    public static func path(holding bytes: UnsafeRawBufferPointer) -> String {
        if descriptor < 0 {
            name = "/dev/shm/bletrace-fuzz-\(getpid())"
            descriptor = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            precondition(descriptor >= 0, "cannot create \(name)")
            // Removed when the process ends normally; a crash leaves it in /dev/shm.
            atexit { unlink(MemoryFile.name) }
        }
        precondition(ftruncate(descriptor, 0) == 0)
        if !bytes.isEmpty { precondition(pwrite(descriptor, bytes.baseAddress!, bytes.count, 0) == bytes.count) }
        return name
    }

    /// `prefix` then `bytes`, as a file (to give a reader its header when the input lacks it).
    public static func path(holding bytes: UnsafeRawBufferPointer, after prefix: [UInt8]) -> String {
        var joined = prefix
        if !bytes.starts(with: prefix) { joined += bytes } else { joined = Array(bytes) }
        return joined.withUnsafeBytes { path(holding: $0) }
    }
}

/// The btsnoop H4 file header (version 1, datalink 1002): the packet-level targets read their input as
/// the records of such a file, so that the bundled captures are meaningful seeds.
public let btsnoopH4Header: [UInt8] = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]

/// Every record of the capture at `path`, in order, until the end or the first fault.
public func forEachRecord(_ path: String, _ body: (CaptureRecord) -> Void) {
    guard let reader = try? CaptureReader(path: path, streamWait: .zero) else { return }
    while true {
        guard let record = try? reader.next() else { return }
        body(record)
    }
}

/// Reads every field a consumer would, so that a reader's lazy work is done.
public func touch(_ record: CaptureRecord) -> Int {
    var sum = record.index &+ Int(record.fileOffset) &+ Int(truncatingIfNeeded: record.timestamp.microseconds)
    sum &+= record.originalLength &+ Int(record.kind.rawValue) &+ (record.direction == .sent ? 1 : 0)
    for byte in record.bytes { sum &+= Int(byte) }
    _ = record.note
    return sum
}
