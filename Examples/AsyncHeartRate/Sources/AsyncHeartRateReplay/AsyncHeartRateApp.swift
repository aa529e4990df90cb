import AsyncHeartRateKit
import BLETrace

/// The async heart-rate layer as an app a replay launches: at launch (and at each relaunch) it
/// makes the central with its restore identifier and starts the model's task on the main actor,
/// as the app's `application(_:didFinishLaunchingWithOptions:)` does.
public final class AsyncHeartRateApp: BluetoothApp, Launchable, @unchecked Sendable {
    public static var appName: String { "AsyncHeartRate" }
    public static var summary: String {
        "the async example app: continuations, AsyncStream, a @MainActor model (Examples/AsyncHeartRate)"
    }
    public static let restoreIdentifier = "com.example.async-heart-rate"

    /// The model of this process, once launched; a test reads what it measured and the errors.
    public private(set) var model: HeartRateModel?
    private let connectTimeout: Duration
    /// Called with each model made (one per process).
    private let onModel: (@MainActor (HeartRateModel) -> Void)?

    public init() {
        connectTimeout = .seconds(5)
        onModel = nil
    }

    public init(connectTimeout: Duration, onModel: (@MainActor (HeartRateModel) -> Void)? = nil) {
        self.connectTimeout = connectTimeout
        self.onModel = onModel
    }

    public func didFinishLaunching(_ launch: Launch) {
        let central = HeartRateCentral(restoreIdentifier: Self.restoreIdentifier)
        let (clock, known, timeout, onModel) = (launch.clock, launch.knownPeripherals.first, connectTimeout, onModel)
        Task { @MainActor in
            let model = HeartRateModel(central: central, clock: clock, connectTimeout: timeout)
            self.model = model
            onModel?(model)
            await model.run(knownSensor: known)
        }
    }
}
