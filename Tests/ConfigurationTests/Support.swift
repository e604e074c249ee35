import Configuration
import Foundation
import Geometry
import Settings
import Testing

// Helpers shared by the configuration tests.

/// Parses `yaml` as `test.yaml` on a host named `testhost`.
func parse(_ yaml: String, hostname: String = "testhost") throws(ConfigurationError) -> AgentConfiguration {
    try AgentConfiguration.parse(yaml: yaml, source: "test.yaml", hostname: hostname)
}

/// The error parsing `yaml` gives; records an issue when it parses.
func parseError(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigurationError? {
    do {
        _ = try parse(yaml)
        Issue.record("expected a configuration error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks an error's code, key path, line and column, and that its reason and one-line
/// description carry `reasonContains`.
func expectError(
    _ error: ConfigurationError?, _ code: ConfigurationError.Code, keyPath: String?, line: Int?, column: Int? = nil,
    reasonContains: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.keyPath == keyPath, "\(error)", sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    if let column { #expect(error.column == column, "\(error)", sourceLocation: sourceLocation) }
    for text in reasonContains {
        #expect(error.reason.contains(text), "\(error.reason) lacks \(text)", sourceLocation: sourceLocation)
    }
    if let keyPath { #expect(error.description.contains(keyPath), sourceLocation: sourceLocation) }
    if let line { #expect(error.description.contains(":\(line)"), sourceLocation: sourceLocation) }
}

/// The rejection applying `json` gives; records an issue when it applies.
func rejected(_ json: String, to settings: LiveSettings = LiveSettings(),
               sourceLocation: SourceLocation = #_sourceLocation) -> SettingsRejection? {
    do {
        let applied = try settings.applying(json: Array(json.utf8))
        Issue.record("expected \(json) to be rejected, got \(applied.effective)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The rejection applying the raw value `raw` to `key` gives; records an issue when it applies.
func rawRejection(_ key: String, _ raw: String, to settings: LiveSettings = LiveSettings(),
                  sourceLocation: SourceLocation = #_sourceLocation) -> SettingsRejection? {
    do {
        let applied = try settings.applying(key: key, rawValue: Array(raw.utf8))
        Issue.record("expected \(key) = \(raw) to be rejected, got \(applied.effective)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

func applying(_ json: String, to settings: LiveSettings = LiveSettings()) throws -> LiveSettings {
    try settings.applying(json: Array(json.utf8))
}

func applying(_ key: String, raw: String, to settings: LiveSettings = LiveSettings()) throws -> LiveSettings {
    try settings.applying(key: key, rawValue: Array(raw.utf8))
}

