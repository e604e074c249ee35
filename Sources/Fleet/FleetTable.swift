import FoundationEssentials
import Geometry

/// The fleet as a table for people: one header line, then a row per device in the listing order.
///
/// Columns: PROBLEM, ID, NAME, SITE, STATUS, LEVEL, TILT (in the device's unit), STABLE, SENSOR,
/// RUNNING, ZONE, AGE (of the last state), VERSION, CALIBRATED, NOTES (the topics whose payload
/// could not be read). A cell is empty when its topic is missing; RUNNING and ZONE are empty for
/// a device without vibration analysis, and RUNNING is `?` while the agent has not decided.
public struct FleetTable: Sendable {
    public var devices: [FleetDevice]
    /// The time ages are measured to.
    public var now: Date

    public init(devices: [FleetDevice], now: Date) {
        self.devices = devices
        self.now = now
    }

    static let headers = ["PROBLEM", "ID", "NAME", "SITE", "STATUS", "LEVEL", "TILT", "STABLE", "SENSOR", "RUNNING",
                          "ZONE", "AGE", "VERSION", "CALIBRATED", "NOTES"]

    /// The header and one line per device, columns padded to their widest cell, trailing spaces
    /// trimmed.
    public var lines: [String] {
        let rows = [Self.headers] + devices.map(cells)
        var widths = [Int](repeating: 0, count: Self.headers.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - cell.count + 2) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The cells of one device's row.
    func cells(_ device: FleetDevice) -> [String] {
        [
            device.problem?.text ?? "",
            device.id,
            device.name?.sanitisedForDisplay() ?? "",
            device.site ?? "",
            device.online.map { $0 ? "online" : "offline" } ?? "",
            Self.yesNo(device.level),
            Self.tilt(device),
            Self.yesNo(device.stable),
            device.sensor?.sanitisedForDisplay(limit: 8) ?? "",
            device.hasVibration ? device.running.map { $0 ? "yes" : "no" } ?? "?" : "",
            device.zone?.sanitisedForDisplay(limit: 4) ?? "",
            device.stateAge(at: now).map(Self.age) ?? "",
            device.version?.sanitisedForDisplay(limit: 24) ?? "",
            Self.calibrated(device),
            device.malformed.isEmpty ? "" : "malformed " + device.malformed.sorted().map(\.rawValue).joined(separator: ","),
        ]
    }

    static func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "" }

    /// The tilt with its unit's sign (`0.12°`, `2.1 mm/m`), at most the unit's display decimals; the unit as written for
    /// one this version does not know.
    static func tilt(_ device: FleetDevice) -> String {
        guard let tilt = device.tilt, tilt.isFinite else { return "" }
        guard let unit = device.unit.flatMap(AngleUnit.init(rawValue:)) else {
            return String(tilt) + (device.unit.map { " " + $0.sanitisedForDisplay(limit: 12) } ?? "")
        }
        let number = plain(tilt, unit.displayDecimals)
        return unit == .deg || unit == .percent ? number + unit.symbol : number + " " + unit.symbol
    }

    /// An age in the largest whole unit: `12s`, `5m`, `3h`, `2d`; `0s` for a clock ahead of ours.
    static func age(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds).rounded(.down))
        switch whole {
        case ..<120: return "\(whole)s"
        case ..<7200: return "\(whole / 60)m"
        case ..<172_800: return "\(whole / 3600)h"
        default: return "\(whole / 86400)d"
        }
    }

    /// The calibration's day (`2026-11-30`), `none` when the device reads raw, empty without the
    /// topic.
    static func calibrated(_ device: FleetDevice) -> String {
        guard device.present.contains(.calibration), !device.malformed.contains(.calibration) else { return "" }
        guard device.calibrationMethod != nil else { return "none" }
        guard let date = device.calibrationDate else { return "?" }
        return String(date.prefix(10)).sanitisedForDisplay(limit: 10)
    }
}
