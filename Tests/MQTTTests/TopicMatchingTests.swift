import MQTT
import Testing

@Suite("Topic names and filters")
struct TopicMatchingTests {
    @Test("Filters match topics by the MQTT rules", arguments: [
        ("a/b/c", "a/b/c", true),
        ("a/b/c", "a/b", false),
        ("a/+/c", "a/b/c", true),
        ("a/+/c", "a//c", true),
        ("a/+", "a/b/c", false),
        ("a/+", "a", false),
        ("+/+", "/finance", true),
        ("+", "/finance", false),
        ("a/#", "a", true),
        ("a/#", "a/b/c", true),
        ("a/#", "ab", false),
        ("#", "a/b", true),
        ("#", "$SYS/broker/uptime", false),
        ("+/broker/uptime", "$SYS/broker/uptime", false),
        ("$SYS/#", "$SYS/broker/uptime", true),
        ("plumb/+/config/set/+", "plumb/bench/config/set/unit", true),
        ("A/b", "a/b", false),
    ])
    func matching(filter: String, topic: String, matches: Bool) {
        #expect(topicMatches(filter: filter, topic: topic) == matches)
    }

    @Test("Malformed filters and topics never match", arguments: [
        ("a/#/c", "a/b/c"), ("a/b#", "a/b#"), ("a+/b", "a+/b"), ("", ""), ("a/+", "a/+"), ("#", ""),
    ])
    func malformed(filter: String, topic: String) {
        #expect(!topicMatches(filter: filter, topic: topic))
    }

    @Test("Topic names and filters are validated")
    func validation() {
        #expect(isValidTopicName("plumb/bench/state"))
        #expect(isValidTopicName("/"))
        #expect(!isValidTopicName(""))
        #expect(!isValidTopicName("a/+"))
        #expect(!isValidTopicName("a/#"))
        #expect(!isValidTopicName("a\u{0}b"))
        #expect(!isValidTopicName(String(repeating: "x", count: 65536)))
        #expect(isValidTopicFilter("#"))
        #expect(isValidTopicFilter("+/+/#"))
        #expect(!isValidTopicFilter("a/#/b"))
        #expect(!isValidTopicFilter("a/b+"))
        #expect(!isValidTopicFilter(""))
    }
}
