import Dispatch
import Foundation
import Synchronization

/// The executor a virtual replay runs the app's Swift concurrency on: every job of the app's
/// tasks — unstructured `Task {}`, `@MainActor` code, `async let`, task groups, actors, the
/// resumption of a continuation or of an `AsyncStream` consumer — is enqueued here, and the
/// replay runs them itself, in the order they were enqueued, on its own thread, before it plays
/// the next event. When the queue is empty every task of the app is suspended (waiting for a
/// callback, a stream element or a sleep on ``Launch/clock``): the replay knows it, it does not
/// guess it by yielding a number of times.
///
/// How the jobs get here (Formats/flow.md, "Swift concurrency in a virtual replay", has the choice
/// and the measures):
/// - The Swift runtime's `swift_task_enqueueGlobal_hook` receives every job bound for the global
///   concurrent executor; a job enqueued by a thread that is running a replay (a thread-local
///   says which) is this executor's, any other goes on as before.
/// - `swift_task_getMainExecutor_hook` answers, on a replay's thread only, that the main actor's
///   executor is this one: code that hops to `@MainActor` enqueues here, and `MainActor`'s
///   isolation checks pass while the replay runs it (its thread stands for the main thread, as it
///   does for delegate callbacks on the main queue). The main-executor enqueue hook is not used:
///   since Swift 6.2 the main actor enqueues on its executor object directly, not through it.
/// - A job for the main actor runs isolated to this executor; a job that came through the global
///   hook runs as on the global concurrent executor, where it was bound: a nonisolated task
///   resumed here continues at once, where run on this executor it would hop to the global one
///   and be enqueued a second time. Either way its `Task.yield()` and later hops come back here
///   through the hooks.
///
/// Nothing here sleeps or polls: draining is a loop over a FIFO. A job enqueued from another
/// thread (work the app hands to a `DispatchQueue` of its own, a URL session) is not the replay's
/// and runs where Swift runs it, outside the capture's time.
final class ReplayExecutor: SerialExecutor, @unchecked Sendable {
    /// Jobs in the order they were enqueued. Touched only by the thread running the replay.
    @exclusivity(unchecked) private var jobs: [Job] = []
    @exclusivity(unchecked) private var head = 0

    /// A job, and whether it came through the global hook (else it is the main actor's).
    private struct Job {
        let job: UnownedJob
        let global: Bool
    }

    /// Whether the app has work that can run.
    var hasWork: Bool { head < jobs.count }

    /// How many jobs ran (``ReplayEngine/appJobsRun``).
    private(set) var jobsRun = 0

    /// The global concurrent executor, looked up once: the runtime's getter makes its executors
    /// (once) and boxes the answer on every call, a cost per job.
    private let globalExecutor = globalConcurrentExecutor.asUnownedTaskExecutor()

    init() { Self.installHooks() }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.append(Job(job: UnownedJob(job), global: false))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the calling code is isolated to this executor (and so to the main actor, in a
    /// replay): it is when it runs on the replay's thread, in a job or in a delegate callback the
    /// replay makes. `MainActor.assumeIsolated` in a callback asks this.
    func isIsolatingCurrentContext() -> Bool? { Self.current === self }

    /// The same question for runtimes that ask it this way: stops the process when the answer is no.
    func checkIsolated() {
        precondition(Self.current === self, "code isolated to the replay's executor runs outside its replay")
    }

    /// Runs `body` on the calling thread with this executor as the one the app's jobs go to.
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = Self.current
        Self.setCurrent(self)
        defer { Self.setCurrent(previous) }
        return try body()
    }

    /// Runs the app's jobs until every task is suspended (jobs enqueued by the jobs run too).
    func drain() {
        while head < jobs.count {
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            jobsRun += 1
            if job.global {
                job.job.runSynchronously(on: globalExecutor)
            } else {
                job.job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }

    // MARK: The thread's replay

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The executor of the replay running on this thread, if any.
    static var current: ReplayExecutor? {
        pthread_getspecific(key).map { Unmanaged<ReplayExecutor>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func setCurrent(_ executor: ReplayExecutor?) {
        pthread_setspecific(key, executor.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    // MARK: Real time

    /// How many real-time replays run (the hook looks at the main queue only then).
    private static let realTimeReplays = Atomic<Int>(0)
    private static let realTimeKey = DispatchSpecificKey<Bool>()

    /// Runs `body` (a real-time replay, on the main actor) with the jobs that the main queue's
    /// code enqueues for the global executor sent to the main actor instead: the app's tasks then
    /// run between the replay's events on the main queue, never beside them. What the app's
    /// tasks do still happens in wall time, as on a phone.
    @MainActor static func inRealTime<Result>(_ body: () async -> Result) async -> Result {
        installHooks()
        realTimeReplays.add(1, ordering: .relaxed)
        DispatchQueue.main.setSpecific(key: realTimeKey, value: true)
        defer {
            if realTimeReplays.subtract(1, ordering: .relaxed).newValue == 0 {
                DispatchQueue.main.setSpecific(key: realTimeKey, value: nil)
            }
        }
        return await body()
    }

    // MARK: The runtime's hooks

    private typealias EnqueueOriginal = @convention(thin) (UnownedJob) -> Void
    private typealias EnqueueHook = @convention(thin) (UnownedJob, EnqueueOriginal) -> Void
    private typealias MainExecutorOriginal = @convention(thin) () -> UnownedSerialExecutor
    private typealias MainExecutorHook = @convention(thin) (MainExecutorOriginal) -> UnownedSerialExecutor

    private struct Hooks: @unchecked Sendable {
        let enqueueGlobal: UnsafeMutablePointer<EnqueueHook?>
        let getMainExecutor: UnsafeMutablePointer<MainExecutorHook?>
    }

    private static let hooks: Hooks? = {
        let runtime = dlopen(nil, RTLD_NOW)
        guard let enqueueGlobal = dlsym(runtime, "swift_task_enqueueGlobal_hook"),
            let getMainExecutor = dlsym(runtime, "swift_task_getMainExecutor_hook")
        else { return nil }
        return Hooks(
            enqueueGlobal: enqueueGlobal.assumingMemoryBound(to: EnqueueHook?.self),
            getMainExecutor: getMainExecutor.assumingMemoryBound(to: MainExecutorHook?.self))
    }()

    /// A hook another library had installed before ours (swift-concurrency-extras'
    /// `withMainSerialExecutor` installs one): jobs that are not a replay's go through it.
    private nonisolated(unsafe) static var previousEnqueueGlobal: EnqueueHook?
    private nonisolated(unsafe) static var previousGetMainExecutor: MainExecutorHook?
    private static let lock = NSLock()

    private static let enqueueGlobal: EnqueueHook = { job, original in
        if let executor = ReplayExecutor.current {
            executor.jobs.append(Job(job: job, global: true))
        } else if ReplayExecutor.realTimeReplays.load(ordering: .relaxed) > 0,
            DispatchQueue.getSpecific(key: ReplayExecutor.realTimeKey) != nil
        {
            // A real-time replay: the app's tasks run on the main actor, one at a time with the
            // replay's callbacks (swift-concurrency-extras' `withMainSerialExecutor` technique).
            MainActor.shared.enqueue(job)
        } else if let previous = ReplayExecutor.previousEnqueueGlobal {
            previous(job, original)
        } else {
            original(job)
        }
    }

    private static let getMainExecutor: MainExecutorHook = { original in
        if let executor = ReplayExecutor.current { return executor.asUnownedSerialExecutor() }
        if let previous = ReplayExecutor.previousGetMainExecutor { return previous(original) }
        return original()
    }

    /// Installs the hooks, once, and again if another library replaced them since (keeping
    /// theirs as the next in line). They stay: a thread with no replay costs one thread-local read.
    static func installHooks() {
        guard let hooks else { return }
        lock.withLock {
            if !isOurs(hooks.enqueueGlobal.pointee, enqueueGlobal) {
                previousEnqueueGlobal = hooks.enqueueGlobal.pointee
                hooks.enqueueGlobal.pointee = enqueueGlobal
            }
            if !isOurs(hooks.getMainExecutor.pointee, getMainExecutor) {
                previousGetMainExecutor = hooks.getMainExecutor.pointee
                hooks.getMainExecutor.pointee = getMainExecutor
            }
        }
    }

    private static func isOurs<Hook>(_ installed: Hook?, _ ours: Hook) -> Bool {
        guard let installed else { return false }
        return unsafeBitCast(installed, to: UnsafeRawPointer.self) == unsafeBitCast(ours, to: UnsafeRawPointer.self)
    }
}
