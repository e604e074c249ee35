import Settings
/// A broker written as a URL: `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`, IPv6 in brackets.
struct BrokerAddress: Equatable, Sendable {
    var usesTLS: Bool
    var host: String
    /// The port written, or nil for the scheme's default (1883, or 8883 for mqtts).
    var port: Int?

    static let form = "mqtt://HOST:PORT or mqtts://HOST:PORT (the port may be left out: 1883 for mqtt,"
        + " 8883 for mqtts; an IPv6 address goes in brackets, mqtt://[fd00::1]:1883)"

    /// The port connected to: the one written, or the scheme's default.
    var effectivePort: Int { port ?? (usesTLS ? 8883 : 1883) }

    /// Whether both name the same broker: the same host (case aside) and port, whatever the scheme.
    func sameBroker(as other: BrokerAddress) -> Bool {
        host.lowercased() == other.host.lowercased() && effectivePort == other.effectivePort
    }

    /// Reads `text`, or gives the reason it is not a broker URL.
    static func parse(_ text: String) -> Result<BrokerAddress, BrokerAddressProblem> {
        func problem(_ reason: String) -> Result<BrokerAddress, BrokerAddressProblem> {
            .failure(BrokerAddressProblem(reason: "\"\(text.truncatedForMessage)\" is not a broker URL: \(reason)."
                + " Write \(form)."))
        }
        let lower = text.lowercased()
        let usesTLS: Bool
        let rest: Substring
        if lower.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst("mqtt://".count)
        } else if lower.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst("mqtts://".count)
        } else {
            return problem("the scheme must be mqtt:// or mqtts://")
        }
        var authority = rest
        if let slash = rest.firstIndex(where: { "/?#".contains($0) }) {
            guard rest[slash...] == "/" else { return problem("a broker URL has no path, query or fragment") }
            authority = rest[..<slash]
        }
        if authority.contains("@") {
            return problem("credentials do not go in the URL; set mqtt.username and put the password in the"
                + " file named by mqtt.password_file (or in PLUMB_MQTT_PASSWORD)")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return problem("the [ of an IPv6 address is not closed") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return problem("only :PORT may follow an IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            if colons > 1 { return problem("an IPv6 address goes in brackets") }
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
        }
        if let reason = hostProblem(String(host)) { return problem(reason) }
        var port: Int?
        if let portText {
            guard let value = Int(portText), portText.allSatisfy(\.isASCII), (1...65_535).contains(value) else {
                return problem("the port must be a whole number from 1 to 65535")
            }
            port = value
        }
        return .success(BrokerAddress(usesTLS: usesTLS, host: String(host), port: port))
    }

    /// Why `host` cannot be a broker host, or nil when it can.
    static func hostProblem(_ host: String) -> String? {
        if host.isEmpty { return "the host is empty" }
        if host.count > 253 { return "a host name is at most 253 characters" }
        if host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "a host name has no spaces or control characters"
        }
        if host.contains(where: { "/@?#[]".contains($0) }) {
            return "a host name has no /, @, ?, # or brackets"
        }
        return nil
    }
}

struct BrokerAddressProblem: Error, Sendable {
    var reason: String
}
