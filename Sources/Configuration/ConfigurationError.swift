/// Why the configuration was refused: which file, which key, where, what is wrong, and what is
/// accepted instead.
///
/// Any of these stops start-up: the agent never runs on a configuration it half understood.
/// Shaped like I2CError: a struct around a private code, so causes can be added without
/// breaking callers that compare ``code``.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem. Compare against the static members (`error.code == .unknownKey`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String, Sendable {
            case syntax, unknownKey, duplicateKey, wrongType, invalidValue, conflict, unreadableFile
            case password, invalidOverride
        }
        fileprivate let kind: Kind

        /// The file is not valid YAML (libyaml's problem is in the reason), or uses a YAML feature
        /// a config file may not (aliases, tags, several documents).
        public static let syntax = Code(kind: .syntax)
        /// A key that Plumb does not know, at any depth. Never ignored: a typo would otherwise
        /// leave a setting at its default without a word.
        public static let unknownKey = Code(kind: .unknownKey)
        /// The same key twice in one mapping.
        public static let duplicateKey = Code(kind: .duplicateKey)
        /// A value of the wrong type: text for a number, a number for a boolean, a list for a
        /// section.
        public static let wrongType = Code(kind: .wrongType)
        /// A value of the right type that is out of range or not one of the accepted values.
        public static let invalidValue = Code(kind: .invalidValue)
        /// Two settings that cannot be combined, such as `mqtt.url` with `mqtt.host`.
        public static let conflict = Code(kind: .conflict)
        /// The config file, or a file it names (a TLS certificate), cannot be read.
        public static let unreadableFile = Code(kind: .unreadableFile)
        /// The MQTT password cannot be resolved: its file is unreadable or empty.
        public static let password = Code(kind: .password)
        /// A command-line override is invalid.
        public static let invalidOverride = Code(kind: .invalidOverride)

        public var description: String { kind.rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// The config file's path as given, or `command line` for an override.
    public let source: String
    /// The dotted path of the key concerned (`mqtt.port`, `mqtt.tls.ca_file`), when there is one.
    public let keyPath: String?
    /// The 1-based line in ``source``, when known.
    public let line: Int?
    /// The 1-based column in ``source``, when known.
    public let column: Int?
    /// What is wrong and what is accepted, as a sentence for a person.
    public let reason: String

    public init(code: Code, source: String, keyPath: String? = nil, line: Int? = nil, column: Int? = nil,
                reason: String) {
        self.code = code
        self.source = source
        self.keyPath = keyPath
        self.line = line
        self.column = column
        self.reason = reason
    }

    init(code: Code, source: String, keyPath: String? = nil, mark: YAMLMark?, reason: String) {
        self.init(code: code, source: source, keyPath: keyPath, line: mark?.line, column: mark?.column,
                  reason: reason)
    }

    /// One line in the compiler's shape, so editors can jump to it:
    /// `/etc/plumb/plumb.yaml:12:9: mqtt.port: 70000 is out of range; a TCP port is 1 to 65535.`
    public var description: String {
        var location = source
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        let key = keyPath.map { " \($0):" } ?? ""
        return "\(location):\(key) \(reason)"
    }
}
