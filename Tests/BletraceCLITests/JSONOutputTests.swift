import Foundation
import TestSupport
import Testing

/// `lifecycle` and `errors` write their JSON one connection or error at a time, so that a long
/// capture's document is never whole in memory. What they write must still be, byte for byte,
/// what JSONEncoder writes for the whole document.
@Suite struct JSONOutputTests {
    /// Any JSON value, to read a document and write it again through JSONEncoder.
    enum Value: Codable, Equatable {
        case object([String: Value]), array([Value]), string(String), int(Int), double(Double), bool(Bool), null

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Value].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Value].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .object(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .null: try container.encodeNil()
            }
        }
    }

    /// The document as JSONEncoder writes it whole, with the settings bletrace uses.
    func encodedWhole(_ text: String) throws -> String {
        let value = try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    @Test(arguments: ["reconnect-supervision-timeout.btsnoop", "att-errors.btsnoop", "scan.btsnoop"])
    func lifecycleIsWhatJSONEncoderWritesWhole(_ capture: String) throws {
        let result = try bletrace("lifecycle", Fixtures.capture(capture), "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout == (try encodedWhole(result.stdout)))
    }

    @Test(arguments: ["att-errors.btsnoop", "scan.btsnoop"])
    func errorsAreWhatJSONEncoderWritesWhole(_ capture: String) throws {
        let result = try bletrace("errors", Fixtures.capture(capture), "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout == (try encodedWhole(result.stdout)))
    }
}
