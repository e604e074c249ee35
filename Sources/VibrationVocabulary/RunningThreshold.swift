/// The vibration above which a machine counts as running (`running_threshold`): a velocity in
/// mm/s RMS over the ``VelocityBand``, or an acceleration in g RMS.
///
/// Velocity suits motors and pumps (it is what ISO judges); acceleration suits machines whose
/// vibration lies below the velocity band's 10 Hz or above its top at a low rate, such as a
/// washer's slow drum at 100 Hz ODR.
public struct RunningThreshold: Sendable, Hashable, CustomStringConvertible {
    /// What the threshold is compared with.
    public enum Unit: String, Sendable, Hashable, CaseIterable {
        /// Broadband RMS velocity, mm/s.
        case millimetresPerSecond = "mm/s"
        /// RMS acceleration, gravity removed, g.
        case gravities = "g"
    }

    /// The threshold in ``unit``: positive and finite.
    public let value: Double
    /// Which figure it is compared with.
    public let unit: Unit

    /// The default: 1 mm/s, against the overall (root-sum-square) velocity. A still ADXL345's
    /// own noise reads up to about 0.4 mm/s on its noisiest axis and 0.4–0.5 mm/s for the vector
    /// in the velocity band, at 100 Hz as at 800 Hz (`plumb-bench vibration`): its noise density
    /// is flat and the band's low end, where 1/2πf is largest, dominates. With the default
    /// hysteresis 1 mm/s stops at 0.75 mm/s, clear of that (at 0.5 mm/s, stopping at 0.375, a
    /// still chip never stopped in 10 minutes), and is below any running motor.
    public static let `default` = RunningThreshold(uncheckedValue: 1, unit: .millimetresPerSecond)

    /// Fails unless `value` is positive and finite.
    public init?(value: Double, unit: Unit) {
        guard value.isFinite, value > 0 else { return nil }
        self.init(uncheckedValue: value, unit: unit)
    }

    private init(uncheckedValue value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Parses `0.5 mm/s`, `0.5mm/s` or `0.02 g`; a bare number is mm/s.
    public init(parsing text: String) throws(RunningThresholdParseError) {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw RunningThresholdParseError(text: text, reason: .empty) }
        let numberEnd = trimmed.firstIndex { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E") }
            ?? trimmed.endIndex
        let number = trimmed[..<numberEnd]
        let unitText = trimmed[numberEnd...].trimmingSpaces
        guard let value = Double(number) else { throw RunningThresholdParseError(text: text, reason: .missingNumber) }
        let unit: Unit
        if unitText.isEmpty {
            unit = .millimetresPerSecond
        } else if let named = Unit(rawValue: unitText) {
            unit = named
        } else {
            throw RunningThresholdParseError(text: text, reason: .unknownUnit(unitText))
        }
        guard let threshold = RunningThreshold(value: value, unit: unit) else {
            throw RunningThresholdParseError(text: text, reason: .notPositive)
        }
        self = threshold
    }

    /// `0.5 mm/s`, `0.02 g`: what ``init(parsing:)`` reads back.
    public var description: String {
        "\(value.shortDescription) \(unit.rawValue)"
    }
}

/// Why a text is not a ``RunningThreshold``; the ``description`` says what to type instead.
public struct RunningThresholdParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case empty
        case missingNumber
        case unknownUnit(String)
        case notPositive
    }

    /// The text as given.
    public let text: String
    public let reason: Reason

    public var description: String {
        let problem = switch reason {
        case .empty: "it is empty"
        case .missingNumber: "it does not start with a number"
        case .unknownUnit(let unit): "\"\(unit)\" is not a unit"
        case .notPositive: "it must be positive and finite"
        }
        return "\"\(text)\" is not a running threshold: \(problem). Write a velocity such as \"0.5 mm/s\" or an"
            + " acceleration such as \"0.02 g\" (a bare number is mm/s)."
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

extension Double {
    /// The shortest text that reads back as this value: `0.5`, `2`, not `2.0`.
    var shortDescription: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : "\(self)"
    }
}
