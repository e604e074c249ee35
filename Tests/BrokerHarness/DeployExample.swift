import Foundation

/// The mosquitto examples in `deploy/mosquitto/`, run by the tests as they are shipped, with only
/// their addresses, ports and file paths changed: what a user copies is what was tested.
public enum DeployExample {
    /// `deploy/mosquitto/` in the source tree.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/mosquitto").path

    /// The example `name` (`site.conf`, `central.conf`) with every line whose directive is a key
    /// of `settings` set to its value, `replacing` applied to the whole text first (e.g. the site
    /// name), and the harness's own lines added: the user to stay, and the log the harness reads.
    /// - Throws: when a directive of `settings` is not in the example: the example changed and the
    ///   test must follow.
    public static func render(_ name: String, for placement: MosquittoBroker.Placement,
                              replacing: [(String, String)] = [], settings: [String: String]) throws -> String {
        let path = directory + "/" + name
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BrokerHarnessError("cannot read the deploy example \(path)")
        }
        for (old, new) in replacing { text = text.replacingOccurrences(of: old, with: new) }
        var unused = Set(settings.keys)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let directive = line.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            guard !line.hasPrefix("#"), let value = settings[directive] else { return String(line) }
            unused.remove(directive)
            return directive + " " + value
        }
        guard unused.isEmpty else {
            throw BrokerHarnessError("\(path) has no \(unused.sorted().joined(separator: ", ")) line to set")
        }
        return lines.joined(separator: "\n") + """

            # Added by the test harness:
            user \(placement.user)
            log_dest file \(placement.directory)/mosquitto.log
            log_type all
            connection_messages true

            """
    }

    /// The output of `deploy/mosquitto/plumb-acl arguments…`.
    public static func acl(_ arguments: [String]) throws -> String {
        try ChildProcess.runBlocking(directory + "/plumb-acl", arguments)
    }
}
