import Foundation
import Reports
import Wire

/// Writing to standard output (or the `-o` file) and standard error, buffered, for people and
/// for tools.
///
/// A write that fails (a full disk, a closed pipe, an I/O error) ends the command with one line
/// on standard error and exit code 2; a reader that went away (EPIPE, as with `| head`) ends it
/// quietly with the same code. An unfinished `-o` file is removed, leaving what was there.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    /// Where ``line(_:)`` and the JSON writers go: standard output, or an `-o` file.
    nonisolated(unsafe) private static var destination: Int32 = STDOUT_FILENO
    nonisolated(unsafe) private static var file: OutputFile?

    static func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Text with no line end after it.
    static func text(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    /// Writes what `lines` holds, after anything written before it, and empties it (keeping its
    /// capacity): the path of `decode`'s formatters (``DecodeLineFormatter`` and the others).
    static func write(_ lines: inout LineBuffer) {
        guard lines.count > 0 else { return }
        flush()
        writeAll(lines.buffer)
        lines.removeAll()
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Sends what follows to `path` instead of standard output (the `-o` option of a command
    /// reading `inputs`), under the rules of ``OutputFile``. Exit code 2 with a message when the
    /// file cannot be written; ``close()`` puts it in place. `-` is standard output itself.
    static func redirect(to path: String, inputs: [String]) throws {
        guard path != "-" else { return }
        do {
            let prepared = try OutputFile.prepare(path, inputs: inputs)
            let descriptor = try prepared.open()
            flush()
            (file, destination) = (prepared, descriptor)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
    }

    /// Flushes and, when the output is an `-o` file, closes it and puts it in place.
    static func close() throws {
        flush()
        guard let open = file else { return }
        file = nil
        let descriptor = destination
        destination = STDOUT_FILENO
        if Glibc.close(descriptor) != 0, errno != EINTR { fail(errno, open) }
        do { try open.commit() } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
    }

    /// Drops an unfinished `-o` file (a command that failed on bad input), leaving what was there.
    static func abandon() {
        buffer.removeAll()
        guard let open = file else { return }
        file = nil
        _ = Glibc.close(destination)
        destination = STDOUT_FILENO
        open.discard()
    }

    /// A message for a person, on standard error (after flushing what came before it).
    static func error(_ text: String) {
        flush()
        standardError("bletrace: " + text + "\n")
    }

    /// Text on standard error as it is; a failure to write there is ignored (there is nowhere
    /// left to say it).
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeBytes { (raw) in
            var done = 0
            while done < raw.count {
                let written = Glibc.write(STDERR_FILENO, raw.baseAddress! + done, raw.count - done)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                done += written
            }
        }
        bytes.removeAll()
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(destination, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                fail(errno, file)
            }
            done += written
        }
    }

    /// Ends the command after a failed write: exit code 2, one line (none for a closed pipe on
    /// standard output), and an unfinished `-o` file removed.
    private static func fail(_ code: Int32, _ file: OutputFile?) -> Never {
        buffer.removeAll()
        let name = file.map(\.path) ?? "standard output"
        file?.discard()
        if !(code == EPIPE && file == nil) {
            standardError("bletrace: \(name): cannot write: \(String(cString: strerror(code)))\n")
        }
        exit(2)
    }

    /// One JSON document: compact on one line (as `decode --format jsonl` writes one a record),
    /// or pretty.
    static func json(_ value: some Encodable, pretty: Bool = false) throws {
        write(try encoder(pretty: pretty).encode(value))
        buffer.append(0x0A)
    }

    /// A pretty JSON object whose member `key` is an array written one element at a time: the
    /// bytes `json(_:pretty:)` writes for the object with the array in it, without the whole
    /// document in memory (JSONEncoder builds a whole document before writing any of it, at
    /// several times its size). `frame` is the object with that array empty.
    static func prettyJSON<Element: Encodable>(
        _ frame: some Encodable, streaming key: String, _ elements: [Element]
    ) throws {
        let document = try encoder(pretty: true).encode(frame)
        // The member, with its empty array, pretty-printed at the first level of indentation.
        let name = Data("\n  \"\(key)\" : ".utf8)
        let member = name + Data("[\n\n  ]".utf8)
        guard let range = document.range(of: member), document[range.upperBound...].range(of: member) == nil else {
            preconditionFailure("the frame has no empty \(key) member at its first level")
        }
        write(document[..<(range.lowerBound + name.count)])
        try writeArray(elements, indent: 2)
        write(document[range.upperBound...])
        buffer.append(0x0A)
    }

    /// A pretty JSON document that is an array, written one element at a time (the bytes
    /// `json(elements, pretty: true)` writes).
    static func prettyJSON<Element: Encodable>(array elements: [Element]) throws {
        try writeArray(elements, indent: 0)
        buffer.append(0x0A)
    }

    /// A pretty JSON array, one element at a time, indented by `indent` spaces as a member at that
    /// depth would be: JSON text has no raw line breaks inside strings, so each line of an element
    /// encoded on its own only needs the array's indentation in front of it.
    private static func writeArray<Element: Encodable>(_ elements: [Element], indent: Int) throws {
        let encoder = encoder(pretty: true)
        let margin = Array(repeating: UInt8(ascii: " "), count: indent + 2)
        buffer.append(contentsOf: "[\n".utf8)
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.append(contentsOf: ",\n".utf8) }
            // The margin goes before every line but the empty ones (as in an empty array); each
            // line is copied whole.
            let encoded = try encoder.encode(element)
            encoded.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Void in
                guard let base = bytes.baseAddress else { return }
                var start = 0
                while start < bytes.count {
                    var end = bytes.count
                    if let found = memchr(base + start, 0x0A, bytes.count - start) {
                        end = UnsafeRawPointer(found) - base + 1
                    }
                    if bytes[start] != 0x0A { buffer.append(contentsOf: margin) }
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    start = end
                }
            }
            if buffer.count >= 1 << 16 { flush() }
        }
        buffer.append(contentsOf: "\n".utf8)
        buffer.append(contentsOf: margin.dropLast(2))
        buffer.append(contentsOf: "]".utf8)
    }

    /// The encoder of every JSON output (also the reference `decode`'s fast JSON is checked against).
    static func encoder(pretty: Bool) -> JSONEncoder { ReportJSON.encoder(pretty: pretty) }

    /// True when the output is an `-o` file.
    static var writesToFile: Bool { file != nil }

    /// Bytes as they are (another process's output, in ``CaptureBatch``).
    static func bytes(_ bytes: Data) { write(bytes) }

    /// Encoded bytes, through the buffer when they are few, else directly after it (no copy).
    private static func write(_ bytes: Data) {
        if bytes.count < 1 << 16 {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 16 { flush() }
        } else {
            flush()
            bytes.withUnsafeBytes { writeAll($0) }
        }
    }
}

/// A JSON document with the capture it describes named in it: `"file"` beside the document's
/// own members (every JSON document bletrace writes names its file and its version).
struct FileNamed<Document: Encodable>: Encodable {
    var file: String
    var document: Document

    init(_ document: Document, file: String) {
        (self.document, self.file) = (document, file)
    }

    private enum Key: String, CodingKey { case file }

    func encode(to encoder: any Encoder) throws {
        // The document's members go into the same object (the encoder hands the same keyed
        // container to every request at one level).
        try document.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(file, forKey: .file)
    }
}
