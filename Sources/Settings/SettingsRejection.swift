/// Why a desired config was refused. Nothing of it was applied.
///
/// The agent publishes exactly these three fields in its `config_rejected` event, so each is
/// meant for the person or automation that sent the message.
public struct SettingsRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The live key concerned, or nil when the message as a whole was refused (not JSON, too
    /// large, not an object).
    public let key: String?
    /// The offending value as text, at most 100 characters (cut with `…`), or nil.
    public let value: String?
    /// What is wrong and what is accepted.
    public let reason: String

    /// Whether the value had the wrong type (text for a number), as opposed to a wrong value;
    /// the config file reports the two differently.
    package let isWrongType: Bool

    public init(key: String?, value: String?, reason: String) {
        self.init(key: key, value: value, reason: reason, isWrongType: false)
    }

    init(key: String?, value: String?, reason: String, isWrongType: Bool) {
        self.key = key
        self.value = value?.truncatedForMessage
        self.reason = reason
        self.isWrongType = isWrongType
    }

    init(_ key: LiveKey?, value: String?, reason: String, isWrongType: Bool = false) {
        self.init(key: key?.rawValue, value: value, reason: reason, isWrongType: isWrongType)
    }

    // The three published fields are the rejection.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value && lhs.reason == rhs.reason
    }

    /// `level_tolerance = "50": 50° is out of range …`.
    public var description: String {
        var head = key ?? "config"
        if let value { head += " = \"\(value)\"" }
        return head + ": " + reason
    }
}
