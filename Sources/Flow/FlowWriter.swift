import Foundation
import Wire

/// A flow's text written as the replay makes it, for long replays: each event becomes its line
/// (exactly as ``FlowEvent/line`` gives it) in a 64 KiB buffer, and the buffer goes to `sink`
/// whenever it fills, so that a replay of a million events holds no event in memory.
///
/// A flow's text puts its comments before its events, and a replay adds comments to the end; so
/// ``spooling()`` keeps the event lines in an anonymous temporary file until
/// ``writeFlow(comments:to:)`` writes the header, the comments, then the lines.
///
/// Set it as the engine's ``ReplayEngine/writer`` before ``ReplayEngine/run(_:name:)``: the
/// flow that run returns then holds the comments only.
public final class FlowWriter {
    /// The lines not yet sent on.
    @exclusivity(unchecked) private var buffer: LineBuffer
    /// Where full buffers go: the caller's sink, or the spool file.
    private let sink: ((UnsafeRawBufferPointer) -> Void)?
    private var spool: UnsafeMutablePointer<FILE>?
    /// A write to the spool failed (a full disk): its errno.
    private var spoolError: Int32?
    /// Event lines written so far.
    @exclusivity(unchecked) public private(set) var lineCount = 0

    private static let capacity = 1 << 16

    /// Sends the event lines, in chunks of whole lines, to `sink`.
    public init(lines sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        buffer = LineBuffer(capacity: Self.capacity + 4096)
    }

    private init(spool: UnsafeMutablePointer<FILE>) {
        self.sink = nil
        self.spool = spool
        buffer = LineBuffer(capacity: Self.capacity + 4096)
    }

    /// Keeps the event lines in an anonymous temporary file (gone when the writer is, or the
    /// process ends) for ``writeFlow(comments:to:)``.
    public static func spooling() throws -> FlowWriter {
        guard let file = tmpfile() else { throw SpoolError(code: errno) }
        return FlowWriter(spool: file)
    }

    deinit {
        if let spool { fclose(spool) }
        buffer.storage.deallocate()
    }

    /// The temporary file could not be made or written.
    public struct SpoolError: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { "the flow's temporary file: \(String(cString: strerror(code)))" }
    }

    /// Sends what is buffered on.
    public func flush() {
        guard buffer.count > 0 else { return }
        let chunk = UnsafeRawBufferPointer(start: buffer.storage, count: buffer.count)
        if let sink {
            sink(chunk)
        } else if let spool, spoolError == nil, fwrite(chunk.baseAddress!, 1, chunk.count, spool) != chunk.count {
            spoolError = errno
        }
        buffer.count = 0
    }

    /// A spooling writer's whole flow: the header, `comments`, then every event line, to `output`
    /// in chunks. The same bytes as ``Flow/text`` of the flow with those events and comments.
    public func writeFlow(comments: [String], to output: (UnsafeRawBufferPointer) -> Void) throws {
        flush()
        var head = Array(("# " + Flow.header + "\n").utf8)
        for comment in comments {
            head += "# ".utf8
            head += comment.utf8
            head.append(0x0A)
        }
        head.withUnsafeBytes { output($0) }
        guard let spool else { return }
        if let spoolError { throw SpoolError(code: spoolError) }
        guard fflush(spool) == 0 else { throw SpoolError(code: errno) }
        rewind(spool)
        // Chunks of whole lines, so that a reader may decode each one as text by itself.
        var chunk = [UInt8](repeating: 0, count: Self.capacity)
        var kept = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress! + kept, 1, $0.count - kept, spool) }
            let filled = kept + count
            let atEnd = filled < chunk.count
            if atEnd, ferror(spool) != 0 { throw SpoolError(code: errno) }
            let cut = atEnd ? filled : (chunk[..<filled].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)
            if cut == 0, !atEnd {
                // A line longer than the chunk: room for the whole of it.
                chunk += [UInt8](repeating: 0, count: chunk.count)
                kept = filled
                continue
            }
            if cut > 0 { chunk.withUnsafeBytes { output(UnsafeRawBufferPointer(rebasing: $0[..<cut])) } }
            if atEnd { break }
            kept = filled - cut
            if kept > 0 { chunk.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + cut, kept) } }
        }
    }

    // MARK: Writing lines

    /// One event, as ``FlowEvent/line`` writes it.
    package func append(_ record: FlowRecord) {
        buffer.begin(time: record.time, actor: record.event.actor, name: record.event.name)
        for argument in record.arguments {
            switch argument.value {
            case .text(let text): buffer.argument(argument.key.rawValue, text)
            case .bytes(let bytes): buffer.argument(argument.key.rawValue, hex: bytes)
            case .error: buffer.argument(argument.key.rawValue, argument.value.description)
            }
        }
        end()
    }

    /// `peripheral didUpdateValueFor peripheral=… characteristic=… value=… error=nil`, the
    /// line of a notification: the hot path of a long replay, in one go.
    package func valueUpdate(time: Double, peripheral: String, characteristic: String, value: some ContiguousBytes) {
        buffer.writeTime(time)
        buffer.put(" peripheral didUpdateValueFor peripheral=" as StaticString)
        buffer.put(peripheral)
        buffer.put(" characteristic=" as StaticString)
        buffer.put(characteristic)
        buffer.argument("value", hex: value)
        buffer.put(" error=nil" as StaticString)
        end()
    }

    /// The time, the actor and the name of a line.
    package func begin(time: Double, actor: String, name: String) { buffer.begin(time: time, actor: actor, name: name) }

    /// ` key=value`.
    package func argument(_ key: String, _ value: String) { buffer.argument(key, value) }

    /// ` key=` and the bytes in lowercase hex (`empty` for none), as `hex(_:)` gives them.
    package func argument(_ key: String, hex bytes: some ContiguousBytes) { buffer.argument(key, hex: bytes) }

    /// Ends the line.
    package func end() {
        buffer.put(0x0A)
        lineCount += 1
        if buffer.count >= Self.capacity { flush() }
    }
}

/// Bytes written through a pointer (a line costs no capacity checks of an array): `count` bytes
/// of `storage`, which grows for a line longer than it.
private struct LineBuffer {
    var storage: UnsafeMutablePointer<UInt8>
    var allocated: Int
    var count = 0

    init(capacity: Int) {
        allocated = capacity
        storage = .allocate(capacity: capacity)
    }

    mutating func begin(time: Double, actor: String, name: String) {
        writeTime(time)
        put(0x20)
        put(actor)
        put(0x20)
        put(name)
    }

    mutating func argument(_ key: String, _ value: String) {
        put(0x20)
        put(key)
        put(0x3D)
        put(value)
    }

    mutating func argument(_ key: String, hex bytes: some ContiguousBytes) {
        put(0x20)
        put(key)
        put(0x3D)
        bytes.withUnsafeBytes { source in
            guard !source.isEmpty else { return put("empty") }
            reserve(2 * source.count)
            var out = storage + count
            for byte in source {
                out[0] = Self.hexDigit(byte >> 4)
                out[1] = Self.hexDigit(byte & 0x0F)
                out += 2
            }
            count += 2 * source.count
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > allocated else { return }
        let grown = max(2 * allocated, count + extra)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        (storage, allocated) = (larger, grown)
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    mutating func put(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        (storage + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard !bytes.isEmpty else { return }
            reserve(bytes.count)
            (storage + count).update(from: bytes.baseAddress!, count: bytes.count)
            count += bytes.count
        }
    }

    /// `+` (for a time that is not negative) and ``formatSeconds(_:)``'s six decimals, without
    /// making a String.
    mutating func writeTime(_ time: Double) {
        let negative = time.sign == .minus && time != 0
        let magnitude = time.magnitude
        guard magnitude < 9e12 else { return put((negative ? "" : "+") + formatSeconds(time)) }
        let micros = UInt64((magnitude * 1_000_000).rounded())
        // At most 13 digits before the point, 6 after.
        reserve(24)
        put(negative ? 0x2D : 0x2B)
        var whole = micros / 1_000_000
        var digits = 1
        while whole >= 10 {
            whole /= 10
            digits += 1
        }
        whole = micros / 1_000_000
        for index in stride(from: digits - 1, through: 0, by: -1) {
            storage[count + index] = 0x30 + UInt8(whole % 10)
            whole /= 10
        }
        count += digits
        storage[count] = 0x2E
        var fraction = micros % 1_000_000
        for index in stride(from: 6, through: 1, by: -1) {
            storage[count + index] = 0x30 + UInt8(fraction % 10)
            fraction /= 10
        }
        count += 7
    }
}
