import Foundation
import Glibc
import TraceFiles

/// A TCP listener on 127.0.0.1 with a port the kernel picks, serving one client.
public final class LoopbackServer: @unchecked Sendable {
    let listener: Int32
    public let port: UInt16

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, size) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, $0, &size) == 0
            }
        }
        guard ok else {
            close(listener)
            throw CaptureError.live("test listener: \(String(cString: strerror(errno)))")
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(listener) }

    /// In the background: accepts one client (waiting at most 5 s), writes each chunk with a
    /// pause between, keeps the connection open for `holdOpen`, then closes it. The semaphore is
    /// signalled when done.
    public func serve(_ chunks: [[UInt8]], pause: UInt32 = 15_000, holdOpen: Duration = .zero) -> DispatchSemaphore {
        run { client in
            for (i, chunk) in chunks.enumerated() {
                if i > 0 { usleep(pause) }
                _ = chunk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            let (seconds, attoseconds) = holdOpen.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }

    /// In the background: accepts one client (waiting at most 5 s) and runs `body` with its
    /// blocking descriptor, then closes it.
    public func run(_ body: @escaping @Sendable (Int32) -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let listener = listener
        Thread {
            defer { done.signal() }
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 5_000) == 1 else { return }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            body(client)
        }.start()
        return done
    }
}
