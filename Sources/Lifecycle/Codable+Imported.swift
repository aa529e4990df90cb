import ATT
import CoreBluetoothCodes
import HCI
import Wire

// Codable for the types of other modules that the reports hold, so that a report (a
// ``LifecycleReport``, ``TraceError``, ``GATTDatabase``, ``TraceAnalysis``) can be stored and
// read back. In one place, so that a module that adopts Codable itself replaces its lines here.
// Codes are numbers, addresses and UUIDs their usual text.

extension Timestamp: Codable {}  // microseconds since the Unix epoch
extension HCIStatus: Codable {}
extension ATTOpcode: Codable {}
extension Evidence: Codable {}

extension BluetoothAddress: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an address: \(text)"))
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(self)")
    }
}

extension BluetoothUUID: Codable {
    /// `180D`, `0000AAA1`, or the 36-character form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let digits = text.filter { $0 != "-" }
        switch digits.count {
        case 4, 8:
            guard let value = UInt32(digits, radix: 16) else { break }
            self.init(value)
            return
        case 32:
            guard let high = UInt64(digits.prefix(16), radix: 16), let low = UInt64(digits.suffix(16), radix: 16) else {
                break
            }
            self.init(high: high, low: low)
            return
        default:
            break
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(self)")
    }
}

extension CBError: Codable {
    /// Its code, a number (CoreBluetooth's `CBError.Code` raw value; unnamed codes too).
    public init(from decoder: any Decoder) throws {
        self.init(errorCode: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(errorCode)
    }
}

extension CBATTError: Codable {
    /// Its code, a number (CoreBluetooth's `CBATTError.Code` raw value; unnamed codes too).
    public init(from decoder: any Decoder) throws {
        self.init(errorCode: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(errorCode)
    }
}

extension ConnectionError: Codable {
    enum CodingKeys: String, CodingKey { case domain, code }

    /// Its domain and code: `{"domain": "CBErrorDomain", "code": 6}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(Int.self, forKey: .code)
        switch try container.decode(String.self, forKey: .domain) {
        case CBError.errorDomain: self = .cb(CBError(errorCode: code))
        case CBInternalError.errorDomain: self = .internal(CBInternalError(errorCode: code))
        case let other:
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a connection error's domain: \(other)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(errorCode, forKey: .code)
    }
}

extension Mapped: Codable where Value: Codable {
    enum CodingKeys: String, CodingKey { case value, evidence }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try container.decode(Value.self, forKey: .value),
            evidence: try container.decode(Evidence.self, forKey: .evidence))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(evidence, forKey: .evidence)
    }
}
