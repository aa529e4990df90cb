#if canImport(Glibc)
import Glibc
#endif
import SystemPackage
import Wire

/// A sliding window over a file, read front to back through one reusable buffer.
///
/// Memory stays bounded whatever the file's size: the buffer starts at 256 KiB and grows only to
/// hold one record, and never beyond `limit`, so a corrupt length field cannot make it allocate
/// more. Views it returns are valid until the next `fill` or `consume`.
///
/// It never seeks, so a FIFO or a character device is read as a stream (``isStream``). Opening
/// one never hangs silently: a FIFO that no program opens for writing within `streamWait` is
/// refused by name; with no `streamWait`, FIFOs and devices are refused at once.
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
    /// True for a FIFO, a character device or a socket: bytes arrive as they are written.
    let isStream: Bool

    init(path: String, limit: Int = 1 << 20, streamWait: Duration? = .seconds(10)) throws(CaptureError) {
        self.path = path
        self.limit = limit
        // Opened without blocking (a FIFO's open would wait for a writer), then made blocking.
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            throw CaptureError.cannotOpen(path: path, reason: Self.reason(error))
        }
        var info = stat()
        guard fstat(opened.rawValue, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            try? opened.close()
            throw CaptureError.cannotOpen(path: path, reason: reason)
        }
        let kind = info.st_mode & S_IFMT
        isStream = kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
        if kind == S_IFDIR {
            try? opened.close()
            throw CaptureError.cannotOpen(path: path, reason: "it is a directory, not a capture file")
        }
        if isStream {
            let name = kind == S_IFIFO ? "a FIFO" : kind == S_IFCHR ? "a character device" : "a socket"
            guard let streamWait else {
                try? opened.close()
                throw CaptureError.cannotOpen(path: path, reason: "it is \(name), not a file")
            }
            if kind == S_IFIFO {
                var entry = pollfd(fd: opened.rawValue, events: Int16(POLLIN), revents: 0)
                let (seconds, attoseconds) = streamWait.components
                let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
                var ready: Int32
                repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
                if ready == 0 {
                    try? opened.close()
                    throw CaptureError.cannotOpen(
                        path: path, reason: "it is a FIFO, and no program wrote to it within \(streamWait)")
                }
            }
            _ = fcntl(opened.rawValue, F_SETFL, fcntl(opened.rawValue, F_GETFL) & ~O_NONBLOCK)
        } else {
            _ = fcntl(opened.rawValue, F_SETFL, fcntl(opened.rawValue, F_GETFL) & ~O_NONBLOCK)
        }
        descriptor = opened
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
