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
    }

    /// The temporary file could not be made or written.
    public struct SpoolError: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { "the flow's temporary file: \(String(cString: strerror(code)))" }
    }

    /// Sends what is buffered on.
    public func flush() {
        guard buffer.count > 0 else { return }
        let chunk = buffer.buffer
        if let sink {
            sink(chunk)
        } else if let spool, spoolError == nil, fwrite(chunk.baseAddress!, 1, chunk.count, spool) != chunk.count {
            spoolError = errno
        }
        buffer.removeAll()
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
        buffer.text(" peripheral didUpdateValueFor peripheral=")
        buffer.string(peripheral)
        buffer.text(" characteristic=")
        buffer.string(characteristic)
        buffer.argument("value", hex: value)
        buffer.text(" error=nil")
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
        buffer.byte(0x0A)
        lineCount += 1
        if buffer.count >= Self.capacity { flush() }
    }
}

/// A flow line's pieces, written into Wire's line buffer.
extension LineBuffer {
    fileprivate mutating func begin(time: Double, actor: String, name: String) {
        writeTime(time)
        byte(0x20)
        string(actor)
        byte(0x20)
        string(name)
    }

    fileprivate mutating func argument(_ key: String, _ value: String) {
        byte(0x20)
        string(key)
        byte(0x3D)
        string(value)
    }

    fileprivate mutating func argument(_ key: String, hex bytes: some ContiguousBytes) {
        byte(0x20)
        string(key)
        byte(0x3D)
        bytes.withUnsafeBytes { source in
            if source.isEmpty { text("empty") } else { hexBytes(source) }
        }
    }

    /// `+` (for a time that is not negative) and ``Wording.sixDecimals(_:)``'s six decimals, without
    /// making a String.
    fileprivate mutating func writeTime(_ time: Double) {
        let negative = time.sign == .minus && time != 0
        let magnitude = time.magnitude
        guard magnitude < 9e12 else { return string((negative ? "" : "+") + Wording.sixDecimals(time)) }
        let micros = UInt64((magnitude * 1_000_000).rounded())
        byte(negative ? 0x2D : 0x2B)
        decimal(micros / 1_000_000)
        byte(0x2E)
        sixDigits(UInt32(micros % 1_000_000))
    }
}
