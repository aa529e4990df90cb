import SystemPackage

/// A file read front to back, either as it is or through zlib (a gzip file), with a small
/// look-ahead buffer: what the tar walker and the sniffing of a member read from.
///
/// Compressed input is fed to zlib 4 KiB at a time, so one step produces at most about 4 MiB
/// (deflate's best ratio is about 1:1032): a bomb cannot grow the buffer past that.
final class ByteStream {
    let path: String
    private let file: FileDescriptor
    private let inflater: Inflater?
    private var input: UnsafeMutableRawBufferPointer
    private var inputCount = 0
    private var inputUsed = 0
    private var inputEnded = false
    private var buffer: [UInt8] = []
    private var start = 0
    /// Offset of the next byte handed out, in the (decompressed) stream.
    private(set) var position: Int64 = 0

    init(path: String, gzip: Bool) throws {
        self.path = path
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw ContainerError(container: path, expected: "a readable file (\(error))")
        }
        inflater = gzip ? try Inflater() : nil
        input = .allocate(byteCount: 256 << 10, alignment: 1)
    }

    deinit {
        input.deallocate()
        try? file.close()
    }

    /// Bytes of the file itself read so far: for a gzip, the offset in the compressed file.
    var compressedPosition: Int64 { inflater?.consumed ?? position }

    var available: Int { buffer.count - start }

    /// Makes at least `count` bytes available, unless the stream ends first; returns how many are.
    @discardableResult
    func fill(_ count: Int) throws -> Int {
        while available < count, try refill() {}
        return available
    }

    /// Hands the next `count` bytes (at most what is available) to `body` and moves past them.
    func take<T>(_ count: Int, _ body: (ArraySlice<UInt8>) throws -> T) rethrows -> T {
        let end = start + min(count, available)
        let result = try body(buffer[start..<end])
        position += Int64(end - start)
        start = end
        if start > 1 << 20, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return result
    }

    /// Passes `count` bytes on to `sink` a piece at a time (or skips them when `sink` is nil);
    /// throws when the stream ends first.
    func pass(_ count: Int64, what: String, to sink: ((ArraySlice<UInt8>) throws -> Void)?) throws {
        var left = count
        while left > 0 {
            if available == 0, try !refill() {
                throw ContainerError(
                    container: path, offset: position,
                    expected:
                        "\(left) more bytes of \(what); the \(inflater == nil ? "file" : "decompressed stream") ends here"
                )
            }
            let piece = Int(min(left, Int64(available)))
            try take(piece) { try sink?($0) }
            left -= Int64(piece)
        }
    }

    /// Reads more; false at the end of the stream.
    private func refill() throws -> Bool {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        while true {
            if inputUsed == inputCount {
                if inputEnded { return false }
                inputCount = try readInput()
                inputUsed = 0
                if inputCount == 0 {
                    inputEnded = true
                    if let inflater {
                        do { try inflater.finish() } catch {
                            throw ContainerError(container: path, offset: error.offset, expected: error.reason)
                        }
                    }
                    return false
                }
            }
            guard let inflater else {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[inputUsed..<inputCount]))
                inputUsed = inputCount
                return true
            }
            let piece = min(4096, inputCount - inputUsed)
            let before = buffer.count
            do {
                try inflater.feed(UnsafeRawBufferPointer(rebasing: input[inputUsed..<inputUsed + piece])) {
                    buffer.append(contentsOf: $0)
                }
            } catch let fault as InflateFault {
                throw ContainerError(
                    container: path, offset: fault.offset, expected: fault.reason + " (offset in the compressed file)")
            }
            inputUsed += piece
            if buffer.count > before { return true }
        }
    }

    private func readInput() throws -> Int {
        do {
            return try file.read(into: input)
        } catch {
            throw ContainerError(container: path, offset: compressedPosition, expected: "readable bytes (\(error))")
        }
    }
}
