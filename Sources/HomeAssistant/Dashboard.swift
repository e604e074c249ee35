import Contract
import Geometry
import Settings

/// The Lovelace dashboard view for one device, as `plumb dashboard` prints it: standard cards
/// only, naming the device's entities by the ids Home Assistant gives them.
///
/// Home Assistant names a newly discovered entity `<component>.<slug of "<device name> <entity
/// name>">` (entity ids are never derived again: a later rename keeps them), so the ids follow
/// from the device's `name` and the entities' names in ``Discovery``. Pure: the caller supplies
/// the settings in force.
public enum Dashboard {
    /// The view's YAML: readings and level, their history, vibration (while `vibration` is on),
    /// the settings and the answer to every press, diagnostics, calibration.
    public static func yaml(topics: Topics, deviceID: String, settings: LiveSettings) -> String {
        let entities = Dictionary(Discovery.entities(topics: topics, settings: settings).map { ($0.objectID, $0) }) { first, _ in first }
        func id(_ objectID: String) -> String {
            guard let entity = entities[objectID], case .string(let name)? = entity.options["name"] else {
                preconditionFailure("the dashboard names \(objectID), which discovery does not announce")
            }
            return entityID(component: entity.component, deviceName: settings.name, entityName: name)
        }
        func name(_ objectID: String) -> String {
            if case .string(let name)? = entities[objectID]?.options["name"] { return name }
            return objectID
        }
        var lines = [
            "# The Home Assistant dashboard view of \(settings.name) (device id \(deviceID)), printed by",
            "# `plumb dashboard`: its entity ids are the ones Home Assistant gives a device of this name.",
            "# Paste it under `views:` (Dashboard > ⋮ > Edit dashboard > ⋮ > Raw configuration editor).",
            "# An entity renamed in Home Assistant keeps its id; one whose id was changed there must be",
            "# changed here too (Settings > Devices & services > Devices lists them).",
            "title: " + quoted(settings.name),
            "path: " + quoted(path(settings.name)),
            "icon: mdi:angle-acute",
            "cards:",
            "  # The live picture: the bubble on the high side, green when level, amber otherwise.",
            "  - type: picture-entity",
            "    entity: " + id("bubble"),
            "    # live: the camera's MJPEG stream, a new frame as soon as the agent sends one.",
            "    camera_view: live",
            "    # The picture is square; the card is 16:9 unless told, which would crop the bubble.",
            "    aspect_ratio: \"1:1\"",
            "    show_name: false",
            "    show_state: false",
        ]
        func rows(_ objects: [(String, String?)], indent: String = "      ") -> [String] {
            objects.flatMap { object, label -> [String] in
                object == divider ? [indent + "- type: divider"]
                    : [indent + "- entity: " + id(object), indent + "  name: " + quoted(label ?? name(object))]
            }
        }
        func card(_ type: String, title: String, extra: [String] = [], _ objects: [(String, String?)]) -> [String] {
            ["  - type: " + type, "    title: " + quoted(title)] + extra.map { "    " + $0 } + ["    entities:"] + rows(objects)
        }
        lines.append("  # The readings and the level state at a glance: the angles in degrees, the slope in \(settings.angleUnit.symbol).")
        // Three columns: five in a card of the narrowest layout column (about 290 px) cut "34.19 mm/m"
        // and "2.06 mm/s" to "34.19 …"; three show the longest value of every unit whole.
        let glanceColumns = "columns: 3"
        lines += card("glance", title: "Level", extra: [glanceColumns], [
            ("level", "Level"), ("alarm", "Alarm"), ("tilt_deg", "Tilt"), ("slope", "Slope"), ("roll_deg", "Roll"),
            ("pitch_deg", "Pitch"), ("uncertainty_deg", "±"), ("temperature", "Temp."),
        ])
        lines += card("history-graph", title: "Tilt, last 24 h", extra: ["hours_to_show: 24"],
                      [("tilt_deg", "Tilt"), ("roll_deg", "Roll"), ("pitch_deg", "Pitch")])
        lines += card("history-graph", title: "Level and alarm, last 7 days", extra: ["hours_to_show: 168"],
                      [("level", "Level"), ("alarm", "Alarm")])
        if settings.isVibrationEnabled {
            lines.append("  # The machine's vibration: whether it runs, its ISO 10816 zone and the figures behind it.")
            lines += card("glance", title: "Vibration", extra: [glanceColumns], [
                ("running", "Running"), ("vibration_zone", "Zone"), ("velocity_rms", "Velocity"),
                ("acceleration_rms", "Accel."), ("dominant_frequency", "Freq."),
            ])
            lines += card("history-graph", title: "Velocity and running, last 24 h", extra: ["hours_to_show: 24"],
                          [("velocity_rms", "Velocity"), ("running", "Running")])
        }
        lines.append("  # The live settings (thresholds in degrees), the zero, and the answer to the latest press.")
        var settingRows: [(String, String?)] = [
            ("level_tolerance", nil), ("level_hysteresis", nil), ("alarm_threshold", nil), ("angle_unit", nil),
            ("mount", nil), ("filter", nil), (divider, nil), ("vibration", nil),
        ]
        if settings.isVibrationEnabled { settingRows += [("vibration_class", nil), ("running_threshold", nil)] }
        settingRows += [(divider, nil), ("zero", nil), ("clear_zero", nil), ("last_result", nil), ("event", "Last event")]
        lines += card("entities", title: "Settings", extra: ["show_header_toggle: false"], settingRows)
        lines.append("  # Is the device healthy? From its health message, every 60 s.")
        lines += card("entities", title: "Diagnostics", extra: ["show_header_toggle: false"], [
            ("sample_rate", nil), ("i2c_errors", nil), ("reconnects", nil), ("inbound_stalls", nil),
            ("dropped_samples", nil), ("uptime", nil), ("temperature_source", nil), ("temperature_age", nil),
        ])
        lines.append("  # The calibration in force (none, or its method), the reversal, the six-point tumble, the")
        lines.append("  # self-test and drift learning; each press is answered in Last result.")
        lines += card("entities", title: "Calibration", extra: ["show_header_toggle: false"], [
            ("calibration", nil), ("calibrate_reversal_first", "Reversal: first reading"),
            ("calibrate_reversal_second", "Reversal: second reading"), ("calibrate_six_point_start", "Six-point: start"),
            ("calibrate_six_point_next", "Six-point: next face"), ("calibrate_six_point_cancel", "Six-point: cancel"),
            ("selftest", nil), ("learn_drift_start", nil), ("learn_drift_stop", "Learn drift: stop"),
            ("learn_drift_cancel", nil), ("last_result", nil),
        ])
        return lines.joined(separator: "\n") + "\n"
    }

    /// The view's URL path: the name's slug with `-`, or `plumb` for a name with no letter or
    /// digit Plumb can write.
    static func path(_ name: String) -> String {
        let slug = slug(name)
        return slug.isEmpty ? "plumb" : String(slug.map { $0 == "_" ? "-" : $0 })
    }

    /// Whether `name` holds a letter ``slug(_:)`` cannot write as Home Assistant does (Cyrillic,
    /// Greek, CJK, …: Home Assistant transliterates them to Latin letters): the ids printed
    /// would then not be Home Assistant's.
    public static func hasLettersBeyondSlug(_ name: String) -> Bool {
        name.lowercased().unicodeScalars.contains { scalar in
            !scalar.isASCII && transliterations[scalar] == nil && LatinLetter.base(of: scalar) == nil
                && scalar.properties.isAlphabetic
        }
    }

    /// A row that is a divider, not an entity.
    static let divider = "-"

    /// `sensor.plumb_lathe_tilt_deg`: the id Home Assistant gives a new entity of `component`
    /// named `entityName` on a device named `deviceName`.
    public static func entityID(component: String, deviceName: String, entityName: String) -> String {
        component + "." + slug(deviceName + " " + entityName)
    }

    /// Home Assistant's slugify (python-slugify with its unidecode, `_` as separator): letters
    /// transliterated to ASCII, lower case, every run of anything else one `_`, none at either end.
    /// The transliterations here are those Plumb's names and most device names need (accents,
    /// `°` → `deg`, `²` → `2`, `ß` → `ss`, …); a character with none is dropped, where unidecode
    /// might have written something.
    public static func slug(_ text: String) -> String {
        var ascii = ""
        // As python-slugify: a comma between digits goes (1,5 is 15), before anything else.
        let scalars = Array(text.lowercased().unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if scalar == ",", index > 0, index + 1 < scalars.count,
               scalars[index - 1].properties.numericType != nil, scalars[index + 1].properties.numericType != nil {
                continue
            }
            if scalar.isASCII {
                ascii.unicodeScalars.append(scalar)
            } else if let written = transliterations[scalar] {
                ascii += written
            } else if let base = LatinLetter.base(of: scalar) {
                ascii.unicodeScalars.append(base)  // é is e
            } else if scalar.properties.generalCategory == .nonspacingMark {
                continue  // a combining accent on the letter before it
            } else {
                ascii += " "
            }
        }
        var result = ""
        var pendingSeparator = false
        for character in ascii {
            if character.isLetter || character.isNumber {
                if pendingSeparator, !result.isEmpty { result += "_" }
                pendingSeparator = false
                result.append(character)
            } else {
                pendingSeparator = true
            }
        }
        return result
    }

    static let transliterations: [Unicode.Scalar: String] = [
        "°": "deg", "²": "2", "³": "3", "¹": "1", "µ": "u", "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "đ": "d",
        "ł": "l", "þ": "th", "ð": "d", "±": " ", "×": "x", "º": "o", "ª": "a", "№": "no", "½": " 1/2", "¼": " 1/4",
        "¾": " 3/4", "\u{2019}": "", "\u{2018}": "",
    ]

    /// A YAML double-quoted scalar: `"Plumb lathe"`, with `\` and `"` escaped and control
    /// characters written as escapes, so any device name is one valid string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// The base letter of an accented Latin letter (é → e), from its Unicode name ("LATIN SMALL
/// LETTER E WITH ACUTE"): what NFD followed by dropping the marks gives.
private enum LatinLetter {
    static func base(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        guard let name = scalar.properties.name else { return nil }
        let words = name.split(separator: " ")
        // LATIN (SMALL|CAPITAL) LETTER X WITH …
        guard words.count >= 6, words[0] == "LATIN", words[2] == "LETTER", words[4] == "WITH", words[3].count == 1,
              let base = words[3].unicodeScalars.first, base.isASCII else { return nil }
        return words[1] == "SMALL" ? Unicode.Scalar(UInt8(ascii: base) | 0x20) : base
    }
}

private extension UInt8 {
    init(ascii scalar: Unicode.Scalar) { self = UInt8(truncatingIfNeeded: scalar.value) }
}
