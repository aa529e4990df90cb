import SystemPackage

/// A file opened for writing through one reusable buffer, with explicit byte order on every
/// integer.
///
/// Bytes collect in the buffer (64 KiB, grown only to hold one record larger than that) and
/// reach the file when the buffer is full, at ``flush()`` and at ``close()``. The btsnoop, pcapng
/// and PacketLogger writers use it; the pcap writer goes through libpcap's own stdio buffer.
final class BufferedFileWriter {
    let path: String
    private var descriptor: FileDescriptor?
    private var storage: UnsafeMutableRawBufferPointer
    private var count = 0

    /// Creates the file, or truncates it when it exists (mode 0644 before the umask).
    init(path: String) throws {
        self.path = path
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw CaptureWriter.Failure(path: path, reason: FileWindow.reason(error))
        }
        storage = .allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        storage.deallocate()
        try? descriptor?.close()
    }

    /// Makes room for `extra` more bytes, writing out what the buffer holds when it must.
    private func reserve(_ extra: Int) throws {
        guard count + extra > storage.count else { return }
        try drain()
        if extra > storage.count {
            storage.deallocate()
            storage = .allocate(byteCount: extra, alignment: 16)
        }
    }

    func integer<T: FixedWidthInteger>(_ value: T, bigEndian: Bool) throws {
        try reserve(MemoryLayout<T>.size)
        storage.storeBytes(
            of: bigEndian ? value.bigEndian : value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    func bytes(_ value: UnsafeRawBufferPointer) throws {
        guard !value.isEmpty else { return }
        try reserve(value.count)
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + value.count]).copyMemory(from: value)
        count += value.count
    }

    func bytes(_ value: [UInt8]) throws {
        try value.withUnsafeBytes { (buffer) in try bytes(buffer) }
    }

    func zeros(_ n: Int) throws {
        guard n > 0 else { return }
        try reserve(n)
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + n]).initializeMemory(
            as: UInt8.self, repeating: 0)
        count += n
    }

    /// Writes the buffer to the file.
    private func drain() throws {
        guard count > 0 else { return }
        guard let descriptor else { throw CaptureWriter.Failure(path: path, reason: "the writer is closed") }
        do {
            _ = try descriptor.writeAll(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
        } catch {
            throw CaptureWriter.Failure(path: path, reason: FileWindow.reason(error))
        }
        count = 0
    }

    /// Everything written so far reaches the file (the kernel's page cache; no fsync).
    func flush() throws { try drain() }

    /// Flushes and closes the file. Closing twice is harmless; the descriptor is closed even
    /// when the last write fails.
    func close() throws {
        guard let open = descriptor else { return }
        var failure: (any Error)?
        do { try drain() } catch { failure = error }
        descriptor = nil
        do { try open.close() } catch {
            failure = failure ?? CaptureWriter.Failure(path: path, reason: FileWindow.reason(error))
        }
        if let failure { throw failure }
    }
}
