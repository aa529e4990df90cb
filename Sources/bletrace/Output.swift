import Foundation
import Wire

/// Writing to standard output and standard error, buffered, for people and for tools.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    /// Where output goes: standard output, or the file of `-o` (OutputOptions).
    nonisolated(unsafe) static var sink: FileHandle = .standardOutput

    static func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Text with no line end after it.
    static func text(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        sink.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// A message for a person, on standard error (after flushing what came before it).
    static func error(_ text: String) {
        flush()
        FileHandle.standardError.write(Data(("bletrace: " + text + "\n").utf8))
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
            // The margin goes before every line but the empty ones (as in an empty array).
            var lineStart = true
            for byte in try encoder.encode(element) {
                if lineStart, byte != 0x0A { buffer.append(contentsOf: margin) }
                buffer.append(byte)
                lineStart = byte == 0x0A
            }
            if buffer.count >= 1 << 16 { flush() }
        }
        buffer.append(contentsOf: "\n".utf8)
        buffer.append(contentsOf: margin.dropLast(2))
        buffer.append(contentsOf: "]".utf8)
    }

    private static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encoded bytes, through the buffer when they are few, else directly after it (no copy).
    private static func write(_ bytes: Data) {
        if bytes.count < 1 << 16 {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 16 { flush() }
        } else {
            flush()
            sink.write(bytes)
        }
    }
}

/// ISO 8601 in UTC with microseconds: `2026-11-22T03:10:00.123456Z`.
func isoTime(_ timestamp: Timestamp) -> String {
    let seconds = timestamp.microseconds.quotientAndRemainderFloored(dividingBy: 1_000_000)
    let date = Date(timeIntervalSince1970: TimeInterval(seconds.quotient))
    let base = date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon))
    let fraction = String(seconds.remainder)
    return base + "." + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
}

/// Seconds since `origin`, six decimals, with a sign: `+1.250000`.
func relativeTime(_ timestamp: Timestamp, since origin: Timestamp) -> String {
    let micros = timestamp.microseconds - origin.microseconds
    let sign = micros < 0 ? "-" : "+"
    let magnitude = micros.magnitude
    let fraction = String(magnitude % 1_000_000)
    return sign + "\(magnitude / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
}

func hex(_ value: some BinaryInteger, digits: Int) -> String {
    let text = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}

extension Int64 {
    func quotientAndRemainderFloored(dividingBy divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

/// A JSON value that is written as `null` when absent, where a contract keeps the key (a nil
/// Optional would drop it).
enum NullOr<Value: Encodable>: Encodable {
    case null
    case value(Value)

    init(_ value: Value?) { self = value.map(NullOr.value) ?? .null }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}
