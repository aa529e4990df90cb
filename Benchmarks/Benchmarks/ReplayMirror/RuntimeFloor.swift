// What Swift concurrency itself costs a value when a replay hands values to a task one at a time
// and lets the task run to its next suspension before the next one (what a replay in capture
// time must do, Formats/flow.md), with nothing of bletrace in the way: a first-in first-out task
// executor (the least a replay's executor can be), drained after each value. Beside
// replay_1M_records_subscriber_async, this says how much of that benchmark is the runtime's
// (Benchmarks/README.md).
import Foundation

/// Jobs in the order they came, run when asked: the least executor a replay can drain.
final class FIFOTaskExecutor: TaskExecutor, @unchecked Sendable {
    private var jobs: [UnownedJob] = []
    private var head = 0

    var isIdle: Bool { head == jobs.count }

    func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }

    func drain() {
        while head < jobs.count {
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

enum RuntimeFloor {
    /// A task reads `count` values from an `AsyncStream`, each yielded after the task has run to
    /// its suspension (the async subscriber's notification path). Returns the values it read.
    static func asyncStream(_ count: Int) -> Int {
        let executor = FIFOTaskExecutor()
        let (stream, sink) = AsyncStream<Void>.makeStream()
        let counter = Counter()
        start(on: executor) { for await _ in stream { counter.value += 1 } }
        for index in 0..<count {
            sink.yield()
            executor.drain()
            // The task read the value before the next one came: it runs on `executor` alone.
            precondition(counter.value == index + 1, "the consumer ran elsewhere")
        }
        sink.finish()
        executor.drain()
        return counter.value
    }

    /// A task awaits `count` checked continuations, each resumed after the task has run to its
    /// suspension (the async subscriber's connect and discover steps). Returns the resumptions.
    static func continuations(_ count: Int) -> Int {
        let executor = FIFOTaskExecutor()
        let counter = Counter()
        let waiting = Waiting()
        start(on: executor) {
            for _ in 0..<count {
                await withCheckedContinuation { waiting.continuation = $0 }
                counter.value += 1
            }
        }
        for index in 0..<count {
            guard let continuation = waiting.continuation else { break }
            waiting.continuation = nil
            continuation.resume()
            executor.drain()
            precondition(counter.value == index + 1, "the task ran elsewhere")
        }
        return counter.value
    }

    /// Starts `body` as a task whose jobs all go to `executor`, and runs it to its first suspension.
    private static func start(on executor: FIFOTaskExecutor, _ body: @escaping @Sendable () async -> Void) {
        Task.detached(executorPreference: executor, operation: body)
        // The task's first job is enqueued by the thread that creates it, before `detached` returns.
        precondition(!executor.isIdle, "the task did not start on its executor")
        executor.drain()
    }

    private final class Counter: @unchecked Sendable { var value = 0 }
    private final class Waiting: @unchecked Sendable { var continuation: CheckedContinuation<Void, Never>? }
}
