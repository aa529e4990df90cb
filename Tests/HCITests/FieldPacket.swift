import HCI
import TestSupport
import Testing
import Wire

/// How a layer frames a PDU: the header fields before the parameters, and which of them (if
/// any) is the parameter length, so that a test can shorten the parameters and keep the packet
/// consistent.
enum Framing: Sendable {
    /// HCI command: opcode (2 bytes), parameter total length (1 byte).
    case command
    /// HCI event: event code (1 byte), parameter total length (1 byte).
    case event
    /// L2CAP signaling command: code, identifier, data length (2 bytes, little-endian).
    case signaling
    /// No length field: the PDU is as long as its frame (SMP: the code, then the parameters).
    case bare

    /// Rewrites the header's length field to `length`.
    func header(_ header: [UInt8], length: Int) -> [UInt8] {
        var header = header
        switch self {
        case .command: header[2] = UInt8(length)
        case .event: header[1] = UInt8(length)
        case .signaling:
            header[2] = UInt8(length & 0xFF)
            header[3] = UInt8(length >> 8)
        case .bare: break
        }
        return header
    }

    func declaredLength(_ header: [UInt8]) -> Int? {
        switch self {
        case .command: Int(header[2])
        case .event: Int(header[1])
        case .signaling: Int(header[2]) | Int(header[3]) << 8
        case .bare: nil
        }
    }
}

/// A PDU written by hand from the specification, one field a string (so each carries its own
/// comment), and what it must decode to.
///
/// Every field in `fields` is one field of the specification's layout, in order: a decoder that
/// checks each field before reading it fails, on a shorter packet, at the start of the first
/// field that is not wholly there. `endsAfter` lists the numbers of leading fields after which
/// the PDU may legally end (a variable tail the specification allows).
struct FieldPacket<Expected: Equatable & Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var framing: Framing
    var header: [String]
    var fields: [String]
    var endsAfter: Set<Int> = []
    var expected: Expected

    var testDescription: String { name }

    var headerBytes: [UInt8] { packet(header) }
    var parameterBytes: [UInt8] { fields.isEmpty ? [] : packet(fields) }
    var bytes: [UInt8] { headerBytes + parameterBytes }
    var headerSizes: [Int] { header.map { packet($0).count } }
    var fieldSizes: [Int] { fields.map { packet($0).count } }

    /// The same PDU with only the first `length` parameter bytes, its length field adjusted.
    func shortened(to length: Int) -> [UInt8] {
        framing.header(headerBytes, length: length) + parameterBytes.prefix(length)
    }

    /// Where (within the parameters) the first field not wholly within `length` bytes starts,
    /// or nil when `length` ends the PDU after a number of whole fields listed in `endsAfter`.
    func firstMissingField(within length: Int) -> Int? {
        var start = 0
        for (index, size) in fieldSizes.enumerated() {
            if start == length, endsAfter.contains(index) { return nil }
            if start + size > length { return start }
            start += size
        }
        return nil
    }

    /// Where a decoder must fail on the first `count` bytes of the packet as written (its length
    /// field unchanged): at the first header field cut short, else where the declared parameters
    /// should begin; for a PDU with no length field, at the first missing parameter field.
    func rawPrefixFailure(_ count: Int) -> Int? {
        var start = 0
        for size in headerSizes {
            if start + size > count { return start }
            start += size
        }
        if case .bare = framing {
            return firstMissingField(within: count - start).map { start + $0 }
        }
        return start
    }
}

/// The checks every codec table gets, for any decoder of bytes into a comparable summary.
enum TableChecks {
    static func declaredLengthMatches<E>(_ row: FieldPacket<E>) {
        if let declared = row.framing.declaredLength(row.headerBytes) {
            #expect(declared == row.parameterBytes.count, "hand-written length field")
        }
    }

    static func decodes<E>(_ row: FieldPacket<E>, _ decode: ([UInt8]) throws -> E) throws {
        #expect(try decode(row.bytes) == row.expected)
    }

    /// Every prefix of the packet as written (length field unchanged) throws, at the offset
    /// of the missing field.
    static func everyRawPrefixThrows<E>(
        _ row: FieldPacket<E>, layer: DecodeError.Layer, _ decode: ([UInt8]) throws -> E
    ) {
        let bytes = row.bytes
        for count in 0..<bytes.count {
            let prefix = Array(bytes.prefix(count))
            guard let offset = row.rawPrefixFailure(count) else {
                #expect(throws: Never.self, "prefix of \(count) bytes decodes") { _ = try decode(prefix) }
                continue
            }
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") { _ = try decode(prefix) }
            #expect(error?.layer == layer, "prefix of \(count) bytes")
            #expect(error?.offset == offset, "prefix of \(count) bytes: \(error.map { "\($0)" } ?? "")")
        }
    }

    /// Every consistent PDU whose parameters stop short (inside a field or between two) throws
    /// at the first missing field, counted from the packet's start; unless it stops where the
    /// specification lets it end.
    static func everyShortParameterListThrowsAtTheMissingField<E>(
        _ row: FieldPacket<E>, layer: DecodeError.Layer, _ decode: ([UInt8]) throws -> E
    ) {
        let headerLength = row.headerBytes.count
        for length in 0..<row.parameterBytes.count {
            let bytes = row.shortened(to: length)
            guard let missing = row.firstMissingField(within: length) else {
                #expect(throws: Never.self, "\(length) parameter bytes may end the PDU") { _ = try decode(bytes) }
                continue
            }
            let error = #expect(throws: DecodeError.self, "\(length) parameter bytes") { _ = try decode(bytes) }
            #expect(error?.layer == layer, "\(length) parameter bytes")
            #expect(
                error?.offset == headerLength + missing,
                "\(length) parameter bytes: \(error.map { "\($0)" } ?? "")")
        }
    }
}
