#if canImport(Glibc)
import Glibc
#endif
import SystemPackage
import Wire

/// A sliding window over a file, read front to back.
///
/// A regular file is mapped into memory a part at a time (``mappedPart`` bytes, 4 MiB, and at
/// least one record), so that its bytes are read where the page cache holds them, with no copy;
/// the part before the window is unmapped as the window moves on. On Linux the next part is
/// mapped ahead (from a little before the current part's end, so that the record the window stops
/// in is whole in it), and a second thread (``PagePrefetcher``) maps its pages in, and unmaps the
/// part before, while the caller reads the current one: the caller's thread then rarely stops for
/// a page fault or for unmapping (about 9 ms of its CPU time on a 60 MB file in the page cache, on
/// the machine of Benchmarks/results.md), and at most two parts are mapped. A stream is read
/// through one reusable buffer that starts at 256 KiB and grows only to hold one record. Either
/// way memory stays bounded whatever the file's size, and never beyond `limit` for one record, so
/// a corrupt length field cannot make it allocate or map more. Views it returns are valid until
/// the next `fill` or `consume`.
///
/// It never seeks, so a FIFO or a character device is read as a stream (``isStream``). Opening
/// one never hangs silently: a FIFO that no program opens for writing within `streamWait` is
/// refused by name; with no `streamWait`, FIFOs and devices are refused at once.
final class FileWindow {
    let path: String
    private let descriptor: FileDescriptor
    /// The buffer (a stream), or the mapped part of the file (a regular file: never written).
    private var storage: UnsafeMutableRawBufferPointer
    /// True when `storage` is a mapping of the file rather than an allocated buffer.
    private var isMapped = false
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    /// File offset of the first byte of the window.
    private(set) var fileOffset: Int64 = 0
    /// File offset of the mapping's first byte (a regular file).
    private var mappedFrom: Int64 = 0
    /// The part after the window's, mapped ahead while the window is read, its pages being
    /// mapped in on ``prefetcher``'s thread.
    private var ahead: (base: UnsafeMutableRawPointer, from: Int64, count: Int)?
    #if os(Linux)
    /// Started with the first part mapped ahead; nil until then, or when it cannot be.
    private var prefetcher: PagePrefetcher?
    /// False once the prefetcher could not be had: the file's parts are then mapped one by one.
    private var prefetches = true
    #endif
    /// Parts of the file that the window took over from ``ahead`` (for the tests).
    private(set) var partsMappedAhead = 0
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
        if !isStream && kind == S_IFREG {
            // Mapped on first fill.
            isMapped = true
            storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        } else {
            storage = .allocate(byteCount: 256 * 1024, alignment: 16)
        }
    }

    deinit {
        if isMapped {
            dropAhead()
            unmapWindow()
        } else {
            storage.deallocate()
        }
        try? descriptor.close()
    }

    /// How much of a regular file is mapped at a time.
    static let mappedPart = 4 << 20

    /// The pages are mapped as the window first touches them (the kernel maps those around a
    /// fault with it), not all at once: asked to (MAP_POPULATE), Linux took 1-2.5 ms more of CPU
    /// time for the 60 MB file, 4 MiB parts mapped and read through (Benchmarks/results.md,
    /// 2026-11-27 (later)).
    private static let populate: Int32 = 0

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
        if isMapped { return try remap(count) }
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

    /// How far before the end of the window's part the part after it starts, so that the record
    /// the window stops in is whole in it: more than the largest btsnoop record with its header.
    /// (A longer one is mapped afresh.)
    static let aheadOverlap = 128 << 10

    /// Maps the next part of the file, from the page that holds the window's first byte: at least
    /// `count` bytes past it unless the file ends first. The file's size is looked up again each
    /// time, so that a file still being written is read as far as it has been written.
    ///
    /// The part mapped ahead is taken when it holds those bytes, and lies within the file as it
    /// is now; then the part after it is mapped ahead in turn.
    private func remap(_ count: Int) throws(CaptureError) -> Int {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else {
            throw CaptureError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        let size = Int64(info.st_size)
        // A file that says it is empty may still have bytes to read (a /proc file, some FUSE
        // file systems): such a file, and one that cannot be mapped, is read instead.
        if size == 0 { return try unmapped(count) }
        let wanted = min(size, fileOffset + Int64(count))
        var old = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        if let next = ahead, next.from <= fileOffset, next.from + Int64(next.count) >= wanted,
            next.from + Int64(next.count) <= size
        {
            ahead = nil
            // The part read so far goes to the prefetcher to unmap with the next request.
            old = storage
            storage = UnsafeMutableRawBufferPointer(start: next.base, count: next.count)
            mappedFrom = next.from
            start = Int(fileOffset - next.from)
            end = next.count
            partsMappedAhead += 1
        } else {
            dropAhead()
            let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
            let from = fileOffset - fileOffset % page
            let length = Int(min(size - from, Int64(max(Self.mappedPart, Int(fileOffset - from) + count))))
            unmapWindow()
            guard length > Int(fileOffset - from) else {
                reachedEnd = true
                return 0
            }
            guard let base = map(from: from, count: length) else { return try unmapped(count) }
            storage = UnsafeMutableRawBufferPointer(start: base, count: length)
            mappedFrom = from
            start = Int(fileOffset - from)
            end = length
        }
        let mappedEnd = mappedFrom + Int64(end)
        if available < count || mappedEnd >= size { reachedEnd = true }
        if reachedEnd || !mapAhead(after: mappedEnd, size: size, unmapping: old) { unmap(old) }
        return available
    }

    /// Maps `count` bytes of the file from `from` (page-aligned), to be read front to back.
    private func map(from: Int64, count: Int) -> UnsafeMutableRawPointer? {
        guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE | Self.populate, descriptor.rawValue, off_t(from)),
            base != MAP_FAILED
        else { return nil }
        _ = madvise(base, count, MADV_SEQUENTIAL)
        return base
    }

    /// Maps the part after the window's, which ends at `mappedEnd`, and has the prefetcher's
    /// thread map its pages in while the window is read, and unmap `old`. False when it is not
    /// done (no prefetcher: elsewhere than Linux, or it could not be had), and `old` is still
    /// mapped.
    private func mapAhead(after mappedEnd: Int64, size: Int64, unmapping old: UnsafeMutableRawBufferPointer) -> Bool {
        #if os(Linux)
        guard prefetches else { return false }
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let from = max(mappedFrom, mappedEnd - Int64(Self.aheadOverlap))
        let aligned = from - from % page
        let count = Int(min(size, mappedEnd + Int64(Self.mappedPart)) - aligned)
        guard let base = map(from: aligned, count: count) else { return false }
        if prefetcher == nil {
            prefetcher = PagePrefetcher(page: base)
            if prefetcher == nil {
                prefetches = false
                munmap(base, count)
                return false
            }
        }
        ahead = (base, aligned, count)
        prefetcher?.hand(unmapping: old, populating: base, count: count)
        return true
        #else
        return false
        #endif
    }

    /// Unmaps `part` (if it is one), once the prefetcher is done with it.
    private func unmap(_ part: UnsafeMutableRawBufferPointer) {
        guard let base = part.baseAddress else { return }
        #if os(Linux)
        prefetcher?.wait()
        #endif
        munmap(base, part.count)
    }

    /// Unmaps the part mapped ahead, if there is one.
    private func dropAhead() {
        guard let next = ahead else { return }
        ahead = nil
        #if os(Linux)
        prefetcher?.wait()
        #endif
        munmap(next.base, next.count)
    }

    /// Unmaps the window's part, once the prefetcher is done with it.
    private func unmapWindow() {
        unmap(storage)
        storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        (start, end) = (0, 0)
    }

    /// Goes on through a buffer, reading the file from the window's first byte.
    private func unmapped(_ count: Int) throws(CaptureError) -> Int {
        dropAhead()
        unmapWindow()
        isMapped = false
        storage = .allocate(byteCount: 256 * 1024, alignment: 16)
        (start, end) = (0, 0)
        guard lseek(descriptor.rawValue, off_t(fileOffset), SEEK_SET) >= 0 else {
            throw CaptureError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        return try refill(count)
    }

    /// The first `count` available bytes, borrowed.
    @inline(__always)
    func view(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<start + count])
    }

    /// The first available byte, for a caller that has made at least one byte available
    /// (``fill(_:)``) and reads no further than it made available; valid as ``view(_:)``'s views
    /// are.
    @inline(__always)
    var front: UnsafeRawPointer { UnsafeRawPointer(storage.baseAddress.unsafelyUnwrapped + start) }

    /// Moves past `count` available bytes. (Plain additions: `count` is at most what is
    /// available, within a buffer or mapping, and the file offset stays below a file's size.)
    @inline(__always)
    func consume(_ count: Int) {
        start &+= count
        fileOffset &+= Int64(count)
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
