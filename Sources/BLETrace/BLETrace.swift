// `import BLETrace` gives a user's own code every public module of bletrace but one: the library
// for tests, `BLETraceTesting` (replays into the app under test, golden flows written with
// BLETRACE_RECORD, paths relative to the test file), which a test target imports on its own.
@_exported import ATT
@_exported import AndroidCodes
@_exported import CodeExplainer
@_exported import CoreBluetoothCodes
@_exported import Flow
@_exported import HCI
@_exported import Lifecycle
@_exported import LinkLayer
@_exported import Redact
@_exported import BLETraceCoreBluetooth
@_exported import Replay
@_exported import Reports
@_exported import TraceFiles
@_exported import Wire
