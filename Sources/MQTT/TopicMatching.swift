// MQTT topic names and filters (MQTT 3.1.1 §4.7, MQTT 5 §4.7), shared by the real client, the
// in-memory recorder and the agent's routing.

/// Whether `topic` is delivered to a subscription on `filter`.
///
/// `+` matches exactly one level (which may be empty), `#` matches the parent level and any number
/// of child levels (`a/#` matches `a`, `a/b`, `a/b/c`). A filter that starts with a wildcard does
/// not match topics starting with `$` (`$SYS/…`). Returns false when either argument is malformed.
public func topicMatches(filter: String, topic: String) -> Bool {
    guard isValidTopicFilter(filter), isValidTopicName(topic) else { return false }
    if topic.hasPrefix("$"), filter.hasPrefix("+") || filter.hasPrefix("#") { return false }
    let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
    let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in filterLevels.enumerated() {
        if level == "#" { return true }
        guard index < topicLevels.count else { return false }
        if level != "+", level != topicLevels[index] { return false }
    }
    return filterLevels.count == topicLevels.count
}

/// Whether `topic` can be published to: non-empty, at most 65535 UTF-8 bytes, no `+`, `#` or NUL.
public func isValidTopicName(_ topic: String) -> Bool {
    !topic.isEmpty && topic.utf8.count <= 65535 && !topic.utf8.contains(where: { $0 == 0x2B || $0 == 0x23 || $0 == 0 })
}

/// Whether `filter` can be subscribed to: like a topic name, but `+` may stand for a whole level
/// and `#` for the whole last level.
public func isValidTopicFilter(_ filter: String) -> Bool {
    guard !filter.isEmpty, filter.utf8.count <= 65535, !filter.utf8.contains(0) else { return false }
    let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in levels.enumerated() {
        if level.contains("#"), level != "#" || index != levels.count - 1 { return false }
        if level.contains("+"), level != "+" { return false }
    }
    return true
}

extension MQTTError {
    /// The error ``MQTTClient/publish(_:payload:qos:retain:properties:)`` throws when not
    /// connected; test doubles throw the same.
    public static func notConnected(broker: String? = nil) -> MQTTError {
        MQTTError(code: .noConnection, reason: "the message was not sent", broker: broker)
    }

    /// The error for a topic that cannot be published to.
    public static func invalidTopicName(_ topic: String) -> MQTTError {
        MQTTError(code: .invalidTopic, reason: "\"\(topic)\" cannot be published to")
    }

    /// The error for a filter that cannot be subscribed to.
    public static func invalidTopicFilter(_ filter: String) -> MQTTError {
        MQTTError(code: .invalidTopic, reason: "\"\(filter)\" is not a valid subscription filter")
    }
}
