// Text rules the config file and the live settings share: `package`, for Configuration's YAML.

/// Strict decimal numbers as a person types them: `[+-]digits[.digits][e[+-]digits]`, also
/// `.5` and `5.`. Never `nan`, `inf`, hexadecimal or a comma, all of which `Double(_:)` would
/// otherwise read or half-read.
package enum DecimalText {
    package static func isDecimal(_ text: some StringProtocol) -> Bool {
        var characters = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            let count = characters.prefix(while: { ("0"..."9").contains($0) }).count
            characters = characters.dropFirst(count)
            return count
        }
        if characters.first == "+" || characters.first == "-" { characters = characters.dropFirst() }
        var count = digits()
        if characters.first == "." {
            characters = characters.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if characters.first == "e" || characters.first == "E" {
            characters = characters.dropFirst()
            if characters.first == "+" || characters.first == "-" { characters = characters.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return characters.isEmpty
    }

    /// The finite value of a strict decimal, or nil (not decimal, or too large for a `Double`).
    package static func finiteValue(_ text: some StringProtocol) -> Double? {
        guard isDecimal(text), let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }
}

extension String {
    /// At most 100 characters, with `…` when cut, so a message never carries a whole payload.
    package var truncatedForMessage: String {
        count > 100 ? String(prefix(100)) + "…" : self
    }
}
