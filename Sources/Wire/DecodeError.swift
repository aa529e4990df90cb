/// A decoding failure, with enough context to find the bad byte.
///
/// `offset` counts from the start of the bytes the failing layer was given (for file layers:
/// from the start of the file). Readers of capture files fill in `file` and `recordIndex` so a
/// message can point a person at the exact record: the message names it as Wireshark's frame
/// number (`recordIndex` + 1), `trace.btsnoop: frame 4: btsnoop at byte offset 40: expected …`.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The layer whose input was bad.
    public enum Layer: String, Hashable, Sendable {
        case file, btsnoop, pcap, packetLogger, hci, acl, l2cap, att, smp
        /// An over-the-air capture's pseudo-header (nRF Sniffer, LE LL with PHDR).
        case snifferHeader = "sniffer header"
        /// A link-layer packet as sent over the air (access address, PDU, CRC).
        case linkLayer = "link layer"
    }

    /// The fields, kept behind one reference: a `DecodeError?` is then a single word, so the
    /// decoders that may throw one, and the decoded records that may carry one, cost no more on
    /// the hot path than a null pointer. Copied on write.
    private final class Storage: Sendable {
        let layer: Layer
        let offset: Int
        let expected: String
        let recordIndex: Int?
        let file: String?

        init(layer: Layer, offset: Int, expected: String, recordIndex: Int?, file: String?) {
            self.layer = layer
            self.offset = offset
            self.expected = expected
            self.recordIndex = recordIndex
            self.file = file
        }
    }

    private var storage: Storage

    public init(
        layer: Layer, offset: Int, expected: String, recordIndex: Int? = nil, file: String? = nil
    ) {
        storage = Storage(layer: layer, offset: offset, expected: expected, recordIndex: recordIndex, file: file)
    }

    /// Replaces one field, leaving the others (and any other copy of this error) as they were.
    private mutating func with(
        layer: Layer? = nil, offset: Int? = nil, expected: String? = nil, recordIndex: Int?? = nil,
        file: String?? = nil
    ) {
        storage = Storage(
            layer: layer ?? self.layer, offset: offset ?? self.offset, expected: expected ?? self.expected,
            recordIndex: recordIndex ?? self.recordIndex, file: file ?? self.file)
    }

    public var layer: Layer {
        get { storage.layer }
        set { with(layer: newValue) }
    }

    /// Byte offset of the fault, within the layer's input.
    public var offset: Int {
        get { storage.offset }
        set { with(offset: newValue) }
    }

    /// What the decoder expected to find there.
    public var expected: String {
        get { storage.expected }
        set { with(expected: newValue) }
    }

    /// 0-based index of the capture record, where known (the message says its frame, one more).
    public var recordIndex: Int? {
        get { storage.recordIndex }
        set { with(recordIndex: .some(newValue)) }
    }

    /// The file being read, where known.
    public var file: String? {
        get { storage.file }
        set { with(file: .some(newValue)) }
    }

    public static func == (lhs: DecodeError, rhs: DecodeError) -> Bool {
        lhs.layer == rhs.layer && lhs.offset == rhs.offset && lhs.expected == rhs.expected
            && lhs.recordIndex == rhs.recordIndex && lhs.file == rhs.file
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(layer)
        hasher.combine(offset)
        hasher.combine(expected)
        hasher.combine(recordIndex)
        hasher.combine(file)
    }

    public var description: String {
        var text = ""
        if let file { text += "\(file): " }
        // The record as Wireshark numbers it (its frame, 1-based), as every other output does.
        if let recordIndex { text += "frame \(recordIndex + 1): " }
        text += "\(layer.rawValue) at byte offset \(offset): expected \(expected)"
        return text
    }
}
