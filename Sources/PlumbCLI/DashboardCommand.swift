import Configuration
import Contract
import HomeAssistant
import Persistence
import Settings

/// `plumb dashboard`: prints the Home Assistant dashboard view for this device, with the entity
/// ids Home Assistant gives it, so nothing is edited by hand before it is pasted.
struct DashboardCommand: Subcommand {
    static let name = "dashboard"
    static let summary = "Print the Home Assistant dashboard view (YAML) for this device, with its entity ids."
    static let usage = "plumb dashboard [--device-id ID] [--config FILE] [--state-dir DIR]"
    static let specs: [OptionSpec] = [
        .value("--device-id", "ID", "The device (default: the config file's device.id)."),
        .value("--config", "FILE", "Config file with device.id, base_topic and the settings"
            + " (default \(AgentConfiguration.defaultPath) when present)."),
        .value("--state-dir", "DIR", "Where the agent keeps the settings changed over MQTT (default: the config file's state_dir)."),
    ]
    static let helpSummary = """
        Prints a Lovelace view for the device: the bubble, the level and its readings, their history, the
        vibration (while it is on), the settings with the answer to every press, diagnostics and calibration.
        The entity ids are those Home Assistant gives a device of the device's name, taken from the settings
        the agent uses: the config file's, changed by those saved in the state directory. Paste the output
        under views: in the dashboard's raw configuration editor.
        """

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let overrides = ConfigurationOverrides(deviceID: parsed.string("--device-id"), stateDirectory: parsed.string("--state-dir"))
        let configuration = try ConfigurationLoading(explicitPath: parsed.string("--config"), overrides: overrides)
            .loadForCommand()
        let peeked = StateStore(directory: configuration.stateDirectory).peekSettings(defaults: configuration.level)
        if let warning = peeked.warning { output.error("warning: " + warning) }
        let settings = peeked.settings ?? configuration.level
        if Dashboard.hasLettersBeyondSlug(settings.name) {
            // The name is validated printable, 1 to 64 characters (LiveSettings), so it prints as it is.
            output.error("warning: the device name \"\(settings.name)\" has letters Home Assistant"
                + " transliterates in ways this command does not; take the entity ids from the device's page in Home Assistant.")
        }
        let topics = Topics(baseTopic: configuration.mqtt.baseTopic, deviceID: configuration.device.id)
        output.printWithoutNewline(Dashboard.yaml(topics: topics, deviceID: configuration.device.id, settings: settings))
        return 0
    }
}
