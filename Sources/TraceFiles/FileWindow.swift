import SystemPackage
import Wire

/// A sliding window over a file, read front to back through one reusable buffer.
///
/// Memory stays bounded whatever the file's size: the buffer starts at 256 KiB and grows only to
/// hold one record, and never beyond `limit`, so a corrupt length field cannot make it allocate
/// more. Views it returns are valid until the next `fill` or `consume`.
final class FileWindow {
    let path: String
    private let descriptor: FileDescriptor
    private var storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    /// File offset of the first byte of the window.
    private(set) var fileOffset: Int64 = 0
    let limit: Int

    init(path: String, limit: Int = 1 << 20) throws(CaptureError) {
        self.path = path
        self.limit = limit
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw CaptureError.cannotOpen(path: path, reason: Self.reason(error))
        }
        storage = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        storage.deallocate()
        try? descriptor.close()
    }

    /// Bytes in the window.
    var available: Int { end - start }

    /// Makes at least `count` bytes available unless the file ends first; returns what is there.
    @discardableResult @inline(__always)
    func fill(_ count: Int) throws(CaptureError) -> Int {
        if available >= count || reachedEnd { return available }
        return try refill(count)
    }

    /// Moves what is left to the front of the buffer (growing it if one record needs more) and
    /// reads from the file until `count` bytes are there or the file ends.
    @inline(never)
    private func refill(_ count: Int) throws(CaptureError) -> Int {
        precondition(count <= limit, "callers check lengths against the limit first")
        if start + count > storage.count {
            if count > storage.count {
                let grown = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: min(limit, max(count, storage.count * 2)), alignment: 16)
                grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[start..<end]))
                storage.deallocate()
                storage = grown
            } else if available > 0 {
                storage.baseAddress!.copyMemory(
                    from: storage.baseAddress! + start, byteCount: available)
            }
            end = available
            start = 0
        }
        while available < count {
            let room = UnsafeMutableRawBufferPointer(rebasing: storage[end...])
            let read: Int
            do {
                read = try descriptor.read(into: room, retryOnInterrupt: true)
            } catch {
                throw CaptureError.cannotOpen(path: path, reason: Self.reason(error))
            }
            if read == 0 {
                reachedEnd = true
                break
            }
            end += read
        }
        return available
    }

    /// The first `count` available bytes, borrowed.
    @inline(__always)
    func view(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<start + count])
    }

    @inline(__always)
    func consume(_ count: Int) {
        start += count
        fileOffset += Int64(count)
    }

    /// True when nothing is left in the window and the file has ended.
    func atEnd() throws(CaptureError) -> Bool { try fill(1) == 0 }

    static func reason(_ error: any Error) -> String {
        if let errno = error as? Errno {
            switch errno {
            case .noSuchFileOrDirectory: return "no such file"
            case .isDirectory: return "it is a directory, not a capture file"
            case .permissionDenied: return "permission denied"
            default: return errno.description
            }
        }
        return "\(error)"
    }
}
