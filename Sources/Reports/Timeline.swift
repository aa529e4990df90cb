import ATT
import CoreBluetoothCodes
import Foundation
import HCI
import Lifecycle
import Wire

/// The timeline as a self-contained SVG document: a time axis, a lane per connection, scan and
/// advertising set (at most `maxLanes`, the first in time order; the picture says how many were
/// left out), and a legend. Every mark is bounded by the width in pixels, so the size of the
/// document does not grow with the length of the capture. `file` names the capture in the
/// picture's title; without it the picture has none.
public func timelineSVG(
    _ report: LifecycleReport, errors: [TraceError], traffic: TrafficHistogram, file: String? = nil,
    maxLanes: Int = 60
) -> String {
    var svg = TimelineSVG(report: report, errors: errors, traffic: traffic, maxLanes: maxLanes)
    return svg.render(title: file.map { ($0 as NSString).lastPathComponent })
}

/// The timeline in a self-contained HTML page: a title (file, records, time span), the SVG, and
/// a table of the connections (at most `maxRows`; the page says how many more there are).
package func timelineHTML(
    _ report: LifecycleReport, errors: [TraceError], traffic: TrafficHistogram, file: String,
    maxLanes: Int = 60, maxRows: Int = 1000
) -> String {
    let name = (file as NSString).lastPathComponent
    var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>bletrace lifecycle: \(xml(name))</title>
        <style>
        body { font-family: sans-serif; margin: 16px 24px; color: #222; background: #fff; }
        h1 { font-size: 20px; margin: 0 0 4px; }
        p.summary { margin: 0 0 12px; color: #555; font-size: 13px; }
        svg { display: block; max-width: 100%; height: auto; }
        table { border-collapse: collapse; font-size: 12px; margin-top: 8px; }
        th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
        th { background: #f0f0f0; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        </style>
        </head>
        <body>
        <h1>\(xml(name))</h1>

        """
    var summary = Wording.count(report.records, "record")
    if let first = report.firstTime, let last = report.lastTime {
        summary +=
            ", \(Wording.duration(last.seconds(since: first))) from \(isoTime(first)) (times are seconds from the first record)"
    }
    summary +=
        "; \(Wording.count(report.connections.count, "connection")), \(Wording.count(report.scans.count, "scan")), \(Wording.count(report.advertising.count, "advertising set"))"
    html += "<p class=\"summary\">\(xml(summary))</p>\n"
    html += timelineSVG(report, errors: errors, traffic: traffic, file: nil, maxLanes: maxLanes) + "\n"
    html += "<h2 style=\"font-size:16px\">Connections</h2>\n"
    if report.connections.isEmpty {
        html += "<p>No connections.</p>\n"
    } else {
        html +=
            "<table class=\"connections\">\n<tr><th>#</th><th>peer</th><th>handle</th><th>role</th><th>connected (s)</th><th>disconnected (s)</th><th>outcome</th><th>reason</th><th>initiator</th><th>CoreBluetooth error</th></tr>\n"
        let origin = report.firstTime ?? Timestamp(microseconds: 0)
        func at(_ time: Timestamp?) -> String {
            time.map { Wording.sinceStart($0, origin: origin, decimals: 3) } ?? ""
        }
        for connection in report.connections.prefix(maxRows) {
            let connected =
                connection.completion?.status == .success
                ? at(connection.completion?.time) : (connection.beganBeforeCapture ? "before capture" : "")
            var reason = ""
            let failure = connection.completion.flatMap { $0.status == .success ? nil : $0.status }
            if let status = connection.disconnection?.reason ?? failure {
                reason = "\(hex(status.rawValue, digits: 2)) \(status.name ?? "")"
            }
            var cb = ""
            if let mapped = connection.cbError {
                cb = mapped.value.map { "\($0.name ?? "CBError") (\($0.errorCode))" } ?? "none"
            } else if connection.failedEstablishment != nil {
                cb = "no callback (iOS tries again)"
            }
            let cells = [
                "\(connection.id + 1)",
                connection.peer.map { "\($0)" + (connection.peerName.map { " \"\($0)\"" } ?? "") }
                    ?? (connection.attempt?.usesFilterAcceptList == true ? "filter accept list" : ""),
                connection.handle.map { hex($0, digits: 4) } ?? "", connection.role?.rawValue ?? "", connected,
                at(connection.disconnection?.time), connection.outcome.rawValue, reason,
                connection.disconnection?.initiator.rawValue ?? "", cb,
            ]
            html +=
                "<tr>"
                + cells.enumerated().map { index, cell in
                    (index == 0 || index == 4 || index == 5 ? "<td class=\"num\">" : "<td>") + xml(cell) + "</td>"
                }.joined() + "</tr>\n"
        }
        html += "</table>\n"
        if report.connections.count > maxRows {
            html +=
                "<p>\(report.connections.count - maxRows) more connections not listed; <code>bletrace lifecycle --format json</code> has them all.</p>\n"
        }
    }
    html += "</body>\n</html>"
    return html
}

/// Escapes text for XML and HTML content and attribute values.
func xml(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        // Characters XML 1.0 does not allow, even escaped.
        case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Lays out and draws the timeline.
private struct TimelineSVG {
    let report: LifecycleReport
    let errors: [TraceError]
    let traffic: TrafficHistogram
    let maxLanes: Int

    // Geometry, in pixels.
    let width = 1300.0
    let labelWidth = 250.0
    let rightMargin = 24.0
    let connectionLane = 54.0
    let smallLane = 30.0
    var plotLeft: Double { labelWidth }
    var plotRight: Double { width - rightMargin }
    var plotWidth: Double { plotRight - plotLeft }

    let origin: Timestamp
    let span: Double
    /// Errors by the id of the connection they belong to; nil for none.
    let errorsByConnection: [Int?: [TraceError]]
    var out = ""

    init(report: LifecycleReport, errors: [TraceError], traffic: TrafficHistogram, maxLanes: Int) {
        self.report = report
        self.errors = errors
        self.traffic = traffic
        self.maxLanes = max(1, maxLanes)
        let origin = report.firstTime ?? Timestamp(microseconds: 0)
        self.origin = origin
        span = max(report.lastTime.map { $0.seconds(since: origin) } ?? 0, 0.001)
        // Connections by handle, for matching errors to them in one pass.
        var byHandle: [UInt16: [Connection]] = [:]
        for connection in report.connections {
            if let handle = connection.handle { byHandle[handle, default: []].append(connection) }
        }
        // An error belongs to the last connection on its handle open at its time. Connections on
        // one handle follow each other in time, so a binary search finds the last that started
        // by then, and a few steps back cover overlaps: O(log n) an error, where looking through
        // every connection of the handle made a capture that reuses one handle for 100,000
        // connections take minutes.
        func start(_ connection: Connection) -> Timestamp {
            connection.completion?.time ?? connection.attempt?.time ?? origin
        }
        errorsByConnection = Dictionary(grouping: errors) { error in
            guard let handle = error.connection, let connections = byHandle[handle] else { return nil }
            var low = 0
            var high = connections.count
            while low < high {
                let middle = (low + high) / 2
                if start(connections[middle]) <= error.time { low = middle + 1 } else { high = middle }
            }
            // `low` connections started by the error's time; the match is the last of them that
            // had not ended (or one that began before the capture).
            for index in stride(from: low - 1, through: max(0, low - 16), by: -1) {
                let connection = connections[index]
                if error.time <= (connection.disconnection?.time ?? Timestamp(microseconds: .max)) {
                    return connection.id
                }
            }
            return connections.prefix(while: \.beganBeforeCapture).last { connection in
                error.time <= (connection.disconnection?.time ?? Timestamp(microseconds: .max))
            }?.id
        }
    }

    static func established(_ connection: Connection) -> Bool {
        connection.completion?.status == .success || connection.beganBeforeCapture
    }

    func x(_ time: Timestamp) -> Double { x(seconds: time.seconds(since: origin)) }
    func x(seconds: Double) -> Double { plotLeft + min(max(seconds / span, 0), 1) * plotWidth }

    enum Lane {
        case connection(Connection)
        case scan(Scan)
        case advertising(AdvertisingSet)
        case hostErrors([TraceError])
        /// Many scans, or many advertising sets, in one lane.
        case scans([Scan])
        case advertisingSets([AdvertisingSet])
        /// Attempts that never connected (failed, cancelled, pending), when there are too many
        /// connections for a lane each.
        case attempts([Connection])
    }

    mutating func render(title: String?) -> String {
        // Lanes: scans and advertising first (one lane for all when there are many), then
        // connections; past the cap, connections that were established keep a lane each (the
        // first in time order) and attempts that never connected share one lane. Errors that
        // belong to no lane shown get a lane of their own. What is left out is said below.
        var lanes: [Lane] = report.scans.count > 3 ? [.scans(report.scans)] : report.scans.map { .scan($0) }
        lanes +=
            report.advertising.count > 3
            ? [.advertisingSets(report.advertising)] : report.advertising.map { .advertising($0) }
        let budget = max(2, maxLanes - lanes.count)
        var shown = report.connections
        var grouped: [Connection] = []
        var hiddenConnections = 0
        if shown.count > budget {
            let established = report.connections.filter(Self.established)
            let keep = Set(established.prefix(budget - 1).map(\.id))
            shown = report.connections.filter { keep.contains($0.id) }
            grouped = report.connections.filter { !Self.established($0) }
            hiddenConnections = established.count - keep.count
        }
        lanes += shown.map { .connection($0) }
        if !grouped.isEmpty { lanes.append(.attempts(grouped)) }
        let shownIDs = Set(shown.map(\.id))
        let orphans = errorsByConnection.filter { key, _ in key.map { !shownIDs.contains($0) } ?? true }
            .values.flatMap { $0 }.sorted { $0.time < $1.time }
        if !orphans.isEmpty { lanes.append(.hostErrors(orphans)) }

        let top = title == nil ? 28.0 : 50.0
        let axisY = top + 18
        var y = axisY + 8
        var laneTops: [Double] = []
        for lane in lanes {
            laneTops.append(y)
            if case .connection = lane { y += connectionLane } else { y += smallLane }
        }
        let lanesBottom = y
        var noteY = lanesBottom + 18
        let capped = hiddenConnections > 0 || !grouped.isEmpty
        let legendY = noteY + (capped ? 22 : 4)
        let height = legendY + 78

        out.reserveCapacity(64 * 1024)
        out +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n"
        out +=
            "<title>\(xml("Timeline of \(title ?? "a capture"): \(Wording.count(report.connections.count, "connection")), \(Wording.count(report.scans.count, "scan")), \(Wording.count(report.advertising.count, "advertising set"))"))</title>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"#ffffff\"/>\n"
        if let title {
            var line = "\(title): \(Wording.count(report.records, "record"))"
            if report.firstTime != nil { line += ", \(Wording.duration(span))" }
            out += text(12, 24, line, size: 15, weight: "bold")
        }
        drawAxis(top: axisY, bottom: lanesBottom)
        for (lane, laneTop) in zip(lanes, laneTops) {
            switch lane {
            case .connection(let connection): drawConnection(connection, top: laneTop)
            case .scan(let scan): drawScan(scan, top: laneTop)
            case .advertising(let set): drawAdvertising(set, top: laneTop)
            case .hostErrors(let list): drawHostErrors(list, top: laneTop)
            case .scans(let list): drawScans(list, top: laneTop)
            case .advertisingSets(let list): drawAdvertisingSets(list, top: laneTop)
            case .attempts(let list): drawAttempts(list, top: laneTop)
            }
        }
        if capped {
            var note =
                "\(Wording.count(report.connections.count, "connection")), more than \(budget) lanes: \(Wording.count(shown.count, "established connection")) have a lane each, \(Wording.count(grouped.count, "attempt")) that never connected share one lane"
            if hiddenConnections > 0 { note += "; \(hiddenConnections) later established connections are not shown" }
            note += " (bletrace lifecycle --format text lists every one)."
            out += text(12, noteY, note, size: 12, fill: "#b00020", weight: "bold", cls: "lanes-capped")
            noteY += 22
        }
        if traffic.dropped > 0 {
            out += text(
                plotRight, noteY - 18, "traffic density incomplete: \(traffic.dropped) ATT PDUs past the bin limit",
                size: 10, fill: "#b00020", anchor: "end")
        }
        drawLegend(top: legendY)
        out += "</svg>"
        return out
    }

    // MARK: Axis

    mutating func drawAxis(top: Double, bottom: Double) {
        let step = Self.tickStep(span)
        var value = 0.0
        var count = 0
        out += "<g class=\"axis\">\n"
        out +=
            "<line x1=\"\(f(plotLeft))\" y1=\"\(f(top))\" x2=\"\(f(plotRight))\" y2=\"\(f(top))\" stroke=\"#444\"/>\n"
        while value <= span * 1.0000001 && count <= 40 {
            let px = x(seconds: value)
            out += "<line x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(bottom))\" stroke=\"#e2e2e2\"/>"
            out += "<line x1=\"\(f(px))\" y1=\"\(f(top - 4))\" x2=\"\(f(px))\" y2=\"\(f(top))\" stroke=\"#444\"/>"
            out += text(px, top - 7, Self.tickLabel(value, step: step), size: 10, fill: "#333", anchor: "middle")
            value = Double(count + 1) * step
            count += 1
        }
        out += text(8, top - 7, "time from the first record", size: 10, fill: "#666")
        out += "</g>\n"
    }

    static func tickStep(_ span: Double) -> Double {
        let steps: [Double] = [
            0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
            3600, 7200, 14400, 21600, 43200, 86400,
        ]
        return steps.first { span / $0 <= 12 } ?? (span / 10).rounded(.up)
    }

    static func tickLabel(_ value: Double, step: Double) -> String {
        if step >= 3600 { return String(format: "%.0f h", value / 3600) }
        if step >= 60 {
            let minutes = Int((value / 60).rounded())
            return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
        }
        let decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3
        return String(format: "%.\(decimals)f s", value)
    }

    // MARK: Lanes

    mutating func laneBackground(_ top: Double, _ height: Double, stripe: String) {
        out +=
            "<rect x=\"0\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"\(stripe)\" fill-opacity=\"0.5\"/>"
        out +=
            "<line x1=\"0\" y1=\"\(f(top + height))\" x2=\"\(f(width))\" y2=\"\(f(top + height))\" stroke=\"#ddd\"/>\n"
    }

    static let outcomeColour: [Connection.Outcome: String] = [
        .open: "#2e9d5b", .disconnected: "#3b74c4", .failed: "#c62828", .cancelled: "#9e9e9e", .pending: "#9e9e9e",
    ]

    mutating func drawConnection(_ connection: Connection, top: Double) {
        let height = connectionLane
        out += "<g class=\"lane connection\" data-id=\"\(connection.id)\">\n"
        laneBackground(top, height, stripe: connection.id % 2 == 0 ? "#f4f6fa" : "#ffffff")
        // Label: peer, then handle, role and transport.
        let peer =
            connection.peer.map { "\($0)" + (connection.peerName.map { " \"\($0)\"" } ?? "") }
            ?? (connection.attempt?.usesFilterAcceptList == true ? "filter accept list" : "unknown peer")
        out += text(8, top + 17, "\(connection.id + 1). \(peer)", size: 12, weight: "bold")
        var detail: [String] = []
        if let handle = connection.handle { detail.append("handle \(hex(handle, digits: 4))") }
        if let role = connection.role { detail.append(role.rawValue) }
        detail.append(LifecycleStory.name(of: connection.transport))
        if let mtu = connection.mtu { detail.append("MTU \(mtu)") }
        out += text(8, top + 31, detail.joined(separator: " · "), size: 10, fill: "#555")
        out += text(
            8, top + 44, connection.outcome.rawValue, size: 10, fill: Self.outcomeColour[connection.outcome] ?? "#555")

        let barY = top + 20
        let barHeight = 13.0
        let end = report.lastTime ?? origin
        // The attempt: a thin bar from the attempt to its completion (or cancel, or the end).
        if let attempt = connection.attempt {
            let stop = connection.completion?.time ?? connection.cancelTime ?? end
            let x0 = x(attempt.time), x1 = max(x(stop), x0 + 2)
            let dash = connection.outcome == .pending ? " stroke-dasharray=\"4 3\"" : ""
            out +=
                "<line class=\"attempt\" x1=\"\(f(x0))\" y1=\"\(f(barY + barHeight / 2))\" x2=\"\(f(x1))\" y2=\"\(f(barY + barHeight / 2))\" stroke=\"#777\" stroke-width=\"3\"\(dash)>"
            out +=
                "<title>\(xml("attempt at \(at(attempt.time))" + (attempt.usesFilterAcceptList ? " (filter accept list)" : "") + (connection.cancelTime.map { ", cancelled at \(at($0))" } ?? "")))</title></line>\n"
        }
        // The connection: a bar from completion (or the start of the capture) to the end.
        let connectedFrom: Timestamp? =
            connection.completion?.status == .success
            ? connection.completion?.time : (connection.beganBeforeCapture ? origin : nil)
        if let from = connectedFrom {
            let to = connection.disconnection?.time ?? end
            let x0 = x(from), x1 = max(x(to), x0 + 2)
            let colour = Self.outcomeColour[connection.outcome] ?? "#3b74c4"
            var tip =
                "connected \(at(from)) to \(connection.disconnection.map { at($0.time) } ?? "the end of the capture")"
            if let duration = connection.duration { tip += " (\(Wording.duration(duration)))" }
            if let interval = connection.interval, let latency = connection.latency,
                let timeout = connection.supervisionTimeout
            {
                tip +=
                    "; interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10))"
            }
            tip +=
                "; ATT \(Wording.count(connection.att.requests, "request")), \(Wording.count(connection.att.errors, "error")), \(Wording.count(connection.att.notifications, "notification")), \(Wording.count(connection.att.indications, "indication"))"
            out +=
                "<rect class=\"connected \(connection.outcome.rawValue)\" x=\"\(f(x0))\" y=\"\(f(barY))\" width=\"\(f(x1 - x0))\" height=\"\(f(barHeight))\" rx=\"2\" fill=\"\(colour)\" fill-opacity=\"0.85\"><title>\(xml(tip))</title></rect>\n"
        }
        // A failed attempt: a red cross where it ended, with the status.
        if connection.outcome == .failed, let completion = connection.completion {
            let (time, status) = (completion.time, completion.status)
            let px = x(time), cy = barY + barHeight / 2
            out +=
                "<path d=\"M\(f(px - 4)) \(f(cy - 4))L\(f(px + 4)) \(f(cy + 4))M\(f(px + 4)) \(f(cy - 4))L\(f(px - 4)) \(f(cy + 4))\" stroke=\"#c62828\" stroke-width=\"2\"><title>\(xml("attempt failed: \(hex(status.rawValue, digits: 2)) \(status.name ?? "")"))</title></path>\n"
            out += sideLabel(
                px + 7, cy + 4, "failed: \(hex(status.rawValue, digits: 2)) \(status.name ?? "")", fill: "#c62828")
        }
        // Discovery: a translucent span over the bar.
        if let start = connection.discoveryStart {
            let stop = connection.discoveryEnd ?? connection.disconnection?.time ?? end
            let x0 = x(start), x1 = max(x(stop), x0 + 2)
            out +=
                "<rect class=\"discovery\" x=\"\(f(x0))\" y=\"\(f(barY - 3))\" width=\"\(f(x1 - x0))\" height=\"\(f(barHeight + 6))\" fill=\"#8e44ad\" fill-opacity=\"0.35\" stroke=\"#8e44ad\" stroke-width=\"1\"><title>\(xml("GATT discovery from \(at(start))" + (connection.discoveryDuration.map { ", \(Wording.duration($0))" } ?? ", unfinished")))</title></rect>\n"
        }
        // Traffic density: a small bar chart under the connection bar.
        drawTraffic(connection, baseline: top + height - 3, maxHeight: 14)
        // Changes and subscriptions: markers above the bar.
        var changes: [(Timestamp, String, String)] = []
        for change in connection.changes {
            let (label, colour) = Self.describe(change.kind)
            changes.append((change.time, label, colour))
        }
        for subscription in connection.subscriptions {
            let what =
                subscription.uuid.map { "\($0)" + (GATTNames.name(for: $0).map { " \($0)" } ?? "") }
                ?? "descriptor \(hex(subscription.descriptorHandle, digits: 4))"
            changes.append(
                (
                    subscription.time,
                    subscription.mode == .off
                        ? "unsubscribed from \(what)" : "subscribed to \(what) (\(subscription.mode.rawValue))",
                    "#00897b"
                ))
        }
        for (px, titleText, colour) in bucket(changes) {
            if colour == "#00897b" {
                out +=
                    "<path class=\"subscription\" d=\"M\(f(px)) \(f(barY - 2))l-4 -7h8z\" fill=\"\(colour)\"><title>\(xml(titleText))</title></path>\n"
            } else {
                out +=
                    "<circle class=\"change\" cx=\"\(f(px))\" cy=\"\(f(barY - 6))\" r=\"3.5\" fill=\"\(colour)\" stroke=\"#fff\" stroke-width=\"0.8\"><title>\(xml(titleText))</title></circle>\n"
            }
        }
        // Errors: red ticks across the lane.
        drawErrorTicks(errorsByConnection[connection.id] ?? [], top: top + 4, bottom: top + height - 4)
        // The disconnection: a dark line with the reason and who ended it.
        if let disconnection = connection.disconnection {
            let px = x(disconnection.time)
            let reason = disconnection.reason
            var label = "\(hex(reason.rawValue, digits: 2)) \(reason.name ?? "")"
            switch disconnection.initiator {
            case .local: label += " · by this host"
            case .remote: label += " · by peer or link"
            case .unknown: break
            }
            var tip = "disconnected at \(at(disconnection.time)): \(label)"
            if let mapped = connection.cbError {
                tip +=
                    "; CoreBluetooth didDisconnectPeripheral error: "
                    + (mapped.value.map { "\($0.name ?? "CBError") (\($0.errorCode))" } ?? "none")
            }
            out +=
                "<line class=\"disconnection\" x1=\"\(f(px))\" y1=\"\(f(top + 3))\" x2=\"\(f(px))\" y2=\"\(f(top + height - 3))\" stroke=\"#212121\" stroke-width=\"2\"><title>\(xml(tip))</title></line>\n"
            out += sideLabel(px, top + 12, label, fill: "#212121", cls: "disconnect-label")
        }
        out += "</g>\n"
    }

    mutating func drawTraffic(_ connection: Connection, baseline: Double, maxHeight: Double) {
        guard let bins = traffic.bins[connection.id], !bins.isEmpty else { return }
        // One column per pixel at most: bins that fall on one pixel are summed.
        let pixelsPerSecond = plotWidth / span
        let columnWidth = max(1.0, pixelsPerSecond)
        var columns: [Int: UInt32] = [:]
        for bin in bins {
            let column = Int((x(seconds: Double(bin.second)) - plotLeft) / columnWidth)
            columns[column, default: 0] &+= bin.packets
        }
        let peak = Double(max(peakColumn(columnWidth: columnWidth), 1))
        // A bin is a whole second: draw only the part of it inside the connection.
        let from =
            connection.completion?.status == .success ? connection.completion.map { x($0.time) } ?? plotLeft : plotLeft
        let to = connection.disconnection.map { x($0.time) } ?? plotRight
        var path = ""
        for (column, packets) in columns.sorted(by: { $0.key < $1.key }) {
            let h = max(1.5, maxHeight * (Double(packets) / peak).squareRoot())
            let start = plotLeft + Double(column) * columnWidth
            let x0 = max(start, from)
            let x1 = min(start + columnWidth - (columnWidth > 3 ? 1 : 0), to, plotRight)
            let w = max(1, x1 - x0)
            path += "M\(f(min(x0, plotRight - 1))) \(f(baseline))h\(f(w))v\(f(-h))h\(f(-w))z"
        }
        let total = bins.reduce(0) { $0 + Int($1.packets) }
        out +=
            "<path class=\"traffic\" d=\"\(path)\" fill=\"#f39c12\" fill-opacity=\"0.8\"><title>\(xml("ATT traffic: \(total) PDUs; bars are PDUs per \(columnWidth > 1.5 ? "second" : Wording.duration(columnWidth / pixelsPerSecond)), square-root scale, peak \(Int(peak))"))</title></path>\n"
    }

    /// The busiest column of any connection, so lanes compare.
    func peakColumn(columnWidth: Double) -> UInt32 {
        var peak: UInt32 = 0
        for bins in traffic.bins.values {
            var columns: [Int: UInt32] = [:]
            for bin in bins {
                let column = Int((x(seconds: Double(bin.second)) - plotLeft) / columnWidth)
                columns[column, default: 0] &+= bin.packets
            }
            peak = max(peak, columns.values.max() ?? 0)
        }
        return peak
    }

    mutating func drawErrorTicks(_ list: [TraceError], top: Double, bottom: Double) {
        let items = list.map { error -> (Timestamp, String, String) in
            var what = "\(error.layer.rawValue.uppercased()) \(hex(error.code, digits: 2)) \(error.name)"
            if let request = error.requestName {
                what += error.layer == .att ? " answering \(request)" : " for \(request)"
            }
            if let handle = error.attributeHandle { what += " on \(hex(handle, digits: 4))" }
            if let cb = error.coreBluetooth {
                what += "; CoreBluetooth \(cb.domain) \(cb.code)" + (cb.name.map { " \($0)" } ?? "")
            }
            if error.expected { what += " (expected)" }
            return (error.time, "\(at(error.time)) " + what, error.expected ? "#ef9a9a" : "#d50000")
        }
        for (px, titleText, colour) in bucket(items, preferring: "#d50000") {
            out +=
                "<line class=\"error\" x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(bottom))\" stroke=\"\(colour)\" stroke-width=\"2\"><title>\(xml(titleText))</title></line>\n"
        }
    }

    mutating func drawScan(_ scan: Scan, top: Double) {
        out += "<g class=\"lane scan\">\n"
        laneBackground(top, smallLane, stripe: "#f7f2fb")
        var label = "scan \(scan.id + 1)"
        if let active = scan.active { label += active ? " (active)" : " (passive)" }
        out += text(8, top + 19, label, size: 12, weight: "bold")
        let from = scan.startTime ?? origin
        let to = scan.stopTime ?? report.lastTime ?? origin
        let x0 = x(from), x1 = max(x(to), x0 + 2)
        let names = scan.devices.compactMap(\.name)
        var tip =
            "scan from \(at(from)) to \(scan.stopTime.map(at) ?? "the end of the capture"): \(Wording.count(scan.devices.count, "device")), \(Wording.count(scan.reports, "report"))"
        if !names.isEmpty {
            tip += "; named: " + names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", …" : "")
        }
        out +=
            "<rect class=\"scan-span\" x=\"\(f(x0))\" y=\"\(f(top + 8))\" width=\"\(f(x1 - x0))\" height=\"14\" rx=\"2\" fill=\"#b39ddb\" fill-opacity=\"0.7\"><title>\(xml(tip))</title></rect>\n"
        out += sideLabel(
            x0 + 4, top + 19,
            "\(Wording.count(scan.devices.count, "device")), \(Wording.count(scan.reports, "report"))",
            fill: "#311b92", inside: x1 - x0)
        out += "</g>\n"
    }

    mutating func drawAdvertising(_ set: AdvertisingSet, top: Double) {
        out += "<g class=\"lane advertising\">\n"
        laneBackground(top, smallLane, stripe: "#fdf8e8")
        var label = "advertising \(set.id + 1)"
        if let handle = set.handle { label += " (set \(handle))" }
        out += text(8, top + 19, label, size: 12, weight: "bold")
        let from = set.startTime ?? origin
        let to = set.stopTime ?? report.lastTime ?? origin
        let x0 = x(from), x1 = max(x(to), x0 + 2)
        let name = set.name.map { "“\($0)”" } ?? "no local name"
        out +=
            "<rect class=\"advertising-span\" x=\"\(f(x0))\" y=\"\(f(top + 8))\" width=\"\(f(x1 - x0))\" height=\"14\" rx=\"2\" fill=\"#ffd54f\" fill-opacity=\"0.8\"><title>\(xml("advertising from \(at(from)) to \(set.stopTime.map(at) ?? "the end of the capture"), \(name)"))</title></rect>\n"
        out += sideLabel(x0 + 4, top + 19, name, fill: "#5d4037", inside: x1 - x0)
        out += "</g>\n"
    }

    /// Merges spans closer than a pixel, so the marks stay bounded by the width.
    func mergedSpans(_ spans: [(Timestamp, Timestamp)]) -> [(Double, Double)] {
        var merged: [(Double, Double)] = []
        for (from, to) in spans.sorted(by: { $0.0 < $1.0 }) {
            let x0 = x(from), x1 = max(x(to), x0 + 1.5)
            if let last = merged.last, x0 <= last.1 + 1 {
                merged[merged.count - 1].1 = max(last.1, x1)
            } else {
                merged.append((x0, x1))
            }
        }
        return merged
    }

    mutating func drawScans(_ scans: [Scan], top: Double) {
        out += "<g class=\"lane scans\">\n"
        laneBackground(top, smallLane, stripe: "#f7f2fb")
        out += text(8, top + 19, "scans (\(scans.count), one lane)", size: 12, weight: "bold")
        let end = report.lastTime ?? origin
        let devices = Set(scans.flatMap { $0.devices.map(\.address) }).count
        let reports = scans.reduce(0) { $0 + $1.reports }
        let tip =
            "\(Wording.count(scans.count, "scan")): \(Wording.count(devices, "distinct device")), \(Wording.count(reports, "report"))"
        for (x0, x1) in mergedSpans(scans.map { ($0.startTime ?? origin, $0.stopTime ?? end) }) {
            out +=
                "<rect class=\"scan-span\" x=\"\(f(x0))\" y=\"\(f(top + 8))\" width=\"\(f(x1 - x0))\" height=\"14\" fill=\"#b39ddb\" fill-opacity=\"0.7\"><title>\(xml(tip))</title></rect>"
        }
        out +=
            "\n"
            + text(
                plotRight - 4, top + 19,
                "\(Wording.count(scans.count, "scan")), \(Wording.count(devices, "device")), \(Wording.count(reports, "report"))",
                size: 10,
                fill: "#311b92", anchor: "end")
        out += "</g>\n"
    }

    mutating func drawAdvertisingSets(_ sets: [AdvertisingSet], top: Double) {
        out += "<g class=\"lane advertising-sets\">\n"
        laneBackground(top, smallLane, stripe: "#fdf8e8")
        out += text(8, top + 19, "advertising (\(sets.count), one lane)", size: 12, weight: "bold")
        let end = report.lastTime ?? origin
        let names = Set(sets.compactMap(\.name)).sorted()
        let tip =
            "\(sets.count) advertising periods"
            + (names.isEmpty ? "" : "; names: " + names.prefix(10).joined(separator: ", "))
        for (x0, x1) in mergedSpans(sets.map { ($0.startTime ?? origin, $0.stopTime ?? end) }) {
            out +=
                "<rect class=\"advertising-span\" x=\"\(f(x0))\" y=\"\(f(top + 8))\" width=\"\(f(x1 - x0))\" height=\"14\" fill=\"#ffd54f\" fill-opacity=\"0.8\"><title>\(xml(tip))</title></rect>"
        }
        out += "\n</g>\n"
    }

    mutating func drawAttempts(_ attempts: [Connection], top: Double) {
        out += "<g class=\"lane attempts\">\n"
        laneBackground(top, connectionLane, stripe: "#f5f5f5")
        let failed = attempts.filter { $0.outcome == .failed }.count
        out += text(8, top + 17, "attempts that never connected", size: 12, weight: "bold")
        out += text(
            8, top + 31, "\(attempts.count): \(failed) failed, \(attempts.count - failed) cancelled or pending",
            size: 10, fill: "#555")
        let items = attempts.map { connection -> (Timestamp, String, String) in
            let time = connection.completion?.time ?? connection.cancelTime ?? connection.attempt?.time ?? origin
            var what =
                "#\(connection.id + 1) "
                + (connection.peer.map { "\($0)" + (connection.peerName.map { " \"\($0)\"" } ?? "") }
                    ?? "filter accept list")
                + ": \(connection.outcome.rawValue)"
            if connection.outcome == .failed, let status = connection.completion?.status {
                what += " \(hex(status.rawValue, digits: 2)) \(status.name ?? "")"
            }
            return (time, "\(at(time)) " + what, connection.outcome == .failed ? "#c62828" : "#757575")
        }
        let cy = top + connectionLane / 2 + 2
        for (px, titleText, colour) in bucket(items, preferring: "#c62828") {
            out +=
                "<path class=\"attempt-end\" d=\"M\(f(px - 4)) \(f(cy - 4))l8 8m0 -8l-8 8\" stroke=\"\(colour)\" stroke-width=\"2\"><title>\(xml(titleText))</title></path>\n"
        }
        out += "</g>\n"
    }

    mutating func drawHostErrors(_ list: [TraceError], top: Double) {
        out += "<g class=\"lane host-errors\">\n"
        laneBackground(top, smallLane, stripe: "#fff3f3")
        out += text(8, top + 19, "other errors (\(list.count))", size: 12, weight: "bold")
        drawErrorTicks(list, top: top + 5, bottom: top + smallLane - 5)
        out += "</g>\n"
    }

    // MARK: Legend

    mutating func drawLegend(top: Double) {
        out += "<g class=\"legend\" font-size=\"11\">\n"
        out += text(12, top + 12, "Legend", size: 12, weight: "bold")
        var lx = 80.0
        var ly = top
        func next(_ label: String) -> Double {
            let start = lx
            lx += 36 + Double(label.count) * 6.4
            if lx > width - 20 {
                lx = 80 + 36 + Double(label.count) * 6.4
                ly += 22
                return 80
            }
            return start
        }
        let items: [(String, (Double, Double) -> String)] = [
            (
                "attempt",
                { x, y in
                    "<line x1=\"\(f(x))\" y1=\"\(f(y + 8))\" x2=\"\(f(x + 22))\" y2=\"\(f(y + 8))\" stroke=\"#777\" stroke-width=\"3\"/>"
                }
            ),
            (
                "connected (open at the end)",
                { x, y in "<rect x=\"\(f(x))\" y=\"\(f(y + 2))\" width=\"22\" height=\"12\" rx=\"2\" fill=\"#2e9d5b\"/>"
                }
            ),
            (
                "connected, then disconnected",
                { x, y in "<rect x=\"\(f(x))\" y=\"\(f(y + 2))\" width=\"22\" height=\"12\" rx=\"2\" fill=\"#3b74c4\"/>"
                }
            ),
            (
                "attempt failed",
                { x, y in "<path d=\"M\(f(x + 7)) \(f(y + 4))l8 8m0 -8l-8 8\" stroke=\"#c62828\" stroke-width=\"2\"/>" }
            ),
            (
                "disconnection: reason · who",
                { x, y in
                    "<line x1=\"\(f(x + 11))\" y1=\"\(f(y))\" x2=\"\(f(x + 11))\" y2=\"\(f(y + 16))\" stroke=\"#212121\" stroke-width=\"2\"/>"
                }
            ),
            (
                "GATT discovery",
                { x, y in
                    "<rect x=\"\(f(x))\" y=\"\(f(y + 1))\" width=\"22\" height=\"14\" fill=\"#8e44ad\" fill-opacity=\"0.35\" stroke=\"#8e44ad\"/>"
                }
            ),
            ("subscription (CCCD)", { x, y in "<path d=\"M\(f(x + 11)) \(f(y + 13))l-5 -9h10z\" fill=\"#00897b\"/>" }),
            ("parameters", { x, y in "<circle cx=\"\(f(x + 11))\" cy=\"\(f(y + 8))\" r=\"4\" fill=\"#f9a825\"/>" }),
            ("PHY", { x, y in "<circle cx=\"\(f(x + 11))\" cy=\"\(f(y + 8))\" r=\"4\" fill=\"#0097a7\"/>" }),
            ("data length", { x, y in "<circle cx=\"\(f(x + 11))\" cy=\"\(f(y + 8))\" r=\"4\" fill=\"#795548\"/>" }),
            ("encryption", { x, y in "<circle cx=\"\(f(x + 11))\" cy=\"\(f(y + 8))\" r=\"4\" fill=\"#3949ab\"/>" }),
            (
                "error (hover for name)",
                { x, y in
                    "<line x1=\"\(f(x + 11))\" y1=\"\(f(y))\" x2=\"\(f(x + 11))\" y2=\"\(f(y + 16))\" stroke=\"#d50000\" stroke-width=\"2\"/>"
                }
            ),
            (
                "expected error",
                { x, y in
                    "<line x1=\"\(f(x + 11))\" y1=\"\(f(y))\" x2=\"\(f(x + 11))\" y2=\"\(f(y + 16))\" stroke=\"#ef9a9a\" stroke-width=\"2\"/>"
                }
            ),
            (
                "ATT traffic / s",
                { x, y in
                    "<path d=\"M\(f(x + 2)) \(f(y + 15))h4v-6h-4zM\(f(x + 8)) \(f(y + 15))h4v-12h-4zM\(f(x + 14)) \(f(y + 15))h4v-4h-4z\" fill=\"#f39c12\"/>"
                }
            ),
            (
                "scan",
                { x, y in "<rect x=\"\(f(x))\" y=\"\(f(y + 2))\" width=\"22\" height=\"12\" rx=\"2\" fill=\"#b39ddb\"/>"
                }
            ),
            (
                "advertising",
                { x, y in "<rect x=\"\(f(x))\" y=\"\(f(y + 2))\" width=\"22\" height=\"12\" rx=\"2\" fill=\"#ffd54f\"/>"
                }
            ),
        ]
        for (label, swatch) in items {
            let start = next(label)
            out += swatch(start, ly) + text(start + 27, ly + 12, label, size: 11, fill: "#333") + "\n"
        }
        out += "</g>\n"
    }

    // MARK: Helpers

    /// Marks closer than 3 pixels share one mark, whose tooltip lists the first few.
    func bucket(_ items: [(Timestamp, String, String)], preferring preferred: String? = nil) -> [(
        Double, String, String
    )] {
        var groups: [Int: (x: Double, titles: [String], count: Int, colour: String)] = [:]
        for (time, title, colour) in items {
            let px = x(time)
            let key = Int(px / 3)
            if var group = groups[key] {
                if group.titles.count < 6 { group.titles.append(title) }
                group.count += 1
                if colour == preferred { group.colour = colour }
                groups[key] = group
            } else {
                groups[key] = (px, [title], 1, colour)
            }
        }
        return groups.sorted { $0.key < $1.key }.map { _, group in
            var title = group.titles.joined(separator: "\n")
            if group.count > group.titles.count { title += "\n… and \(group.count - group.titles.count) more" }
            return (group.x, title, group.colour)
        }
    }

    static func describe(_ kind: Connection.Change.Kind) -> (String, String) {
        func phy(_ value: UInt8) -> String { LEPHY(rawValue: value).shortName }
        switch kind {
        case .parameters(let interval, let latency, let timeout):
            return (
                "parameters: interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10))",
                "#f9a825"
            )
        case .dataLength(let tx, let rx): return ("data length: \(tx) bytes out, \(rx) in", "#795548")
        case .phy(let tx, let rx): return ("PHY: \(phy(tx)) out, \(phy(rx)) in", "#0097a7")
        case .encryption(let enabled, let keySize):
            return (
                enabled ? "encryption on" + (keySize.map { " (key size \($0))" } ?? "") : "encryption off", "#3949ab"
            )
        case .keyRefresh: return ("encryption key refreshed", "#3949ab")
        case .failed(let what, let status):
            return ("\(what) failed: \(hex(status.rawValue, digits: 2)) \(status.name ?? "")", "#d50000")
        case .serviceChanged(let start, let end):
            return ("Service Changed: \(hex(start, digits: 4))-\(hex(end, digits: 4)) to rediscover", "#6a1b9a")
        }
    }

    func at(_ time: Timestamp) -> String { Wording.sinceStart(time, origin: origin, decimals: 3) + " s" }

    /// A label beside a mark, turned to the left of it near the right edge; `inside` is the
    /// width of a bar the label sits in, to keep it in.
    func sideLabel(_ px: Double, _ py: Double, _ label: String, fill: String, cls: String? = nil, inside: Double? = nil)
        -> String
    {
        let estimated = Double(label.count) * 6
        if let inside, estimated > inside - 6, px + estimated > plotRight {
            return text(px - 8, py, label, size: 10, fill: fill, anchor: "end", cls: cls)
        }
        if px + estimated + 6 > plotRight {
            return text(px - 5, py, label, size: 10, fill: fill, anchor: "end", cls: cls)
        }
        return text(px + (inside == nil ? 5 : 0), py, label, size: 10, fill: fill, cls: cls)
    }

    func text(
        _ px: Double, _ py: Double, _ content: String, size: Double, fill: String = "#222", weight: String? = nil,
        anchor: String? = nil, cls: String? = nil
    ) -> String {
        var attributes = "x=\"\(f(px))\" y=\"\(f(py))\" font-size=\"\(f(size))\" fill=\"\(fill)\""
        if let weight { attributes += " font-weight=\"\(weight)\"" }
        if let anchor { attributes += " text-anchor=\"\(anchor)\"" }
        if let cls { attributes += " class=\"\(cls)\"" }
        return "<text \(attributes)>\(xml(content))</text>"
    }

}

/// A coordinate with at most one decimal.
private func f(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
}
