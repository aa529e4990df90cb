import Foundation

/// The JSON documents of bletrace (Formats/json.md): the version they carry and the encoder that
/// writes them, so a library user's documents are byte for byte those of the command-line tool.
public enum ReportJSON {
    /// The version of the JSON documents: every document, and every JSONL line, carries it as
    /// `"version"`.
    public static let version = 2

    /// The encoder of the documents: keys sorted, slashes unescaped; `pretty` for the indented
    /// form (`--format json`), else one line (`--format jsonl`).
    public static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A document as UTF-8 JSON text, as ``encoder(pretty:)`` writes it.
    public static func encode(_ document: some Encodable, pretty: Bool) throws -> Data {
        try encoder(pretty: pretty).encode(document)
    }
}

/// The version of the JSON documents (``ReportJSON/version``), under the name the documents'
/// `version` members default to.
public let jsonVersion = ReportJSON.version

/// A JSON value that is written as `null` when absent, where a contract keeps the key (a nil
/// Optional would drop it).
public enum NullOr<Value: Encodable>: Encodable {
    /// Written as `null`.
    case null
    /// Written as the value.
    case value(Value)

    /// `.null` for nil, else the value.
    public init(_ value: Value?) { self = value.map(NullOr.value) ?? .null }

    /// Writes `null` or the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}
