import Foundation
import SystemPackage

/// A file a command writes (`-o`, convert's OUT, capture's `-w`), opened in this one place so
/// that every command follows the same rules:
///
/// - it is never one of the command's inputs, by any name (the same path, a hard link, a symlink
///   to it): that is refused before anything is written;
/// - a directory, a block device or a socket is refused by name;
/// - a character device or a FIFO (`/dev/null`, `/dev/stdout`, a pipe) is written through, never
///   replaced;
/// - a symlink is followed: the file it names is the one written, and the link stays;
/// - `-` is standard output, written through;
/// - a regular file (or a new one) is written atomically: the bytes go to a new file beside it,
///   renamed over it at ``commit()``, so that a failed or interrupted command leaves the old file
///   whole. A live capture (``Mode/inPlace``) writes the file itself instead, so that it can be
///   read while it grows.
///
/// Paths are taken apart with swift-system's `FilePath`, never Foundation's path methods
/// (`NSString.deletingLastPathComponent` traps on a one-character path on Linux).
struct OutputFile {
    /// The path the user gave.
    let path: String
    /// Where the bytes go: a temporary file beside the target, or the target itself.
    let writePath: String
    /// The file renamed over at ``commit()``, when the write is atomic.
    private let renameTarget: String?
    /// The mode the new file gets: the replaced file's, else 0666 less the umask.
    private let permissions: mode_t

    enum Mode {
        /// Through a temporary file renamed into place at ``commit()``.
        case atomic
        /// Into the file itself, which grows as it is written (a live capture).
        case inPlace
    }

    /// Why a file cannot be written, for a one-line message.
    struct Refusal: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): cannot write: \(reason)" }
    }

    /// Checks `path` against the rules above and against `inputs` (paths, or `-` for standard
    /// input), and prepares the file to be written.
    static func prepare(_ path: String, inputs: [String], mode: Mode = .atomic) throws(Refusal) -> OutputFile {
        func refuse(_ reason: String) -> Refusal { Refusal(path: path, reason: reason) }
        guard !path.isEmpty else { throw refuse("the name is empty") }
        if path == "-" { return standardOutput(permissions: 0o666) }
        var target = stat()
        let exists = stat(path, &target) == 0
        if exists {
            for input in inputs {
                var source = stat()
                let found = input == "-" ? fstat(STDIN_FILENO, &source) == 0 : stat(input, &source) == 0
                if found, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
                    let name = input == "-" ? "standard input" : input
                    throw refuse("it is the input file (\(name)); bletrace never overwrites its input")
                }
            }
        }
        let umaskValue = umask(0)
        umask(umaskValue)
        let defaultPermissions = 0o666 & ~umaskValue
        guard exists else {
            var link = stat()
            if lstat(path, &link) == 0 {
                // A symlink to nothing: written through, creating the file it names.
                return OutputFile(path: path, writePath: path, renameTarget: nil, permissions: defaultPermissions)
            }
            let directory = Self.directory(of: path)
            var parent = stat()
            guard stat(directory, &parent) == 0, parent.st_mode & S_IFMT == S_IFDIR else {
                throw refuse("no such directory (\(directory))")
            }
            return try create(path, target: path, mode: mode, permissions: defaultPermissions)
        }
        switch target.st_mode & S_IFMT {
        case S_IFDIR: throw refuse("it is a directory")
        case S_IFBLK: throw refuse("it is a block device; bletrace writes files, character devices and pipes")
        case S_IFSOCK: throw refuse("it is a socket; bletrace writes files, character devices and pipes")
        case S_IFCHR, S_IFIFO:
            return OutputFile(path: path, writePath: path, renameTarget: nil, permissions: defaultPermissions)
        default:
            // A regular file, or a symlink to one: the file itself is replaced, the link kept.
            guard let resolved = realpath(path, nil) else { throw refuse(String(cString: strerror(errno))) }
            defer { free(resolved) }
            return try create(path, target: String(cString: resolved), mode: mode, permissions: target.st_mode & 0o7777)
        }
    }

    private static func create(_ path: String, target: String, mode: Mode, permissions: mode_t) throws(Refusal)
        -> OutputFile
    {
        guard mode == .atomic else {
            return OutputFile(path: path, writePath: target, renameTarget: nil, permissions: permissions)
        }
        let file = FilePath(target)
        guard let name = file.lastComponent else { throw Refusal(path: path, reason: "it names no file") }
        var template = Array(
            file.removingLastComponent().appending("." + name.string + ".bletrace-XXXXXX").string.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Refusal(path: path, reason: String(cString: strerror(errno)))
        }
        close(descriptor)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return OutputFile(path: path, writePath: temporary, renameTarget: target, permissions: permissions)
    }

    /// The directory `path` is in: `.` for a bare name, `/` for a name at the root.
    static func directory(of path: String) -> String {
        let parent = FilePath(path).removingLastComponent()
        return parent.isEmpty ? "." : parent.string
    }

    /// True for `-`, the name of standard output.
    var isStandardOutput: Bool { path == "-" }

    /// Standard output, written through as a FIFO or a device is.
    private static func standardOutput(permissions: mode_t) -> OutputFile {
        OutputFile(path: "-", writePath: "/dev/stdout", renameTarget: nil, permissions: permissions)
    }

    /// Opens ``writePath`` for writing (truncated, unless it is a device or a FIFO).
    func open() throws(Refusal) -> Int32 {
        var info = stat()
        let special =
            stat(writePath, &info) == 0 && (info.st_mode & S_IFMT == S_IFCHR || info.st_mode & S_IFMT == S_IFIFO)
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (special ? 0 : O_TRUNC)
        let descriptor = Foundation.open(writePath, flags, permissions)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw Refusal(path: path, reason: reason)
        }
        return descriptor
    }

    /// Puts the written file in place (the rename of an atomic write; nothing otherwise).
    func commit() throws(Refusal) {
        guard let renameTarget else { return }
        chmod(writePath, permissions)
        guard rename(writePath, renameTarget) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw Refusal(path: path, reason: reason)
        }
    }

    /// Writes `bytes` as the whole file, and puts it in place.
    func replaceContents(with bytes: [UInt8]) throws(Refusal) {
        let descriptor = try open()
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let reason = String(cString: strerror(errno))
                _ = Glibc.close(descriptor)
                discard()
                throw Refusal(path: path, reason: reason)
            }
            done += written
        }
        guard Glibc.close(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw Refusal(path: path, reason: reason)
        }
        try commit()
    }

    /// Removes the temporary file of an atomic write (the target is left as it was).
    func discard() {
        if renameTarget != nil { unlink(writePath) }
    }
}
