import BLETrace
import Foundation

/// The containers the command line has opened (a bug report zip, a sysdiagnose, a gzip): each
/// is unpacked once, its member read as a plain capture, its temporary files removed when the
/// program exits.
enum ContainerInputs {
    nonisolated(unsafe) private static var opened: [String: CaptureContainer] = [:]
    nonisolated(unsafe) private static var cleanupRegistered = false

    /// The plain capture file to read for `path`: `path` itself when it is not a container, else
    /// the unpacked `member` (its path inside, or a unique file name) or the default member.
    static func resolve(_ path: String, member: String?) throws -> String {
        let container: CaptureContainer
        do {
            guard let found = try open(path) else {
                if let member {
                    Output.error(
                        "\(path): --member \(member): this file is a capture, not a container (zip, tar, gzip or bug report text)"
                    )
                    throw Exit.badInput
                }
                return path
            }
            container = found
        } catch let error as ContainerError {
            Output.error("\(error)")
            throw Exit.badInput
        }
        do {
            if let member { return try container.member(named: member).extractedPath }
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        guard let chosen = container.defaultMember else {
            Output.error("\(path): a \(container.kind) with no capture in it (\(Self.lookedFor))")
            throw Exit.badInput
        }
        return chosen.extractedPath
    }

    /// What a container is searched for, for messages.
    static let lookedFor =
        "snoop logs under data/misc/bluetooth/logs/, PacketLogger files under logs/Bluetooth/, files named btsnoop* or *.pklg, *.pcap, *.pcapng, *.cfa, *.cap, or a bug report's BTSNOOP_LOG_SUMMARY"

    /// The container at `path`, opened once; nil when it is a plain capture.
    static func open(_ path: String) throws -> CaptureContainer? {
        if let container = opened[path] { return container }
        guard let container = try CaptureContainer.open(path: path) else { return nil }
        opened[path] = container
        if !cleanupRegistered {
            cleanupRegistered = true
            atexit { ContainerInputs.opened.values.forEach { $0.close() } }
        }
        return container
    }
}
