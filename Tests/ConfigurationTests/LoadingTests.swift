import Accelerometers
import BrokerHarness
import Configuration
import Contract
import Foundation
import Testing

@Suite("Loading a file: the file, the files it names, and the password")
struct LoadingTests {
    private func load(_ directory: TemporaryDirectory, _ name: String = "plumb.yaml",
                      environment: [String: String] = [:]) throws(ConfigurationError) -> AgentConfiguration {
        try AgentConfiguration.load(path: directory.file(name), environment: environment, hostname: "pi")
    }

    private func loadError(_ directory: TemporaryDirectory, environment: [String: String] = [:],
                           sourceLocation: SourceLocation = #_sourceLocation) -> ConfigurationError? {
        do {
            _ = try load(directory, environment: environment)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test("A file is read, parsed and checked; an empty file is all defaults")
    func loadsAFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("sensor:\n  kind: sim\n", to: "plumb.yaml")
        let config = try load(directory)
        #expect(config.sensor.kind == .sim)
        #expect(config.device.id == "pi")
        try directory.write("", to: "plumb.yaml")
        #expect(try load(directory) == (try parse("", hostname: "pi")))
    }

    @Test("A missing config file says how to create one, naming the path")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let error = loadError(directory)
        expectError(error, .unreadableFile, keyPath: nil, line: nil, reasonContains: ["ENOENT", "config/plumb.yaml"])
        #expect(error?.source == directory.file("plumb.yaml"))
    }

    @Test("A directory given as the config file is unreadable, and says so")
    func directoryAsFile() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("plumb.yaml"), withIntermediateDirectories: false)
        expectError(loadError(directory), .unreadableFile, keyPath: nil, line: nil, reasonContains: ["directory"])
    }

    @Test("Invalid UTF-8 in the file is a syntax error from libyaml")
    func invalidUTF8() throws {
        let directory = try TemporaryDirectory()
        let bytes: [UInt8] = Array("device:\n  name: ".utf8) + [0xFF, 0xFE, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file("plumb.yaml")))
        expectError(loadError(directory), .syntax, keyPath: nil, line: nil, reasonContains: ["UTF-8"])
    }

    @Test("Errors from load carry the file's path as their source")
    func errorsNameTheFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("mqtt:\n  port: 0\n", to: "plumb.yaml")
        let error = try #require(loadError(directory))
        #expect(error.description.hasPrefix(directory.file("plumb.yaml") + ":2:9: mqtt.port:"))
    }

    @Test("An unreadable TLS file named in the config stops start-up at its key and line")
    func unreadableTLSFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("ca", to: "ca.pem")
        let yaml = "mqtt:\n  url: mqtts://b\n  tls:\n    ca_file: \(directory.file("ca.pem"))\n"
            + "    cert_file: \(directory.file("missing.pem"))\n    key_file: \(directory.file("ca.pem"))\n"
        try directory.write(yaml, to: "plumb.yaml")
        expectError(loadError(directory), .unreadableFile, keyPath: "mqtt.tls.cert_file", line: 5,
                    reasonContains: ["missing.pem", "ENOENT"])
    }

    @Test("The password comes from password_file, with one trailing newline dropped", arguments: [
        ("s3cret\n", "s3cret"), ("s3cret", "s3cret"), ("s3cret\r\n", "s3cret"), ("s3cret\n\n", "s3cret\n"),
        ("  spaced  \n", "  spaced  "),
    ])
    func passwordFromFile(contents: String, password: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write(contents, to: "password")
        try directory.write("mqtt:\n  username: plumb\n  password_file: \(directory.file("password"))\n", to: "plumb.yaml")
        let config = try load(directory)
        #expect(config.mqtt.password == password)
        #expect(try config.mqtt.resolvePassword(environment: [:]) == password)
    }

    @Test("PLUMB_MQTT_PASSWORD overrides the password file")
    func passwordFromEnvironment() throws {
        let directory = try TemporaryDirectory()
        try directory.write("from-file\n", to: "password")
        try directory.write("mqtt:\n  username: plumb\n  password_file: \(directory.file("password"))\n", to: "plumb.yaml")
        let config = try load(directory, environment: ["PLUMB_MQTT_PASSWORD": "from-env"])
        #expect(config.mqtt.password == "from-env")
        #expect(AgentConfiguration.passwordEnvironmentVariable == "PLUMB_MQTT_PASSWORD")
    }

    @Test("No username, no file and no variable means no password")
    func noPassword() throws {
        let directory = try TemporaryDirectory()
        try directory.write("mqtt:\n  username: plumb\n", to: "plumb.yaml")
        #expect(try load(directory).mqtt.password == nil)
    }

    @Test("An empty password file is refused, at the key's line", arguments: ["", "\n", "\r\n"])
    func emptyPasswordFile(contents: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write(contents, to: "password")
        try directory.write("mqtt:\n  username: plumb\n  password_file: \(directory.file("password"))\n", to: "plumb.yaml")
        expectError(loadError(directory), .password, keyPath: "mqtt.password_file", line: 3,
                    reasonContains: ["is empty", "first line"])
    }

    @Test("An unreadable password file is refused, naming the file and the cause")
    func unreadablePasswordFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("mqtt:\n  username: plumb\n  password_file: \(directory.file("nope"))\n", to: "plumb.yaml")
        let error = loadError(directory)
        expectError(error, .password, keyPath: "mqtt.password_file", line: 3,
                    reasonContains: [directory.file("nope"), "cannot be read", "ENOENT", "PLUMB_MQTT_PASSWORD"])
    }

    @Test("An empty PLUMB_MQTT_PASSWORD, or one without a user name, is refused")
    func badEnvironmentPassword() throws {
        let directory = try TemporaryDirectory()
        try directory.write("mqtt:\n  username: plumb\n", to: "plumb.yaml")
        expectError(loadError(directory, environment: ["PLUMB_MQTT_PASSWORD": ""]), .password,
                    keyPath: "PLUMB_MQTT_PASSWORD", line: nil, reasonContains: ["set but empty"])
        try directory.write("", to: "plumb.yaml")
        expectError(loadError(directory, environment: ["PLUMB_MQTT_PASSWORD": "pw"]), .password,
                    keyPath: "PLUMB_MQTT_PASSWORD", line: nil, reasonContains: ["mqtt.username"])
    }

    @Test("A file over 1 MiB is refused before parsing")
    func hugeFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write(String(repeating: "# padding\n", count: 110_000), to: "plumb.yaml")
        expectError(loadError(directory), .unreadableFile, keyPath: nil, line: nil, reasonContains: ["larger than"])
    }
}
