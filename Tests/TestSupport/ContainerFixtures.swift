import CInflate
import Foundation
import TraceFiles
import Wire
import ZIPFoundation

/// Containers laid out as Android and Apple lay them out (Formats/containers.md), built from the
/// public captures by the tests themselves, in a fresh temporary directory each.
public enum ContainerFixtures {
    /// A fresh temporary directory.
    public static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-containers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The folder of an Android bug report that holds the snoop logs.
    public static let androidLogs = "FS/data/misc/bluetooth/logs/"

    /// An Android bug report zip, as `adb bugreport` writes it: `version.txt`, `main_entry.txt`
    /// naming the main text `bugreport-…txt`, and the files copied from the phone under `FS/`:
    /// `files` maps a path under data/misc/bluetooth/logs/ (btsnoop_hci.log, btsnoop_hci.log.last)
    /// to the capture copied there. `summary`: a capture whose packets go into the text's
    /// BTSNOOP_LOG_SUMMARY section instead.
    public static func androidBugReport(
        files: [(name: String, capture: String)], summary: String? = nil, truncateACL: Bool = true
    ) throws -> String {
        let folder = try directory()
        let stem = "bugreport-sdk_gphone64_x86_64-BE2A.250530.026.D1-2026-01-01-10-00-00"
        let url = folder.appendingPathComponent(stem + ".zip")
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ data: Data) throws {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate
            ) { position, size in data.subdata(in: Int(position)..<Int(position) + size) }
        }
        var text = """
            ========================================================
            == dumpstate: 2026-01-01 10:00:00
            ========================================================

            Build: BE2A.250530.026.D1
            -------------------------------------------------------------------------------
            DUMP OF SERVICE bluetooth_manager:

            """
        if let summary { text += try btsnoozSection(of: summary, truncateACL: truncateACL) }
        text += "\n---------------------------------------------------------------------------\n"
        try add("version.txt", Data("2.0".utf8))
        try add("main_entry.txt", Data((stem + ".txt").utf8))
        try add(stem + ".txt", Data(text.utf8))
        for file in files {
            try add(androidLogs + file.name, Data(contentsOf: URL(fileURLWithPath: file.capture)))
        }
        try add("FS/data/misc/logd/logcat", Data("not a capture\n".utf8))
        return url.path
    }

    /// The BTSNOOP_LOG_SUMMARY section of a bug report's text for the packets of `capture` (a
    /// btsnoop or PacketLogger file of HCI packets), as Android's btif_debug_btsnoop.cc writes it:
    /// version 2, the last packet's time, then zlib of the records, base64 in lines of 128.
    /// `truncateACL`: keep 14 bytes of ACL packets but the whole of L2CAP signalling, as Android does.
    public static func btsnoozSection(of capture: String, truncateACL: Bool = true) throws -> String {
        let snooz = try btsnooz(of: capture, truncateACL: truncateACL)
        let base64 = Data(snooz).base64EncodedString()
        var lines: [Substring] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(rest.prefix(128))
            rest = rest.dropFirst(128)
        }
        return "--- BEGIN:BTSNOOP_LOG_SUMMARY (\(snooz.count) bytes in) ---\n" + lines.joined(separator: "\n")
            + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n"
    }

    /// The btsnooz bytes (preamble and compressed records) of `capture`'s HCI packets.
    public static func btsnooz(of capture: String, truncateACL: Bool) throws -> [UInt8] {
        let reader = try CaptureReader(path: capture)
        var records: [UInt8] = []
        var previous: Int64?
        var last: Int64 = 0
        while let record = try reader.next() {
            let type: UInt8
            switch (record.kind, record.direction) {
            case (.command, _): type = 0x20
            case (.event, _): type = 0x10
            case (.acl, .sent?): type = 0x21
            case (.acl, _): type = 0x11
            default: continue
            }
            var kept = record.bytes.count
            if truncateACL, record.kind == .acl, record.bytes.count > 8 {
                let cid = UInt16(record.bytes[6]) | UInt16(record.bytes[7]) << 8
                if cid != 0x0001 { kept = min(kept, 14) }
            }
            let time = record.timestamp.rawValue
            let delta = UInt32(clamping: previous.map { time - $0 } ?? 0)
            previous = time
            last = time
            func little(_ value: UInt64, _ count: Int) {
                for index in 0..<count { records.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
            }
            little(UInt64(kept + 1), 2)
            little(UInt64(record.originalLength + 1), 2)
            little(UInt64(delta), 4)
            records.append(type)
            records += UnsafeRawBufferPointer(rebasing: record.bytes[0..<kept])
        }
        var compressed = [UInt8](repeating: 0, count: Int(compressBound(uLong(records.count))))
        var size = uLongf(compressed.count)
        let status = compressed.withUnsafeMutableBufferPointer { out in
            records.withUnsafeBufferPointer {
                compress2(out.baseAddress, &size, $0.baseAddress, uLong(records.count), Z_DEFAULT_COMPRESSION)
            }
        }
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        var snooz: [UInt8] = [2]
        for index in 0..<8 { snooz.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: last) >> (8 * index))) }
        return snooz + compressed.prefix(Int(size))
    }

    /// The name of a sysdiagnose, as iOS names it: sysdiagnose_DATE_TIME-ZONE_PLATFORM_DEVICE_BUILD.
    public static let sysdiagnoseName = "sysdiagnose_2026.01.01_10-00-00+0000_iPhone-OS_iPhone_23A341"

    /// An iOS sysdiagnose archive: a .tar.gz of one folder named as the archive, its Bluetooth
    /// PacketLogger files in `logs/Bluetooth/` (the current one `bluetoothd-hci-latest.pklg`,
    /// rotated ones named by date). `format`: GNU tar's --format (Apple's bsdtar writes pax).
    public static func sysdiagnose(files: [(name: String, capture: String)], format: String = "pax") throws -> String {
        let folder = try directory()
        let root = folder.appendingPathComponent(sysdiagnoseName)
        let bluetooth = root.appendingPathComponent("logs/Bluetooth")
        try FileManager.default.createDirectory(at: bluetooth, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("logs/powerlogs"), withIntermediateDirectories: true)
        try Data("not a capture".utf8).write(to: root.appendingPathComponent("logs/powerlogs/powerlog.txt"))
        for file in files {
            try FileManager.default.copyItem(
                atPath: file.capture, toPath: bluetooth.appendingPathComponent(file.name).path)
        }
        let archive = folder.appendingPathComponent(sysdiagnoseName + ".tar.gz").path
        let result = try run(
            "/usr/bin/env", ["tar", "--format=\(format)", "-czf", archive, "-C", folder.path, sysdiagnoseName])
        precondition(result.status == 0, "tar failed: \(result.stderr)")
        return archive
    }

    /// `capture` compressed with gzip, named as the capture with `.gz` added.
    public static func gzip(_ capture: String) throws -> String {
        let folder = try directory()
        let target = folder.appendingPathComponent(URL(fileURLWithPath: capture).lastPathComponent + ".gz").path
        let result = try run("/bin/sh", ["-c", "gzip -c \"$0\" > \"$1\"", capture, target])
        precondition(result.status == 0, "gzip failed: \(result.stderr)")
        return target
    }
}
