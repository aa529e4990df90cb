#if canImport(Glibc)
import Glibc
#endif

/// Reads a flow file (Formats/flow.md) event by event, in bounded memory: a 64 KiB buffer and
/// one line, whatever the file's size. Lines end with LF, CRLF or CR. Standard input (`-`), a
/// FIFO or a device is read as a stream and kept in an unlinked temporary file, so that
/// ``event(at:)`` can read an event again for a report.
///
/// Bad input is a ``FlowError`` naming the file, line and column and what was expected: a line
/// that is not an event, text that is not UTF-8, a line longer than ``longestLine`` bytes (a file
/// of zeros is not read whole into memory), a `# bletrace flow N` header of an unknown version.
public final class FlowReader {
    /// The name used in messages (the path, or `-`).
    public let source: String
    /// The longest line read, in bytes.
    public static let longestLine = 65_536

    /// An event and where its line starts, to read it again.
    public struct Located {
        public var event: FlowEvent
        public var offset: Int64
    }

    /// A line of an expected flow (Formats/flow.md, "Expected flows written by people"): an
    /// event, or `...`, which matches any run of events.
    public enum Item {
        /// An event line.
        case event(Located)
        /// A `...` line, with its line number.
        case gap(line: Int)
    }

    /// When true, an event whose actor or name is not in ``FlowVocabulary`` is bad input (as
    /// `bletrace diff` reads flows). Off by default, for flows of made-up events in tests.
    public var checksVocabulary = false
    /// Set by a `# match: in-order` comment, read by ``nextItem()``: the expected events need
    /// only appear in order, anything between them.
    public private(set) var matchesInOrder = false

    private var descriptor: Int32
    /// Where ``event(at:)`` reads: the file itself, or the temporary copy of a stream.
    private var copy: Int32?
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0
    private var count = 0
    private var atEnd = false
    /// The file offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private var lineNumber = 0
    private var line: [UInt8] = []
    /// True when the last line ended with CR: an LF right after it belongs to it.
    private var afterCR = false
    /// True after ``rewind()``: the file (or the stream's copy) is read again at its offsets.
    private var rereading = false

    /// Opens `path` (`-` for standard input). A FIFO that no program writes to within
    /// `streamWait` is refused by name.
    public init(path: String, streamWait: Duration = .seconds(10)) throws(FlowError) {
        source = path
        func refuse(_ reason: String) -> FlowError { FlowError(source: path, line: 0, expected: "", reason: reason) }
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else {
                throw refuse(errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw refuse(String(cString: strerror(errno))) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
            close(descriptor)
            throw refuse("it is a directory, not a flow")
        }
        if path != "-" {
            if kind == S_IFIFO {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let (seconds, attoseconds) = streamWait.components
                let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
                var ready: Int32
                repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
                if ready == 0 {
                    close(descriptor)
                    throw refuse("it is a FIFO, and no program wrote to it within \(streamWait)")
                }
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        }
        if kind != S_IFREG {
            // A stream: what is read is kept in a temporary file, to read events again.
            var template = Array("/tmp/bletrace-flow-XXXXXX".utf8CString)
            let spool = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard spool >= 0 else {
                throw refuse("no temporary file for the stream: \(String(cString: strerror(errno)))")
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            copy = spool
        }
    }

    deinit {
        if source != "-" { close(descriptor) }
        if let copy { close(copy) }
    }

    /// The next event, or nil at the end of the file. Blank lines and comments are skipped.
    public func next() throws(FlowError) -> Located? {
        while let (start, text) = try nextLine() {
            switch try Flow.interpret(text, source: source, lineNumber: lineNumber) {
            case .blank, .comment: continue
            case .event(let event):
                if checksVocabulary {
                    try FlowVocabulary.check(event, line: text, source: source, lineNumber: lineNumber)
                }
                return Located(event: event, offset: start)
            }
        }
        return nil
    }

    /// The next event or `...` line of an expected flow, or nil at the end of the file; a
    /// `# match: in-order` comment sets ``matchesInOrder`` (another `# match:` value is bad
    /// input).
    public func nextItem() throws(FlowError) -> Item? {
        while let (start, text) = try nextLine() {
            switch try Self.interpretItem(
                text, source: source, lineNumber: lineNumber, checksVocabulary: checksVocabulary,
                inOrder: &matchesInOrder)
            {
            case nil: continue
            case .gap?: return .gap(line: lineNumber)
            case .event(let event)?: return .event(Located(event: event, offset: start))
            }
        }
        return nil
    }

    /// What a line of an expected flow is: an event, a `...` gap, or nothing to match (a blank
    /// line or a comment; `# match: in-order` and `# match: exact` set `inOrder`).
    enum ItemKind {
        case event(FlowEvent)
        case gap
    }

    static func interpretItem(
        _ text: String, source: String, lineNumber: Int, checksVocabulary: Bool, inOrder: inout Bool
    ) throws(FlowError) -> ItemKind? {
        if text.trimmingCharacters(in: " \t") == "..." { return .gap }
        switch try Flow.interpret(text, source: source, lineNumber: lineNumber) {
        case .blank: return nil
        case .comment(let comment):
            guard comment.hasPrefix("match:") else { return nil }
            let value = comment.dropFirst("match:".count).trimmingCharacters(in: " \t")
            switch value {
            case "in-order": inOrder = true
            case "exact": inOrder = false
            default:
                throw FlowError(
                    source: source, line: lineNumber,
                    expected: "`# match: in-order` or `# match: exact`, not `# \(comment)`")
            }
            return nil
        case .event(let event):
            if checksVocabulary { try FlowVocabulary.check(event, line: text, source: source, lineNumber: lineNumber) }
            return .event(event)
        }
    }

    /// What a first look at an expected flow finds, without reading its events (fast: bytes
    /// only; the events are read, and checked, when it is read again after ``rewind()``).
    public struct Outline: Hashable, Sendable {
        /// A `...` line, a `# match:` comment, a `*` ending a value, or a `@` timing assertion.
        public var isPattern = false
        /// Up to two distinct `peripheral=` values (not wildcards).
        public var peripherals: Set<String> = []
    }

    /// Reads the whole file once for its ``Outline``; ``rewind()`` then reads it from the start.
    public func outline() throws(FlowError) -> Outline {
        var outline = Outline()
        let key = Array(" peripheral=".utf8)
        while try nextRawLine() != nil {
            guard var first = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            var last = line.count - 1
            while line[last] == 0x20 || line[last] == 0x09 { last -= 1 }
            if line[first] == UInt8(ascii: "#") {
                first += 1
                while first <= last, line[first] == 0x20 || line[first] == 0x09 { first += 1 }
                if first <= last, line[first...last].starts(with: "match:".utf8) { outline.isPattern = true }
                continue
            }
            if last - first == 2, line[first...last].elementsEqual("...".utf8) {
                outline.isPattern = true
                continue
            }
            for index in first...last where line[index] == UInt8(ascii: "*") || line[index] == UInt8(ascii: "@") {
                let next = index + 1
                if line[index] == UInt8(ascii: "@")
                    ? (index == first || line[index - 1] == 0x20 || line[index - 1] == 0x09)
                    : (next > last || line[next] == 0x20 || line[next] == 0x09)
                {
                    outline.isPattern = true
                }
            }
            if outline.peripherals.count < 2, let at = Self.find(key, in: line) {
                var end = at
                while end < line.count, line[end] != 0x20, line[end] != 0x09 { end += 1 }
                let value = line[at..<end]
                if !value.contains(UInt8(ascii: "*")), let text = String(validating: value, as: UTF8.self) {
                    outline.peripherals.insert(text)
                }
            }
        }
        return outline
    }

    /// The index just after the first occurrence of `key` in `bytes`.
    private static func find(_ key: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= key.count, let first = key.first else { return nil }
        var index = 0
        while index <= bytes.count - key.count {
            if bytes[index] == first {
                var k = 1
                while k < key.count, bytes[index + k] == key[k] { k += 1 }
                if k == key.count { return index + k }
            }
            index += 1
        }
        return nil
    }

    /// Starts reading again from the first line (a stream is read again from its temporary
    /// copy), after the whole file was read: ``next()`` and ``nextItem()`` begin anew.
    public func rewind() throws(FlowError) {
        while try nextRawLine() != nil {}
        rereading = true
        bufferOffset = 0
        position = 0
        count = 0
        atEnd = false
        lineNumber = 0
        afterCR = false
        matchesInOrder = false
    }

    /// Every byte of the file (of a stream, its copy), as read.
    public func contents() throws(FlowError) -> [UInt8] {
        while try nextRawLine() != nil {}
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes {
                pread(copy ?? descriptor, $0.baseAddress!, $0.count, off_t(bytes.count))
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw FlowError(source: source, line: 0, expected: "", reason: String(cString: strerror(errno)))
            }
            if got == 0 { return bytes }
            bytes += chunk[..<got]
        }
    }

    /// The event whose line starts at `offset` (from ``next()``), read again; nil if it cannot
    /// be read.
    public func event(at offset: Int64) -> FlowEvent? {
        var bytes = [UInt8](repeating: 0, count: Self.longestLine + 2)
        let got = bytes.withUnsafeMutableBytes { pread(copy ?? descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
        guard got > 0 else { return nil }
        let end = bytes[..<got].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? got
        guard let text = String(validating: bytes[..<end], as: UTF8.self),
            case .event(var event)? = try? Flow.interpret(text, source: source, lineNumber: 0)
        else { return nil }
        // Its line number is not known here: none, rather than a line 0 that does not exist.
        event.lineNumber = nil
        return event
    }

    /// The next line (without its end) and the offset where it starts.
    private func nextLine() throws(FlowError) -> (Int64, String)? {
        guard let start = try nextRawLine() else { return nil }
        return (start, try text())
    }

    /// Reads the next line's bytes into `line` and returns the offset where it starts.
    private func nextRawLine() throws(FlowError) -> Int64? {
        line.removeAll(keepingCapacity: true)
        var start: Int64?
        while true {
            if position == count {
                if atEnd { break }
                try refill()
                if position == count { break }
            }
            if afterCR {
                afterCR = false
                if buffer[position] == 0x0A {
                    position += 1
                    continue
                }
            }
            if start == nil { start = bufferOffset + Int64(position) }
            let rest = buffer[position..<count]
            if let end = rest.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                try append(buffer[position..<end])
                afterCR = buffer[end] == 0x0D
                position = end + 1
                lineNumber += 1
                return start!
            }
            try append(rest)
            position = count
        }
        guard let start else { return nil }
        lineNumber += 1
        return start
    }

    private func append(_ bytes: ArraySlice<UInt8>) throws(FlowError) {
        guard line.count + bytes.count <= Self.longestLine else {
            throw FlowError(
                source: source, line: lineNumber + 1, column: Self.longestLine + 1,
                expected: "a line of at most \(Self.longestLine) bytes (this is not a flow file)")
        }
        line.append(contentsOf: bytes)
    }

    private func text() throws(FlowError) -> String {
        guard let text = String(validating: line, as: UTF8.self) else {
            throw FlowError(source: source, line: lineNumber, expected: "UTF-8 text (this is not a flow file)")
        }
        return text
    }

    private func refill() throws(FlowError) {
        bufferOffset += Int64(count)
        position = 0
        count = 0
        while true {
            let got = buffer.withUnsafeMutableBytes {
                rereading
                    ? pread(copy ?? descriptor, $0.baseAddress!, $0.count, off_t(bufferOffset))
                    : read(descriptor, $0.baseAddress!, $0.count)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw FlowError(
                    source: source, line: lineNumber + 1, expected: "", reason: String(cString: strerror(errno)))
            }
            if got == 0 { atEnd = true }
            count = got
            break
        }
        if let copy, count > 0, !rereading {
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes {
                    pwrite(copy, $0.baseAddress! + written, count - written, off_t(bufferOffset) + off_t(written))
                }
                guard n > 0 else {
                    throw FlowError(
                        source: source, line: lineNumber + 1, expected: "",
                        reason: "cannot keep the stream in a temporary file: \(String(cString: strerror(errno)))")
                }
                written += n
            }
        }
    }
}
