import ATT
import HCI
import Lifecycle
import LinkLayer
import Synchronization
import TraceFiles
import Wire

/// Prints every field of a decoded value, one per line, for `bletrace decode -v`.
///
/// Reflection walks the decoders' own types, so a field added to a decoder shows up here with no
/// change: byte views print as hex, wire codes as their names, lists element by element, and
/// advertising data as its AD structures. This is the verbose path for people, not the hot path.
enum FieldPrinter {
    static func lines(_ value: Any, label: String, indent: Int = 8) -> [String] {
        var output: [String] = []
        emit(value, label: label, indent: indent, into: &output)
        return output
    }

    private static func emit(_ value: Any, label: String, indent: Int, into output: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        let prefix = label.isEmpty ? pad : pad + label + ": "
        if let leaf = leaf(value) {
            output.append(prefix + leaf)
            return
        }
        if let data = value as? AdvertisingData {
            emitAdvertising(data, prefix: prefix, indent: indent, into: &output)
            return
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return }
            emit(wrapped, label: label, indent: indent, into: &output)
        case .enum:
            // A case with a payload: its name, then the payload's fields.
            guard let payload = mirror.children.first else {
                output.append(prefix + "\(value)")
                return
            }
            let name = payload.label ?? "\(value)"
            if let single = leaf(payload.value) {
                output.append(prefix + name + ": " + single)
            } else {
                output.append(prefix + name)
                emitChildren(of: payload.value, indent: indent + 2, into: &output)
            }
        case .collection, .set:
            output.append(prefix + "\(mirror.children.count) entries")
            for (index, child) in mirror.children.enumerated() {
                emit(child.value, label: "[\(index)]", indent: indent + 2, into: &output)
            }
        default:
            if let sequence = value as? any Sequence, !(value is String) {
                let elements = anyElements(sequence)
                output.append(prefix + "\(elements.count) entries")
                for (index, element) in elements.enumerated() {
                    emit(element, label: "[\(index)]", indent: indent + 2, into: &output)
                }
                return
            }
            guard mirror.children.count > 0 else {
                output.append(prefix + "\(value)")
                return
            }
            if !label.isEmpty { output.append(prefix.trimmingTrailingSpace) }
            emitChildren(of: value, indent: label.isEmpty ? indent : indent + 2, into: &output)
        }
    }

    private static func emitChildren(of value: Any, indent: Int, into output: inout [String]) {
        let mirror = Mirror(reflecting: value)
        let isRecord = mirror.displayStyle == .tuple || mirror.displayStyle == .struct || mirror.displayStyle == .class
        guard isRecord, mirror.children.count > 0, leaf(value) == nil, !(value is any Sequence) else {
            emit(value, label: "", indent: indent, into: &output)
            return
        }
        for child in mirror.children {
            // Unlabelled payload elements (`.0`) print without a label.
            let label = child.label.map { $0.hasPrefix(".") ? "" : readable($0) } ?? ""
            emit(child.value, label: label, indent: indent, into: &output)
        }
    }

    /// Values printed on one line.
    private static func leaf(_ value: Any) -> String? {
        switch value {
        case let bytes as UnsafeRawBufferPointer:
            guard !bytes.isEmpty else { return "(empty)" }
            let printable = bytes.count >= 3 && bytes.allSatisfy { (0x20..<0x7F).contains($0) }
            return bytes.hexString + (printable ? " \"\(String(decoding: bytes, as: UTF8.self))\"" : "")
        case let bool as Bool: return "\(bool)"
        case let text as String: return "\"\(text)\""
        case let number as any FixedWidthInteger: return integerText(number)
        case let address as BluetoothAddress: return "\(address)"
        case let uuid as BluetoothUUID: return "\(uuid)" + (GATTNames.name(for: uuid).map { " (\($0))" } ?? "")
        case let field as ATTUUIDField: return leaf(field.uuid)
        case let timestamp as Timestamp: return "\(timestamp.microseconds) µs"
        default:
            // Open wire-code structs (HCIStatus, ATTOpcode, …): a raw value and a description.
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .struct, mirror.children.count == 1,
                mirror.children.first?.label == "rawValue",
                let raw = mirror.children.first?.value
            else { return nil }
            if let described = value as? any CustomStringConvertible { return "\(described)" }
            // An option set: its bits.
            return (raw as? any FixedWidthInteger).map { integerText($0) }
        }
    }

    private static func emitAdvertising(
        _ data: AdvertisingData, prefix: String, indent: Int, into output: inout [String]
    ) {
        do {
            let structures = try data.structures()
            output.append(prefix + "advertising data")
            for structure in structures {
                emit(structure.value, label: "", indent: indent + 2, into: &output)
            }
        } catch {
            output.append(prefix + "not AD structures (\(error.expected) at byte \(error.offset))")
        }
    }

    private static func anyElements<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }

    /// Decimal, and hex too for unsigned values above 9.
    private static func integerText<T: FixedWidthInteger>(_ number: T) -> String {
        T.isSigned || number <= 9 ? "\(number)" : "\(number) (\(hex(number, digits: 1)))"
    }

    /// `connectionIntervalMin` → `connection interval min`.
    /// An acronym stays together: `clientMTU` → `client MTU`, `peerIRK` → `peer IRK`.
    private static func readable(_ label: String) -> String {
        // Labels are the decoders' field names, a few hundred at most: each is worked out once,
        // under a lock, as a library's callers may print from several threads.
        if let known = readableLabels.withLock({ $0[label] }) { return known }
        let words = spaced(label)
        readableLabels.withLock { $0[label] = words }
        return words
    }

    private static let readableLabels = Mutex<[String: String]>([:])

    private static func spaced(_ label: String) -> String {
        let characters = Array(label)
        var words = ""
        for (index, character) in characters.enumerated() {
            let previousUpper = index > 0 && characters[index - 1].isUppercase
            let nextLower = index + 1 < characters.count && characters[index + 1].isLowercase
            if character.isUppercase, index > 0, !previousUpper || nextLower { words.append(" ") }
            let inAcronym = character.isUppercase && (previousUpper || !nextLower)
            words.append(inAcronym || !character.isUppercase ? character : Character(character.lowercased()))
        }
        return words
    }
}

extension String {
    fileprivate var trimmingTrailingSpace: String {
        var text = self
        while text.last == " " || text.last == ":" { text.removeLast() }
        return text
    }
}
