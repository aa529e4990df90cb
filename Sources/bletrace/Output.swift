import Foundation
import Wire

/// Writing to standard output and standard error, buffered, for people and for tools.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    static func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// A message for a person, on standard error (after flushing what came before it).
    static func error(_ text: String) {
        flush()
        FileHandle.standardError.write(Data(("bletrace: " + text + "\n").utf8))
    }

    /// One JSON document: compact on one line (as `decode --format jsonl` writes one a record),
    /// or pretty. A large one (a whole capture's lifecycles or errors can be tens of megabytes)
    /// is written as encoded, without copies.
    static func json(_ value: some Encodable, pretty: Bool = false) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        var document = try encoder.encode(value)
        document.append(0x0A)
        if document.count < 1 << 16 {
            buffer.append(contentsOf: document)
            if buffer.count >= 1 << 16 { flush() }
        } else {
            flush()
            FileHandle.standardOutput.write(document)
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
