import FoundationEssentials
import Geometry
#if canImport(Glibc)
import Glibc
#endif

/// A command-line mistake: printed with the command's usage, exit status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// What was wrong and what to type instead.
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A failure while doing the work (the sensor, the bus): printed alone, exit status 1.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The process exit status.
    public let exitCode: Int32
    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
    public var description: String { message }
}

/// One option a command accepts.
struct OptionSpec: Sendable {
    /// `--rate`.
    let name: String
    /// `HZ`; nil for a flag that takes no value.
    let valueName: String?
    /// One line of help.
    let help: String

    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    /// `--help`, which every command takes (see ``Subcommand``).
    static let help = flag("--help", "Show this help.")
}

/// What a command line said, checked against the command's option list.
struct ParsedArguments {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments`; `--name value`, `--name=value` and bare flags. Anything not in `specs`
    /// is an error naming the closest valid option, never silently ignored.
    init(_ arguments: [String], specs: [OptionSpec], maxPositionals: Int = 0) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positionals.append(contentsOf: remaining)
                break
            }
            // A number is a positional even with a minus sign and a unit after it ("-5", "-1.2m"),
            // so a negative length gets the length's own message rather than "unknown option".
            let numeric = Double(argument) != nil || argument.dropFirst().first.map { $0.isASCII && $0.isNumber } == true
            guard argument.hasPrefix("-"), argument.count > 1, !numeric else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(name)'." + Self.suggestion(for: name, in: specs))
            }
            if spec.valueName == nil {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value.") }
                flags.insert(name)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw UsageError("\(name) needs a value: \(name) \(spec.valueName!).")
            }
            guard values[name] == nil else { throw UsageError("\(name) is given twice; give it once.") }
            values[name] = value
        }
        guard positionals.count <= maxPositionals else {
            throw UsageError("unexpected argument '\(positionals[maxPositionals])'.")
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// Whether the option was given at all: a flag, or an option with its value.
    func given(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    func string(_ name: String) -> String? { values[name] }

    /// A finite number, optionally within `range`.
    func double(_ name: String, in range: ClosedRange<Double>? = nil, what: String = "a number") throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let value = Double(text.trimmingWhitespace), value.isFinite else {
            throw UsageError("\(name) takes \(what); '\(text)' is not one.")
        }
        if let range, !range.contains(value) {
            throw UsageError("\(name) must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)); got \(text).")
        }
        return value
    }

    /// A whole number within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text.trimmingWhitespace) else {
            throw UsageError("\(name) takes a whole number; '\(text)' is not one.")
        }
        guard range.contains(value) else {
            throw UsageError("\(name) must be between \(range.lowerBound) and \(range.upperBound); got \(value).")
        }
        return value
    }

    /// Three comma-separated numbers (`X,Y,Z`), or one applied to all three axes when `allowSingle`.
    func triple(_ name: String, allowSingle: Bool, in range: ClosedRange<Double>) throws(UsageError) -> [Double]? {
        guard let text = values[name] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingWhitespace) }
        let shapes = allowSingle ? "one number or three (X,Y,Z)" : "three numbers X,Y,Z"
        guard parts.count == 3 || (allowSingle && parts.count == 1),
              parts.allSatisfy({ $0 != nil && $0!.isFinite && range.contains($0!) })
        else {
            throw UsageError("\(name) takes \(shapes) between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)); got '\(text)'.")
        }
        let numbers = parts.map { $0! }
        return numbers.count == 1 ? Array(repeating: numbers[0], count: 3) : numbers
    }

    /// One of `choices`.
    func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = values[name] else { return nil }
        guard choices.contains(text) else {
            throw UsageError("\(name) takes one of \(choices.joined(separator: ", ")); got '\(text)'.")
        }
        return text
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func suggestion(for name: String, in specs: [OptionSpec]) -> String {
        let stem = String(name.drop { $0 == "-" })
        let close = specs.map(\.name).filter { candidate in
            let candidateStem = String(candidate.drop { $0 == "-" })
            return !stem.isEmpty && (candidateStem.hasPrefix(stem) || stem.hasPrefix(candidateStem))
        }
        return close.isEmpty ? " See --help for the options." : " Did you mean \(close.joined(separator: " or "))?"
    }
}

/// Renders a command's `--help`.
func helpText(usage: String, summary: String, specs: [OptionSpec], footer: String = "") -> String {
    let width = specs.map { $0.name.count + ($0.valueName.map { $0.count + 1 } ?? 0) }.max() ?? 0
    var lines = ["Usage: \(usage)", "", summary, "", "Options:"]
    for spec in specs {
        let left = spec.name + (spec.valueName.map { " " + $0 } ?? "")
        lines.append("  " + left.padded(to: width + 2) + spec.help)
    }
    if !footer.isEmpty { lines += ["", footer] }
    return lines.joined(separator: "\n")
}
