/// A decoding failure, with enough context to find the bad byte.
///
/// `offset` counts from the start of the bytes the failing layer was given (for file layers:
/// from the start of the file). Readers of capture files fill in `file` and `recordIndex` so a
/// message can point a person at the exact record.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The layer whose input was bad.
    public enum Layer: String, Hashable, Sendable {
        case file, btsnoop, pcap, packetLogger, hci, acl, l2cap, att, smp
    }

    public var layer: Layer
    /// Byte offset of the fault, within the layer's input.
    public var offset: Int
    /// What the decoder expected to find there.
    public var expected: String
    /// 0-based index of the capture record, where known.
    public var recordIndex: Int?
    /// The file being read, where known.
    public var file: String?

    public init(
        layer: Layer, offset: Int, expected: String, recordIndex: Int? = nil, file: String? = nil
    ) {
        self.layer = layer
        self.offset = offset
        self.expected = expected
        self.recordIndex = recordIndex
        self.file = file
    }

    public var description: String {
        var text = ""
        if let file { text += "\(file): " }
        if let recordIndex { text += "record \(recordIndex): " }
        text += "\(layer.rawValue) at byte offset \(offset): expected \(expected)"
        return text
    }
}
