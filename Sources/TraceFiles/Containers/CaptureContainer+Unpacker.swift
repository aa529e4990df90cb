import Foundation
import SystemPackage
import ZIPFoundation

extension CaptureContainer {
    /// Unpacks members into the container's temporary directory, each as `N-NAME` (never the
    /// member's own path, so that no `../` in an archive reaches outside it), under the limits.
    struct Unpacker {
        let container: String
        let directory: String
        let limits: ContainerLimits
        var members: [Member] = []
        var total: Int64 = 0
        private var created: [String] = []

        init(container: String, directory: String, limits: ContainerLimits) {
            self.container = container
            self.directory = directory
            self.limits = limits
        }

        func removeAll() { for path in created { unlink(path) } }

        /// A new file for member `name`, taking its bytes under the limits.
        private mutating func create(_ name: String) throws -> MemberFile {
            let target = directory + "/\(created.count)-" + CaptureContainer.baseName(name)
            do {
                let file = try FileDescriptor.open(
                    FilePath(target), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                    permissions: [.ownerReadWrite])
                created.append(target)
                return MemberFile(container: container, name: name, target: target, file: file, limits: limits, total: total)
            } catch {
                throw ContainerError(container: container, member: name, expected: "a temporary file to unpack into at \(target) (\(error))")
            }
        }

        /// Lists the member written to `out`, unless `sniff` and its first bytes are no capture's.
        private mutating func keep(_ out: MemberFile, sniff: Bool, summary: Bool = false) {
            if sniff, !CaptureContainer.looksLikeCapture(out.head) {
                unlink(out.target)
                return
            }
            total += out.written
            members.append(Member(path: out.name, extractedPath: out.target, size: out.written, isSummary: summary))
        }

        /// Copies `size` bytes (nil: all that is left) of `stream` to a new member file.
        mutating func unpack(name: String, from stream: ByteStream, size: Int64?, sniff: Bool) throws {
            let out = try create(name)
            defer { out.close() }
            if let size {
                try stream.pass(size, what: name) { piece in try piece.withUnsafeBytes { try out.write($0) } }
            } else {
                while try stream.fill(1) > 0 {
                    try stream.take(stream.available) { piece in try piece.withUnsafeBytes { try out.write($0) } }
                }
            }
            keep(out, sniff: sniff)
        }

        /// Every capture member of a zip, through ZIPFoundation; a bug report's summary when no
        /// snoop log file is in it.
        mutating func unpackZip() throws {
            let archive: Archive
            do {
                archive = try Archive(url: URL(fileURLWithPath: container), accessMode: .read)
            } catch {
                throw ContainerError(container: container, expected: "a zip archive whose central directory can be read (ZIPFoundation: \(error))")
            }
            var reports: [Entry] = []
            for entry in archive where entry.type == .file {
                let name = entry.path
                if CaptureContainer.isCandidate(name) {
                    try unpackZipEntry(entry, of: archive)
                } else if !name.contains("/"), name.hasPrefix("bugreport"), name.hasSuffix(".txt") {
                    reports.append(entry)
                }
            }
            guard members.isEmpty else { return }
            for report in reports {
                try summaryFromZipEntry(report, of: archive)
            }
        }

        private mutating func unpackZipEntry(_ entry: Entry, of archive: Archive) throws {
            let name = entry.path
            let out = try create(name)
            defer { out.close() }
            do {
                let checksum = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { data in
                    try data.withUnsafeBytes { try out.write($0) }
                }
                guard checksum == entry.checksum else {
                    throw ContainerError(
                        container: container, member: name,
                        expected: "data whose CRC-32 is the one the zip declares (0x\(String(entry.checksum, radix: 16))); it is 0x\(String(checksum, radix: 16)): the member is damaged")
                }
            } catch let error as ContainerError {
                throw error
            } catch {
                throw ContainerError(
                    container: container, member: name, offset: out.written,
                    expected: "intact compressed data (ZIPFoundation: \(error)); the fault is after \(out.written) unpacked bytes of the member")
            }
            keep(out, sniff: true)
        }

        private mutating func summaryFromZipEntry(_ entry: Entry, of archive: Archive) throws {
            var scanner = SummaryScanner(limit: limits.summaryTextBytes)
            let name = entry.path
            let container = self.container
            do {
                _ = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { data in
                    try scanner.scan(data, container: container, member: name)
                }
            } catch let error as ContainerError {
                throw error
            } catch {
                throw ContainerError(container: container, member: name, expected: "intact compressed data (ZIPFoundation: \(error))")
            }
            if let text = scanner.text { try decodeSummary(text, of: name) }
        }

        /// The btsnooz summary of a bug report's text read from `stream`; an error when it has none.
        mutating func summary(named name: String, from stream: ByteStream) throws {
            var scanner = SummaryScanner(limit: limits.summaryTextBytes)
            while try stream.fill(1) > 0 {
                try stream.take(stream.available) { try scanner.scan($0, container: container, member: name) }
            }
            guard let text = scanner.text else {
                throw ContainerError(
                    container: container,
                    expected: "a capture: btsnoop, pcap, pcapng or PacketLogger, a zip, tar or gzip holding one, or a bug report's text with a BTSNOOP_LOG_SUMMARY section; this is text without that section")
            }
            try decodeSummary(text, of: name)
        }

        private mutating func decodeSummary(_ text: [UInt8], of report: String) throws {
            let name = report + "#BTSNOOP_LOG_SUMMARY"
            let out = try create(name)
            out.close()
            _ = try BTSnoozSummary.decode(text: text, to: out.target, name: name, container: container, limit: min(limits.memberBytes, 256 << 20))
            var info = stat()
            _ = stat(out.target, &info)
            out.written = Int64(info.st_size)
            keep(out, sniff: false, summary: true)
        }
    }

    /// One member's temporary file: what is written is counted against the limits (never the size
    /// an archive declares), its first 64 bytes kept to tell whether it is a capture.
    final class MemberFile {
        let container: String
        let name: String
        let target: String
        private let file: FileDescriptor
        private let limits: ContainerLimits
        /// What the members kept before this one hold.
        private let total: Int64
        var written: Int64 = 0
        private(set) var head: [UInt8] = []

        init(container: String, name: String, target: String, file: FileDescriptor, limits: ContainerLimits, total: Int64) {
            (self.container, self.name, self.target, self.file, self.limits, self.total) = (container, name, target, file, limits, total)
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            if written + Int64(bytes.count) > limits.memberBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected: "a member of at most \(limits.memberBytes) bytes once unpacked; it is larger (a damaged size or a compression bomb; BLETRACE_MAX_MEMBER_BYTES raises the limit)")
            }
            if total + written + Int64(bytes.count) > limits.totalBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected: "capture members adding up to at most \(limits.totalBytes) bytes once unpacked; they are larger")
            }
            if head.count < 64 { head += bytes.prefix(64 - head.count) }
            do {
                _ = try file.writeAll(bytes)
            } catch {
                throw ContainerError(container: container, member: name, expected: "room to unpack it in \(target) (\(error))")
            }
            written += Int64(bytes.count)
        }

        func close() { try? file.close() }
    }

    /// Finds the btsnooz section in text given in pieces, a line at a time, and keeps its base64
    /// lines (at most `limit` bytes of them). Lines longer than 64 KiB are looked at in part only.
    struct SummaryScanner {
        let limit: Int
        private var line: [UInt8] = []
        private var inside = false
        private var collected: [UInt8] = []
        private(set) var text: [UInt8]?

        init(limit: Int) { self.limit = limit }

        mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes, container: String, member: String) throws {
            guard text == nil else { return }
            for byte in bytes {
                if byte == 0x0A {
                    try endLine(container: container, member: member)
                    if text != nil { return }
                } else if line.count < 64 << 10 {
                    line.append(byte)
                }
            }
        }

        private mutating func endLine(container: String, member: String) throws {
            defer { line.removeAll(keepingCapacity: true) }
            if inside {
                if Self.contains(line, BTSnoozSummary.end) {
                    text = collected
                    collected = []
                    return
                }
                guard collected.count + line.count <= limit else {
                    throw ContainerError(container: container, member: member, expected: "a BTSNOOP_LOG_SUMMARY section of at most \(limit) bytes of text; it is longer")
                }
                collected += line
            } else if Self.contains(line, BTSnoozSummary.begin) {
                inside = true
            }
        }

        static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool {
            guard line.count >= marker.count else { return false }
            for start in 0...(line.count - marker.count) where line[start] == marker[0] {
                if line[start..<start + marker.count].elementsEqual(marker) { return true }
            }
            return false
        }
    }
}
