import Configuration
import FoundationEssentials

/// The agent's configuration as `plumb run` and `plumb forget` read it: the file (optional only
/// when it was not named), then the command line's overrides.
struct ConfigurationLoading: Sendable {
    let explicitPath: String?
    let overrides: ConfigurationOverrides

    var path: String { explicitPath ?? AgentConfiguration.defaultPath }

    /// Loads and validates; throws ``ConfigurationError``.
    func load() throws -> AgentConfiguration {
        var configuration: AgentConfiguration
        if explicitPath == nil && !FileManager.default.fileExists(atPath: path) {
            configuration = try AgentConfiguration.parse(yaml: "", source: "(defaults)")
        } else {
            configuration = try AgentConfiguration.load(path: path)
        }
        try configuration.apply(overrides: overrides)
        return configuration
    }

    /// Loads once for a command, turning a config error into exit status 78 (EX_CONFIG), which
    /// the systemd unit's RestartPreventExitStatus knows.
    func loadForCommand() throws -> AgentConfiguration {
        do {
            return try load()
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description, exitCode: 78)
        }
    }
}
