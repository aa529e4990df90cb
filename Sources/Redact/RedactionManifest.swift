import TraceFiles

/// The manifest `bletrace redact --manifest FILE` writes (Formats/redact.md, "The manifest"):
/// what was replaced and removed, how many of each, what was dropped, and with `--keep-mapping`
/// the address mapping, for the capture's owner.
public struct RedactionManifest: Encodable {
    public var version = 1
    public var input: String
    public var output: String
    public var format: String
    public var records: Records
    public var options: Options
    public var addresses: Addresses
    /// Secret fields zeroed, by kind (``SecretKind``'s raw values).
    public var removed: [String: Int]
    /// Different non-zero values of each kind the input held.
    public var found: [String: Int]
    public var identityAddresses: Int
    public var namesReplaced: Int
    public var valuesZeroed: Int
    public var searchedOnly: Int
    public var crc: CRC
    public var dropped: Dropped
    /// Only with `--keep-mapping`.
    public var mapping: [Pair]?

    /// Records read, written and dropped.
    public struct Records: Encodable {
        public var read: Int
        public var written: Int
        public var dropped: Int
    }

    /// The options the capture was redacted with.
    public struct Options: Encodable {
        public var names: Bool
        public var values: Bool
        public var allow: [String]
        /// Whether the replacements came from `--seed` (the seed itself is not written).
        public var seeded: Bool
    }

    /// Bluetooth addresses: how many different ones were replaced, and the fields replaced or zeroed.
    public struct Addresses: Encodable {
        /// Different addresses replaced.
        public var different: Int
        public var fieldsReplaced: Int
        public var fieldsZeroed: Int

        enum CodingKeys: String, CodingKey {
            case different, fieldsReplaced = "fields_replaced", fieldsZeroed = "fields_zeroed"
        }
    }

    /// Over-the-air packets' CRCs: written again over the redacted bytes, or left as they were.
    public struct CRC: Encodable {
        public var recomputed: Int
        public var left: Int
    }

    /// Records left out of the output, each with why.
    public struct Dropped: Encodable {
        public var byReason: [String: Int]
        public var first: [Record]

        /// One record left out: its index, its byte offset in the input and the reason.
        public struct Record: Encodable {
            public var record: Int
            public var offset: Int64
            public var reason: String
        }

        enum CodingKeys: String, CodingKey { case byReason = "by_reason", first }
    }

    /// One address and what replaced it (`--keep-mapping`).
    public struct Pair: Encodable {
        public var original: String
        public var replacement: String
    }

    enum CodingKeys: String, CodingKey {
        case version, input, output, format, records, options, addresses, removed, found
        case identityAddresses = "identity_addresses", namesReplaced = "names_replaced", valuesZeroed = "values_zeroed"
        case searchedOnly = "searched_only", crc, dropped, mapping
    }

    public init(
        input: String, output: String, format: String, recordsRead: Int, recordsWritten: Int, options: RedactionOptions,
        tally: RedactionTally, addresses map: AddressMap, mapping: Bool
    ) {
        (self.input, self.output, self.format) = (input, output, format)
        records = Records(read: recordsRead, written: recordsWritten, dropped: tally.droppedCount)
        self.options = Options(
            names: options.names, values: options.values, allow: options.allow.map(\.description).sorted(),
            seeded: options.seed != nil)
        addresses = Addresses(
            different: map.count, fieldsReplaced: tally.addressesReplaced, fieldsZeroed: tally.addressesZeroed)
        removed = Dictionary(uniqueKeysWithValues: tally.removed.map { ($0.key.rawValue, $0.value) })
        found = Dictionary(uniqueKeysWithValues: tally.found.map { ($0.key.rawValue, $0.value) })
        identityAddresses = tally.identityAddresses
        namesReplaced = tally.namesReplaced
        valuesZeroed = tally.valuesZeroed
        searchedOnly = tally.searchedOnly
        crc = CRC(recomputed: tally.crcRecomputed, left: tally.crcLeft)
        dropped = Dropped(
            byReason: tally.dropped,
            first: tally.firstDropped.map { Dropped.Record(record: $0.record, offset: $0.offset, reason: $0.reason) })
        self.mapping =
            mapping ? map.pairs.map { Pair(original: "\($0.original)", replacement: "\($0.replacement)") } : nil
    }
}

/// What `info` and `diagnose` say of the secrets a capture holds, in JSON: the `secrets` object.
public struct SecretsReport: Encodable, Sendable {
    /// Whether the capture holds keys or identity addresses.
    public var holds: Bool
    /// Different keys and secret values held, by kind (``SecretKind``'s raw values), those held.
    public var keys: [String: Int]
    public var identityAddresses: Int
    /// The sentence `info` and `diagnose` print; nil when there is nothing to say.
    public var advice: String?

    enum CodingKeys: String, CodingKey { case holds, keys, identityAddresses = "identity_addresses", advice }

    public init(_ tally: RedactionTally) {
        holds = tally.holdsSecrets
        keys = Dictionary(uniqueKeysWithValues: tally.found.map { ($0.key.rawValue, $0.value) })
        identityAddresses = tally.identityAddresses
        advice = tally.secretsSentence
    }
}

/// The secrets of a capture, counted by the redaction's own reading of it (so that `info`,
/// `diagnose` and `redact` count the same fields): feed it every record, read ``report``.
public struct SecretScanner {
    private let redactor: Redactor

    /// `airLinkType`: the link type of an over-the-air capture read as it is (not translated to HCI).
    public init(airLinkType: Int32? = nil) {
        redactor = Redactor(options: RedactionOptions(seed: 0), airLinkType: airLinkType, scouting: true)
    }

    public func add(_ record: CaptureRecord) { _ = redactor.redact(record) }

    public var tally: RedactionTally { redactor.tally }
    public var report: SecretsReport { SecretsReport(redactor.tally) }
}
