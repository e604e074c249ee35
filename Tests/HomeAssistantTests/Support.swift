import BrokerHarness
import Contract
import Foundation
import Geometry
import HomeAssistant
import Settings
import Testing

/// A failure in the tests' own set-up (a missing tool, a payload that isn't JSON).
struct TestSetupError: Error, CustomStringConvertible {
    var description: String
}

/// One discovery message, decoded.
struct DecodedEntity {
    var topic: String
    var component: String
    var objectID: String
    var config: [String: JSONValue]

    subscript(key: String) -> JSONValue? { config[key] }

    func string(_ key: String) -> String? {
        if case .string(let value)? = config[key] { return value }
        return nil
    }

    func number(_ key: String) -> Double? {
        switch config[key] {
        case .number(let value)?: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let value)? = config[key] { return value }
        return nil
    }

    func object(_ key: String) -> [String: JSONValue]? {
        if case .object(let value)? = config[key] { return value }
        return nil
    }

    func strings(_ key: String) -> [String]? {
        guard case .array(let values)? = config[key] else { return nil }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
}

enum Fixture {
    static let prefix = "homeassistant"
    static let deviceID = "lathe-3"
    static let topics = Topics(baseTopic: "plumb", deviceID: deviceID)
    static let device = DiscoveryDevice(id: deviceID, version: "1.4.0", chipModel: "ADXL345")

    /// Settings as the agent would hold them, changed through the validating JSON path.
    static func settings(_ json: String = "{}") throws -> LiveSettings {
        try LiveSettings().applying(json: Array(json.utf8))
    }

    static func settings(unit: AngleUnit, mount: String = "flat", name: String = "Lathe 3") throws -> LiveSettings {
        try settings(#"{"angle_unit":"\#(unit.rawValue)","mount":"\#(mount)","name":"\#(name)"}"#)
    }

    static func messages(settings: LiveSettings, device: DiscoveryDevice = device) -> [DiscoveryMessage] {
        Discovery.messages(prefix: prefix, topics: topics, device: device, settings: settings)
    }

    /// The entities' configs: every message but the device triggers, which are no entities.
    static func entities(settings: LiveSettings, device: DiscoveryDevice = device) throws -> [DecodedEntity] {
        try messages(settings: settings, device: device).map(decode).filter { $0.component != "device_automation" }
    }

    /// The device triggers' configs.
    static func triggers(settings: LiveSettings, device: DiscoveryDevice = device) throws -> [DecodedEntity] {
        try messages(settings: settings, device: device).map(decode).filter { $0.component == "device_automation" }
    }

    static func decode(_ message: DiscoveryMessage) throws -> DecodedEntity {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 5, levels[4] == "config" else {
            throw TestSetupError(description: "unexpected discovery topic \(message.topic)")
        }
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(message.payload))
        guard case .object(let config) = value else {
            throw TestSetupError(description: "payload of \(message.topic) is not a JSON object")
        }
        return DecodedEntity(topic: message.topic, component: levels[1], objectID: levels[3], config: config)
    }
}

extension Array where Element == DecodedEntity {
    func entity(_ objectID: String) throws -> DecodedEntity {
        try #require(first { $0.objectID == objectID }, "no entity \(objectID)")
    }
}

/// MQTT topic-filter matching (`+` one level, `#` the rest), enough for discovery filters.
func topic(_ topic: String, matches filter: String) -> Bool {
    let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
    let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in filterLevels.enumerated() {
        if level == "#" { return true }
        guard index < topicLevels.count else { return false }
        if level != "+" && level != topicLevels[index] { return false }
    }
    return topicLevels.count == filterLevels.count
}

/// The package root: this file is `<root>/Tests/HomeAssistantTests/Support.swift`.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `executable` with `arguments` to its end in `directory`, `input` its standard input
/// (``CommandRun/blocking(_:environment:enter:input:directory:timeout:)``); Home Assistant's
/// checker imports the whole of Home Assistant, so it gets minutes.
func run(_ executable: URL, _ arguments: [String], input: Data? = nil, in directory: URL) throws -> CommandOutcome {
    try CommandRun.blocking([executable.path] + arguments, input: input, directory: directory.path, timeout: 600)
}

/// A fresh temporary directory (``makeTemporaryDirectory(_:)``) as a URL, removed by the caller.
func makeTemporaryDirectoryURL() throws -> URL {
    URL(fileURLWithPath: try makeTemporaryDirectory("ha"), isDirectory: true)
}

/// An executable on `PATH`, or nil.
func executableOnPath(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}


/// Renders each template with its MQTT payload by Home Assistant's own template engine
/// (`ha-conformance render`): the text each renders, or nil where Home Assistant failed to.
func renderWithHomeAssistant(_ items: [(template: String, payload: String)]) async throws -> [String?] {
    struct Line: Encodable { var template: String; var payload: String }
    struct Rendered: Decodable { var rendered: String? }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var input = Data()
    for item in items { input += try encoder.encode(Line(template: item.template, payload: item.payload)) + Data("\n".utf8) }
    let directory = try makeTemporaryDirectoryURL()
    defer { try? FileManager.default.removeItem(at: directory) }
    let checker = HAConformanceTests.checker
    let stdin = input
    let result = try await offThePool { try run(checker, ["render"], input: stdin, in: directory) }
    let lines = result.stdout.split(separator: "\n")
    guard lines.count == items.count else {
        throw TestSetupError(description: "ha-conformance render gave \(lines.count) lines for \(items.count): \(result.stderr)")
    }
    return try lines.map { try JSONDecoder().decode(Rendered.self, from: Data($0.utf8)).rendered }
}
