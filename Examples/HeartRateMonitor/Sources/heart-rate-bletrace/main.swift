// The team's own bletrace: every subcommand, and `replay --app HeartRateMonitor` runs the app's
// real Bluetooth layer against a field capture.
import BletraceCLI
import HeartRateReplay

await BletraceCommand.main(apps: [HeartRateApp.self])
