import Foundation

/// Renders the checked-in mosquitto config templates (`Configs/*.conf`) for one broker.
enum BrokerConfiguration {
    /// The templates sit next to this file in the source tree, so a reader sees exactly what the
    /// tests run against.
    static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Configs").path

    static func render(options: MosquittoBroker.Options, port: Int, directory: String, passwordFile: String?,
                       certificates: TestCertificates?) throws -> String {
        let template = options.tls ? "tls" : (passwordFile == nil ? "plain" : "password")
        var values = [
            "USER": currentUserName(),
            "PORT": String(port),
            "DIRECTORY": directory,
            "PERSISTENCE": options.persistence ? "true" : "false",
            "ALLOW_ANONYMOUS": (options.allowAnonymous ?? (passwordFile == nil)) ? "true" : "false",
        ]
        if let passwordFile {
            values["PASSWORD_FILE"] = passwordFile
            values["PASSWORD_FILE_DIRECTIVE"] = "password_file \(passwordFile)"
        } else {
            values["PASSWORD_FILE_DIRECTIVE"] = "# no password file"
        }
        if let certificates {
            values["CA_FILE"] = certificates.caFile
            values["SERVER_CERT_FILE"] = certificates.serverCertFile
            values["SERVER_KEY_FILE"] = certificates.serverKeyFile
            values["REQUIRE_CERTIFICATE"] = options.requireClientCertificate ? "true" : "false"
        }
        let path = "\(templates)/\(template).conf"
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BrokerHarnessError("cannot read the mosquitto config template \(path)")
        }
        for (name, value) in values {
            text = text.replacingOccurrences(of: "{{\(name)}}", with: value)
        }
        if let unfilled = text.range(of: #"\{\{[A-Z_]+\}\}"#, options: .regularExpression) {
            throw BrokerHarnessError("\(path) has a placeholder the harness does not fill: \(text[unfilled])")
        }
        return text
    }

    static func currentUserName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }
}

/// A port that was free on 127.0.0.1 a moment ago: the kernel picks it for a bind to port 0.
func freeLoopbackPort() throws -> Int {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { throw BrokerHarnessError("socket(): \(String(cString: strerror(errno)))") }
    defer { close(socketFD) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(socketFD, socketAddress, length) == 0 && getsockname(socketFD, socketAddress, &length) == 0
        }
    }
    guard bound else { throw BrokerHarnessError("cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func canConnect(port: Int) -> Bool {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { return false }
    defer { close(socketFD) }
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            connect(socketFD, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}
