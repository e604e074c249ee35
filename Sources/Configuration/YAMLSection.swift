import Settings
/// One mapping of the config file, read key by key against the keys it may hold.
///
/// Building one checks the structure first, in file order: the node must be a mapping (or
/// absent or null, meaning empty), no key may repeat, and every key must be known. The typed
/// getters then read values; absent and null both mean "not set".
struct YAMLSection {
    /// The dotted path of this mapping, `""` for the root.
    let path: String
    let source: String
    /// Where the mapping starts, or nil when it is absent.
    let mark: YAMLMark?
    private var entries: [String: YAMLEntry] = [:]

    /// - Parameters:
    ///   - keys: every key this mapping may hold, in the order to list them in a message.
    ///   - hints: a sentence to add when a given unknown key is found (where that setting lives).
    init(_ node: YAMLNode?, path: String, keys: [String], hints: [String: String] = [:],
         source: String) throws(ConfigurationError) {
        self.path = path
        self.source = source
        switch node {
        case nil:
            mark = nil
        case .scalar(let scalar) where YAMLValue(scalar) == .null:
            mark = scalar.mark
        case .mapping(let list, let start):
            mark = start
            for entry in list {
                let name = entry.key.text
                let keyPath = Self.join(path, name)
                if let first = entries[name] {
                    throw ConfigurationError(code: .duplicateKey, source: source, keyPath: keyPath, mark: entry.key.mark,
                        reason: "this key is given twice (first at line \(first.key.mark.line)); keep one.")
                }
                guard keys.contains(name) else {
                    var reason = "unknown key."
                    if let hint = hints[name] {
                        reason += " " + hint
                    } else if let close = closestKey(to: name, in: keys) {
                        reason += " Did you mean \(Self.join(path, close))?"
                    }
                    let owner = path.isEmpty ? "The sections are" : "The keys of \(path) are"
                    reason += " \(owner): \(keys.joined(separator: ", "))."
                    throw ConfigurationError(code: .unknownKey, source: source, keyPath: keyPath, mark: entry.key.mark,
                                             reason: reason)
                }
                entries[name] = entry
            }
        case .some(let other):
            let what = path.isEmpty ? "the file" : path
            throw ConfigurationError(code: .wrongType, source: source, keyPath: path.isEmpty ? nil : path,
                                     mark: other.mark, reason:
                "\(what) must be a mapping of keys (key: value, one per line), not \(other.kindDescription).")
        }
    }

    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    func keyPath(_ key: String) -> String { Self.join(path, key) }

    /// The value of `key`, nil when absent or null.
    func node(_ key: String) -> YAMLNode? {
        guard let value = entries[key]?.value else { return nil }
        if case .scalar(let scalar) = value, YAMLValue(scalar) == .null { return nil }
        return value
    }

    /// Where the value of `key` starts (or the key, for a null value), nil when absent.
    func mark(_ key: String) -> YAMLMark? {
        node(key)?.mark ?? entries[key]?.key.mark
    }

    func error(_ code: ConfigurationError.Code, _ key: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(code: code, source: source, keyPath: keyPath(key), mark: mark(key), reason: reason)
    }

    /// The nested mapping `key`, empty when absent or null.
    func section(_ key: String, keys: [String], hints: [String: String] = [:]) throws(ConfigurationError) -> YAMLSection {
        let section = try YAMLSection(node(key), path: keyPath(key), keys: keys, hints: hints, source: source)
        return section
    }

    /// Text. Any scalar is text as written (`client_id: 42` is "42"); a mapping or list is not.
    func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let node = node(key) else { return nil }
        guard case .scalar(let scalar) = node else {
            throw error(.wrongType, key, "takes text, not \(node.kindDescription).")
        }
        return scalar.text
    }

    /// An absolute path.
    func path(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard text.hasPrefix("/") else {
            throw error(.invalidValue, key,
                        "\"\(text.truncatedForMessage)\" is not an absolute path; give the full path, starting with /.")
        }
        return text
    }

    /// A whole number in `range`.
    func int(_ key: String, in range: ClosedRange<Int>, what: String) throws(ConfigurationError) -> Int? {
        guard let node = node(key) else { return nil }
        let accepted = "\(what) is a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case .scalar(let scalar) = node, case .int(let value) = YAMLValue(scalar) else {
            throw error(.wrongType, key, "\(accepted), not \(node.kindDescription).")
        }
        guard range.contains(value) else {
            throw error(.invalidValue, key, "\(value) is out of range; \(accepted).")
        }
        return value
    }

    /// `true` or `false`.
    func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard case .scalar(let scalar) = node, case .bool(let value) = YAMLValue(scalar) else {
            var reason = "takes true or false, not \(node.kindDescription)."
            if case .scalar(let scalar) = node,
               ["yes", "no", "on", "off", "y", "n"].contains(scalar.text.lowercased()) {
                reason += " YAML 1.2 reads \(scalar.text) as text; write true or false."
            }
            throw error(.wrongType, key, reason)
        }
        return value
    }

    /// One of `choices`, as written (case matters).
    func choice(_ key: String, from choices: [String]) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard choices.contains(text) else {
            throw error(.invalidValue, key,
                        "\"\(text.truncatedForMessage)\" is not accepted; use one of \(choices.joined(separator: ", ")).")
        }
        return text
    }

    /// The value as live-setting input: plain scalars are untyped text the key reads as it
    /// needs, quoted ones are text only.
    func settingInput(_ key: String) -> SettingInput? {
        switch node(key) {
        case nil: nil
        case .scalar(let scalar): scalar.isPlain ? .text(scalar.text) : .string(scalar.text)
        case .mapping: .object
        case .sequence: .array
        }
    }
}

/// The known key within two edits of `name`, for "did you mean".
private func closestKey(to name: String, in keys: [String]) -> String? {
    let scored = keys.map { ($0, editDistance(name, $0)) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
}

private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
