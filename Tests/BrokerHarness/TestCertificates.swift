import Foundation
import PlumbSync

/// A throw-away PKI for TLS tests, generated with `openssl` once per test process and deleted at
/// exit: a CA, a server certificate for 127.0.0.1 and localhost, a client certificate, and a
/// second CA that signed nothing (to test verification failures).
///
/// Keys are P-256 (fast to generate), unencrypted, valid for ten years.
public struct TestCertificates: Sendable {
    /// The directory holding every file below.
    public let directory: String
    /// The CA that signed the server and client certificates: what a client must trust.
    public let caFile: String
    /// The broker's certificate, subjectAltName IP:127.0.0.1 and DNS:localhost.
    public let serverCertFile: String
    public let serverKeyFile: String
    /// A client certificate signed by ``caFile`` (CN plumb-test-client), for
    /// `require_certificate true`.
    public let clientCertFile: String
    public let clientKeyFile: String
    /// A CA that signed nothing here: trusting only it must fail verification.
    public let untrustedCAFile: String

    /// The certificates of this test process, generated on first use.
    public static func shared() throws -> TestCertificates {
        try generated.get()
    }

    // A static `let` is initialised once, thread-safely, on first use: parallel tests share it.
    private static let generated: Result<TestCertificates, BrokerHarnessError> = {
        do {
            return .success(try generate())
        } catch let error as BrokerHarnessError {
            return .failure(error)
        } catch {
            return .failure(BrokerHarnessError("cannot generate test certificates: \(error)"))
        }
    }()

    private static func generate() throws -> TestCertificates {
        let openssl = try executablePath("openssl")
        let directory = try makeTemporaryDirectory("test-pki")
        certificateDirectory.withLock { $0 = directory }
        atexit {
            if let directory = certificateDirectory.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        func path(_ name: String) -> String { "\(directory)/\(name)" }
        func run(_ arguments: [String]) throws { _ = try ChildProcess.runBlocking(openssl, arguments) }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        for (name, subject) in [("ca", "/CN=Plumb Test CA"), ("untrusted-ca", "/CN=Plumb Untrusted Test CA")] {
            try run(["req", "-x509", "-new"] + newKey + [
                "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-days", "3650", "-subj", subject,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        }
        let leaves = [
            ("server", "/CN=localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"),
            ("client", "/CN=plumb-test-client", "extendedKeyUsage=clientAuth\n"),
        ]
        for (name, subject, extensions) in leaves {
            try run(["req", "-new"] + newKey + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"),
                                                "-subj", subject])
            try (extensions + "basicConstraints=CA:FALSE\n").write(toFile: path("\(name).ext"), atomically: true,
                                                                  encoding: .utf8)
            try run(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                     "-CAcreateserial", "-out", path("\(name).crt"), "-days", "3650", "-extfile", path("\(name).ext")])
        }
        return TestCertificates(directory: directory, caFile: path("ca.crt"), serverCertFile: path("server.crt"),
                                serverKeyFile: path("server.key"), clientCertFile: path("client.crt"),
                                clientKeyFile: path("client.key"), untrustedCAFile: path("untrusted-ca.crt"))
    }
}

/// Where the certificates live, for the `atexit` clean-up (a C function pointer cannot capture).
private let certificateDirectory = Locked<String?>(nil)

