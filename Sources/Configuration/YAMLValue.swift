import Settings
/// A scalar's value under the YAML 1.2 core schema: a plain scalar's type comes from its text
/// (`16` is an integer, `true` a boolean, `~` null); a quoted one is always a string.
///
/// YAML 1.1's `yes`/`no`/`on`/`off` are strings here, as in YAML 1.2, so `discovery: no` is
/// refused as a wrong type (with a hint) instead of silently meaning false.
enum YAMLValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// A finite or non-finite float (`.inf`, `.nan` are floats in the core schema).
    case float(Double)
    case string(String)

    init(_ scalar: YAMLScalar) {
        guard scalar.isPlain else {
            self = .string(scalar.text)
            return
        }
        let text = scalar.text
        switch text {
        case "", "~", "null", "Null", "NULL":
            self = .null
        case "true", "True", "TRUE":
            self = .bool(true)
        case "false", "False", "FALSE":
            self = .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
            self = .float(.infinity)
        case "-.inf", "-.Inf", "-.INF":
            self = .float(-.infinity)
        case ".nan", ".NaN", ".NAN":
            self = .float(.nan)
        default:
            if let integer = Self.integer(text) {
                self = .int(integer)
            } else if DecimalText.isDecimal(text), let value = Double(text) {
                self = .float(value)
            } else {
                self = .string(text)
            }
        }
    }

    /// Core-schema integers: `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`.
    private static func integer(_ text: String) -> Int? {
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// "an integer (16)", for "found …" in a message.
    var kindDescription: String {
        switch self {
        case .null: "nothing (null)"
        case .bool(let value): "a boolean (\(value))"
        case .int(let value): "an integer (\(value))"
        case .float(let value): "a number (\(value))"
        case .string(let value): "the text \"\(value.truncatedForMessage)\""
        }
    }
}
