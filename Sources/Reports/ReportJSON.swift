import Foundation

/// The JSON documents of bletrace (Formats/json.md): the version they carry and the encoder that
/// writes them, so a library user's documents are byte for byte those of the command-line tool.
public enum ReportJSON {
    /// The version of the JSON documents: every document, and every JSONL line, carries it as
    /// `"version"`. 3: every number 1-based but `index`, every time key with its unit, every
    /// fractional value rounded (Formats/json.md says what changed from 2).
    public static let version = 3

    /// The encoder of the documents: keys sorted, slashes unescaped; `pretty` for the indented
    /// form (`--format json`), else one line (`--format jsonl`).
    public static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A document as UTF-8 JSON text, as ``encoder(pretty:)`` writes it.
    public static func encode(_ document: some Encodable, pretty: Bool) throws -> Data {
        try encoder(pretty: pretty).encode(document)
    }
}

// MARK: Units

extension ReportJSON {
    /// Milliseconds to the microsecond (three decimals at most), for a `_ms` key: a whole count
    /// of microseconds over a thousand is the nearest double to its three-decimal value, so it
    /// prints as that (1899.944, never 1899.9440000000002).
    public static func milliseconds(microseconds: Int64) -> Double { Double(microseconds) / 1000 }

    /// Milliseconds given as a double, rounded to the microsecond (three decimals).
    public static func milliseconds(_ value: Double) -> Double { rounded(value, perUnit: 1000) }

    /// Seconds given as a double, rounded to the microsecond (six decimals), for a `_s` key.
    public static func seconds(_ value: Double) -> Double { rounded(value, perUnit: 1_000_000) }

    /// A value under `key`, rounded to the microsecond of the unit its name ends with (`_ms`:
    /// three decimals; `_us`: none; `_s` and anything else, a count per second included: six),
    /// for documents whose keys are chosen at run time (a finding's `values`).
    public static func rounded(_ value: Double, unitOf key: String) -> Double {
        let words = key.split(separator: "_")
        if words.contains("ms") { return milliseconds(value) }
        if words.contains("us") { return rounded(value, perUnit: 1) }
        return seconds(value)
    }

    /// `value` to the nearest 1/`perUnit`, as the double nearest that decimal (a value too large to
    /// scale stays as it is: past 2^53 microseconds every double is whole anyway).
    private static func rounded(_ value: Double, perUnit: Double) -> Double {
        let scaled = (value * perUnit).rounded()
        guard scaled.isFinite, scaled.magnitude < 9_007_199_254_740_992 else { return value }
        return scaled / perUnit
    }
}

/// The version of the JSON documents (``ReportJSON/version``), under the name the documents'
/// `version` members default to.
package let jsonVersion = ReportJSON.version

/// A JSON value that is written as `null` when absent, where a contract keeps the key (a nil
/// Optional would drop it).
enum NullOr<Value: Encodable>: Encodable {
    /// Written as `null`.
    case null
    /// Written as the value.
    case value(Value)

    /// `.null` for nil, else the value.
    init(_ value: Value?) { self = value.map(NullOr.value) ?? .null }

    /// Writes `null` or the value.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}
