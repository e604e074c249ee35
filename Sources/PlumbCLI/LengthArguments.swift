import Geometry
import Ruler

/// Lengths and units as the ruler commands take them on the command line, with messages that
/// name the flag or argument at fault.
enum LengthArgument {
    /// `mm, cm, m, in or ft`, for messages.
    static let physicalUnits = orList(LengthUnit.allCases.map(\.symbol))
    /// `mm, cm, m, in, ft or px`, for messages.
    static let allUnits = orList(RulerUnit.allCases.map(\.symbol))

    /// `a, b or c`.
    static func orList(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The physical length `text` says (`30cm`, `1 3/16in`, `1-3/16 in`, `12'`), checked to be
    /// greater than 0 and at most 1 km.
    ///
    /// - Parameters:
    ///   - name: what the text is, to start a message: `--length`, `the span`.
    ///   - unit: the unit a bare number is in (from `--unit`), and the unit a written one must
    ///     agree with; nil when the command has no `--unit` or it was not given.
    ///   - example: how to write it, to end a message: `--length 1.2m`.
    /// - Throws: ``UsageError`` saying what is wrong and what to type instead.
    static func positive(_ text: String, naming name: String, unit: LengthUnit?,
                         example: String) throws(UsageError) -> Length {
        let written: LengthText
        do {
            written = try LengthText(parsing: text)
        } catch {
            throw UsageError("\(name): \(error.description)")
        }
        let resolved: LengthUnit
        switch written.unit {
        case nil:
            guard let unit else {
                throw UsageError("\(name) '\(text)' has no unit; write it with one (\(physicalUnits)),"
                    + " such as '\(example)'.")
            }
            resolved = unit
        case .px?:
            throw UsageError("\(name) must be a physical length in \(physicalUnits); px is not one."
                + " Give, for example, '\(example)'.")
        case .length(let own)?:
            if let unit, unit != own {
                throw UsageError("\(name) is written in \(own.symbol) but --unit says \(unit.symbol);"
                    + " give one unit or make them agree.")
            }
            resolved = own
        }
        do {
            return try Length(written.value, resolved).checkedPositive(naming: name)
        } catch {
            throw UsageError(error.message)
        }
    }

    /// The shortest text that reads back as `length` exactly, for a request to the service:
    /// `1.1875 in`.
    static func requestText(_ length: Length) -> String { "\(length.value) \(length.unit.symbol)" }

    /// Digits after the point for a measured length (a rise, a shim): a micrometre or finer,
    /// what the level can mean and no more.
    static func measuredDecimals(_ unit: LengthUnit) -> Int {
        switch unit {
        case .mm: 3
        case .cm: 4
        case .m: 6
        case .in: 5
        case .ft: 6
        }
    }

    /// An exact length for people, to the service's 6 decimals without trailing zeros:
    /// `30.1625 mm`; `+250 mm` with `signed`.
    static func text(_ value: Double, _ unit: LengthUnit, signed: Bool = false) -> String {
        plain(value, 6, signed: signed) + " " + unit.symbol
    }

    /// A measured length for people, to ``measuredDecimals(_:)``: `17.455 mm`.
    static func measured(_ value: Double, _ unit: LengthUnit, signed: Bool = false) -> String {
        fixed(value, measuredDecimals(unit), signed: signed) + " " + unit.symbol
    }

    /// `length` in every unit: `300 mm, 30 cm, 0.3 m, 11.811024 in, 0.984252 ft`.
    static func everyUnit(_ length: Length) -> String {
        LengthUnit.allCases.map { text(length.converted(to: $0).value, $0) }.joined(separator: ", ")
    }
}

extension ParsedArguments {
    /// The physical unit option `name` (`--unit`, `--result-unit`, `--px-unit`); nil when absent.
    func lengthUnit(_ name: String) throws(UsageError) -> LengthUnit? {
        guard let text = string(name) else { return nil }
        guard let unit = RulerUnit(parsing: text)?.lengthUnit else {
            throw UsageError("\(name) takes a length unit, one of \(LengthArgument.physicalUnits); got '\(text)'.")
        }
        return unit
    }

    /// The positional arguments joined by spaces, so that `1 3/16in` typed without quotes reads
    /// as the one length it is.
    var joinedPositionals: String { positionals.joined(separator: " ") }
}
