import FoundationEssentials
import Persistence
#if canImport(Glibc)
import Glibc
#endif

extension AgentConfiguration {
    /// The largest config file read, so a wrong path (a log, a disk image) fails fast.
    static let maximumFileBytes = 1024 * 1024

    /// Reads, parses and checks the config file at `path`, then resolves the MQTT password.
    ///
    /// Beyond ``parse(yaml:source:hostname:)``: the TLS files the config names must be readable,
    /// and the password is resolved into ``MQTTSettings/password`` (see
    /// ``MQTTSettings/resolvePassword(environment:)``).
    ///
    /// - Parameter environment: where `PLUMB_MQTT_PASSWORD` is looked up.
    /// - Throws: ``ConfigurationError``: the file is missing or unreadable, or anything
    ///   ``parse(yaml:source:hostname:)`` refuses, or a named file is unreadable, or the
    ///   password cannot be resolved.
    public static func load(path: String = defaultPath,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            hostname: String = systemHostname()) throws(ConfigurationError) -> AgentConfiguration {
        let bytes: [UInt8]
        switch FileSystem.read(path, limit: maximumFileBytes) {
        case .success(let read):
            bytes = read
        case .failure(let problem):
            throw ConfigurationError(code: .unreadableFile, source: path, reason: unreadableConfigAdvice(problem))
        }
        var (configuration, marks) = try decode(bytes, source: path, hostname: hostname)
        func error(_ code: ConfigurationError.Code, _ keyPath: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(code: code, source: path, keyPath: keyPath, mark: marks[keyPath], reason: reason)
        }
        if let tls = configuration.mqtt.tls {
            for (key, file) in [("ca_file", tls.caFile), ("cert_file", tls.certFile), ("key_file", tls.keyFile)] {
                guard let file, let problem = FileSystem.checkReadable(file) else { continue }
                throw error(.unreadableFile, "mqtt.tls." + key, "\(file) cannot be read: \(problem.description)."
                    + " The plumb user must be able to read it (for example chgrp plumb \(file); chmod 640 \(file)).")
            }
        }
        do {
            configuration.mqtt.password = try configuration.mqtt.resolvePassword(environment: environment)
        } catch {
            // The same error, placed at the key in this file.
            throw ConfigurationError(code: error.code, source: path, keyPath: error.keyPath,
                                     mark: error.keyPath.flatMap { marks[$0] }, reason: error.reason)
        }
        return configuration
    }

    private static func unreadableConfigAdvice(_ problem: FileProblem) -> String {
        let cause = "the config file cannot be read: \(problem.description)."
        switch problem.errno {
        case ENOENT:
            return cause + " Copy the commented example config/plumb.yaml there (an empty file means all"
                + " defaults), or name another file with --config."
        case EACCES, EPERM:
            return cause + " The plumb user must be able to read it: chgrp plumb FILE; chmod 640 FILE."
        case EISDIR:
            return cause + " That is a directory; name the YAML file itself."
        default:
            return cause
        }
    }
}

extension AgentConfiguration.MQTTSettings {
    /// The MQTT password: `PLUMB_MQTT_PASSWORD` when set, otherwise the first line of
    /// ``passwordFile`` (one trailing newline dropped), otherwise nil.
    ///
    /// The password is never in the config file or on the command line, where `ps` and backups
    /// would show it.
    ///
    /// - Throws: ``ConfigurationError`` with code `.password` (key path `mqtt.password_file`,
    ///   or the variable's name) when the variable is set but empty, the file cannot be read or
    ///   is not UTF-8, the password is empty, or a password is given without ``username``.
    public func resolvePassword(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> String? {
        let variable = AgentConfiguration.passwordEnvironmentVariable
        let password: String
        if let value = environment[variable] {
            guard !value.isEmpty else {
                throw ConfigurationError(code: .password, source: "the environment", keyPath: variable, reason:
                    "\(variable) is set but empty; unset it to use mqtt.password_file, or set it to the password.")
            }
            password = value
        } else if let file = passwordFile {
            password = try Self.readPassword(file)
        } else {
            return nil
        }
        guard username != nil else {
            throw ConfigurationError(code: .password, source: "the environment", keyPath: variable, reason:
                "\(variable) is set but mqtt.username is not; MQTT sends no password without a user name."
                + " Set mqtt.username, or unset \(variable).")
        }
        return password
    }

    private static func readPassword(_ file: String) throws(ConfigurationError) -> String {
        func failure(_ reason: String) -> ConfigurationError {
            ConfigurationError(code: .password, source: file, keyPath: "mqtt.password_file", reason: reason)
        }
        let bytes: [UInt8]
        switch FileSystem.read(file, limit: 64 * 1024) {
        case .success(let read):
            bytes = read
        case .failure(let problem):
            throw failure("the password file \(file) cannot be read: \(problem.description). Create it with the"
                + " password on one line, readable by the plumb user only (chown plumb \(file); chmod 600 \(file)),"
                + " or set PLUMB_MQTT_PASSWORD instead.")
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw failure("the password file \(file) is not UTF-8 text.")
        }
        // Editors end files with a newline that is not part of the password; drop exactly one.
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else {
            throw failure("the password file \(file) is empty; write the password on its first line.")
        }
        return text
    }
}
