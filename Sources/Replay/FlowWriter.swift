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
    private var buffer: [UInt8] = []
    /// Where full buffers go: the caller's sink, or the spool file.
    private let sink: ((UnsafeRawBufferPointer) -> Void)?
    private var spool: UnsafeMutablePointer<FILE>?
    /// A write to the spool failed (a full disk): its errno.
    private var spoolError: Int32?
    /// Each address's text, made once.
    private var addresses: [BluetoothAddress: [UInt8]] = [:]
    /// Event lines written so far.
    public private(set) var lineCount = 0

    private static let capacity = 1 << 16

    /// Sends the event lines, in chunks of whole lines, to `sink`.
    public init(lines sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        buffer.reserveCapacity(Self.capacity + 1024)
    }

    private init(spool: UnsafeMutablePointer<FILE>) {
        self.sink = nil
        self.spool = spool
        buffer.reserveCapacity(Self.capacity + 1024)
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
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { chunk in
            if let sink {
                sink(chunk)
            } else if let spool, spoolError == nil, fwrite(chunk.baseAddress!, 1, chunk.count, spool) != chunk.count {
                spoolError = errno
            }
        }
        buffer.removeAll(keepingCapacity: true)
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
            let cut = atEnd ? filled : (chunk[..<filled].lastIndex(of: 0x0A).map { $0 + 1 } ?? filled)
            if cut > 0 { chunk.withUnsafeBytes { output(UnsafeRawBufferPointer(rebasing: $0[..<cut])) } }
            if atEnd { break }
            kept = filled - cut
            if kept > 0 { chunk.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + cut, kept) } }
        }
    }

    // MARK: Writing lines

    /// One event, as ``FlowEvent/line``.
    func append(time: Double, actor: String, name: String, arguments: [FlowEvent.Argument]) {
        begin(time: time, actor: actor, name: name)
        for argument in arguments { self.argument(argument.key, argument.value) }
        end()
    }

    /// The time, the actor and the name of a line.
    func begin(time: Double, actor: String, name: String) {
        writeTime(time)
        buffer.append(0x20)
        buffer.append(contentsOf: actor.utf8)
        buffer.append(0x20)
        buffer.append(contentsOf: name.utf8)
    }

    /// ` key=value`.
    func argument(_ key: String, _ value: String) {
        buffer.append(0x20)
        buffer.append(contentsOf: key.utf8)
        buffer.append(0x3D)
        buffer.append(contentsOf: value.utf8)
    }

    /// ` key=` and the address as ``BluetoothAddress/description`` gives it.
    func argument(_ key: String, address: BluetoothAddress) {
        buffer.append(0x20)
        buffer.append(contentsOf: key.utf8)
        buffer.append(0x3D)
        if let text = addresses[address] {
            buffer.append(contentsOf: text)
        } else {
            let text = Array("\(address)".utf8)
            addresses[address] = text
            buffer.append(contentsOf: text)
        }
    }

    /// ` key=` and the bytes in lowercase hex (`empty` for none), as `hex(_:)` gives them.
    func argument(_ key: String, hex bytes: [UInt8]) {
        buffer.append(0x20)
        buffer.append(contentsOf: key.utf8)
        buffer.append(0x3D)
        guard !bytes.isEmpty else { return buffer.append(contentsOf: "empty".utf8) }
        for byte in bytes {
            buffer.append(Self.hexDigits[Int(byte >> 4)])
            buffer.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Ends the line.
    func end() {
        buffer.append(0x0A)
        lineCount += 1
        if buffer.count >= Self.capacity { flush() }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `+` (for a time that is not negative) and ``formatSeconds(_:)``'s six decimals, without
    /// making a String.
    private func writeTime(_ time: Double) {
        let negative = time.sign == .minus && time != 0
        let magnitude = time.magnitude
        guard magnitude < 9e12 else {
            return buffer.append(contentsOf: ((negative ? "" : "+") + formatSeconds(time)).utf8)
        }
        buffer.append(negative ? 0x2D : 0x2B)
        let micros = UInt64((magnitude * 1_000_000).rounded())
        appendDecimal(micros / 1_000_000)
        buffer.append(0x2E)
        var fraction = micros % 1_000_000
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            for index in stride(from: 5, through: 0, by: -1) {
                raw[index] = 0x30 + UInt8(fraction % 10)
                fraction /= 10
            }
            buffer.append(contentsOf: raw)
        }
    }

    private func appendDecimal(_ value: UInt64) {
        guard value >= 10 else { return buffer.append(0x30 + UInt8(value)) }
        appendDecimal(value / 10)
        buffer.append(0x30 + UInt8(value % 10))
    }
}
