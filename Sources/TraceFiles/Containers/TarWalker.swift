import Wire

/// Walks the entries of a tar archive (POSIX ustar, pax and GNU tar, IEEE Std 1003.1-2017
/// "pax" and GNU tar's manual, "Basic Tar Format") read from a ``ByteStream``, front to back.
///
/// Each header is checked (its checksum, its octal or base-256 size) before it is used; names
/// come from the ustar prefix and name fields, a GNU long name entry (type `L`) or a pax
/// extended header's `path` (type `x`; `g`, global, is read and skipped); a pax `size` overrides
/// the header's. A long name or pax header larger than 1 MiB is refused, not read into memory.
struct TarWalker {
    struct Entry {
        var path: String
        var size: Int64
        /// Offset of the entry's header in the (decompressed) tar stream.
        var headerOffset: Int64
        var isRegularFile: Bool
    }

    static let maximumExtendedHeader: Int64 = 1 << 20

    let stream: ByteStream
    /// What a fault names as the container (the archive's path).
    var container: String { stream.path }

    /// Calls `visit` for each entry; `visit` reads the entry's data from the stream (exactly
    /// `size` bytes, through ``ByteStream/pass(_:what:to:)``) or returns false to have it skipped.
    func walk(_ visit: (Entry) throws -> Bool) throws {
        var longName: String?
        var paxPath: String?
        var paxSize: Int64?
        while true {
            let headerOffset = stream.position
            guard try stream.fill(512) >= 512 else {
                if stream.available == 0 { return }  // no end blocks: tolerated, as GNU tar does
                throw fault(at: headerOffset, "a 512-byte tar header; the archive ends after \(stream.available) bytes")
            }
            let header = stream.take(512) { Array($0) }
            if header.allSatisfy({ $0 == 0 }) { return }  // the end-of-archive blocks
            let checksum = try octal(header[148..<156], field: "checksum", at: headerOffset)
            let computed = header.indices.reduce(Int64(0)) { $0 + Int64((148..<156).contains($1) ? 0x20 : header[$1]) }
            guard checksum == computed else {
                throw fault(
                    at: headerOffset,
                    "a tar header whose checksum (\(checksum)) matches its bytes (\(computed)); this is not a tar header"
                )
            }
            var size = try number(header[124..<136], field: "size", at: headerOffset)
            let type = header[156]
            let magic = Array(header[257..<263])
            let isPOSIX = magic == Array("ustar\0".utf8)
            var name = Self.string(header[0..<100])
            if isPOSIX {
                let prefix = Self.string(header[345..<500])
                if !prefix.isEmpty { name = prefix + "/" + name }
            }
            switch type {
            case UInt8(ascii: "L"), UInt8(ascii: "x"), UInt8(ascii: "g"), UInt8(ascii: "K"):
                guard size <= Self.maximumExtendedHeader else {
                    throw fault(
                        at: headerOffset,
                        "an extended header of at most \(Self.maximumExtendedHeader) bytes; it declares \(size)")
                }
                var data: [UInt8] = []
                data.reserveCapacity(Int(size))
                try stream.pass(size, what: "the extended header at \(headerOffset)") { data += $0 }
                try skipPadding(size)
                if type == UInt8(ascii: "L") {
                    longName = Self.string(data[...])
                } else if type == UInt8(ascii: "x") {
                    let records = try paxRecords(data, at: headerOffset)
                    paxPath = records["path"] ?? paxPath
                    if let text = records["size"] {
                        guard let value = Int64(text), value >= 0 else {
                            throw fault(at: headerOffset, "a pax size of decimal digits; found \"\(text)\"")
                        }
                        paxSize = value
                    }
                }
                continue
            default: break
            }
            if let path = paxPath ?? longName { name = path }
            if let paxSize { size = paxSize }
            (longName, paxPath, paxSize) = (nil, nil, nil)
            let entry = Entry(
                path: name, size: size, headerOffset: headerOffset,
                isRegularFile: type == UInt8(ascii: "0") || type == 0 || type == UInt8(ascii: "7"))
            // Only regular files carry data; a hard link, directory or device has none to skip
            // (a size on them is ignored by tar too, except for regular-file-like types).
            let dataSize =
                entry.isRegularFile
                ? size
                : (type == UInt8(ascii: "1") || type == UInt8(ascii: "2") || type == UInt8(ascii: "5") ? 0 : size)
            if entry.isRegularFile, try visit(entry) {
                // `visit` read the data.
            } else {
                try stream.pass(dataSize, what: "the data of \(name)", to: nil)
            }
            try skipPadding(dataSize)
        }
    }

    private func skipPadding(_ size: Int64) throws {
        let padding = (512 - size % 512) % 512
        if padding > 0 { try stream.pass(padding, what: "the padding to a 512-byte block", to: nil) }
    }

    private func fault(at offset: Int64, _ expected: String) -> ContainerError {
        ContainerError(container: container, offset: offset, expected: expected + " (offset in the tar stream)")
    }

    /// An octal field (NUL- or space-terminated, spaces before allowed).
    private func octal(_ field: ArraySlice<UInt8>, field name: String, at offset: Int64) throws -> Int64 {
        var value: Int64 = 0
        var seen = false
        for byte in field {
            if byte == 0 || (byte == 0x20 && seen) { break }
            if byte == 0x20 { continue }
            guard (0x30...0x37).contains(byte), value < Int64.max >> 3 else {
                throw fault(at: offset, "an octal \(name) field in a tar header; found byte \(hex(byte, digits: 1))")
            }
            value = value << 3 | Int64(byte - 0x30)
            seen = true
        }
        return value
    }

    /// A numeric field: octal, or GNU's base-256 (first byte's high bit set) for large values.
    private func number(_ field: ArraySlice<UInt8>, field name: String, at offset: Int64) throws -> Int64 {
        guard let first = field.first, first & 0x80 != 0 else { return try octal(field, field: name, at: offset) }
        guard first == 0x80, field.dropFirst().prefix(field.count - 9).allSatisfy({ $0 == 0 }) else {
            throw fault(at: offset, "a base-256 \(name) that is positive and fits 63 bits")
        }
        var value: Int64 = 0
        for byte in field.suffix(8) {
            guard value <= Int64.max >> 8 else { throw fault(at: offset, "a base-256 \(name) that fits 63 bits") }
            value = value << 8 | Int64(byte)
        }
        return value
    }

    /// pax records: "LENGTH KEY=VALUE\n", LENGTH counting the whole record in decimal.
    private func paxRecords(_ data: [UInt8], at offset: Int64) throws -> [String: String] {
        var records: [String: String] = [:]
        var index = 0
        while index < data.count {
            guard let space = data[index...].firstIndex(of: 0x20),
                let length = Int(String(decoding: data[index..<space], as: UTF8.self)), length > 0,
                index + length <= data.count, data[index + length - 1] == 0x0A,
                let equals = data[(space + 1)..<(index + length)].firstIndex(of: UInt8(ascii: "="))
            else {
                if data[index...].allSatisfy({ $0 == 0 }) { break }
                throw fault(
                    at: offset,
                    "pax records \"LENGTH KEY=VALUE\\n\" in the extended header; record at byte \(index) of it is malformed"
                )
            }
            let key = String(decoding: data[(space + 1)..<equals], as: UTF8.self)
            records[key] = String(decoding: data[(equals + 1)..<(index + length - 1)], as: UTF8.self)
            index += length
        }
        return records
    }

    /// A NUL-terminated string field.
    static func string(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}
