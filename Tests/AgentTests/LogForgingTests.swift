import Agent
import BrokerHarness
import Contract
import Foundation
import MQTT
import MQTTTesting
import Testing

/// A client on the broker writes text that reaches the log: a rejected value, a topic level, a
/// payload. It must never forge a line of its own (one record is one line) nor carry a NUL.
@Suite("The log cannot be forged")
struct LogForgingTests {
    typealias Rig = AgentCoreTests.Rig
    typealias LogLines = AgentCoreTests.LogLines

    /// The payload that made a separate `<3>` line in the journal before: a newline, then what
    /// reads as an error line from Plumb.
    static let forgedLine = "x\n<3>plumb: sensor fault: FORGED by an MQTT client"

    @Test func aControlCharacterThatReachesARecordIsEscapedAndABackslashIsLeftAlone() {
        let lines = LogLines()
        let log = AgentLog(level: .debug, sink: lines)
        log.warning("a\nb\r\u{0}c\u{1B}[31m\\n\u{2028}\u{85}")
        #expect(lines.all == [#"a\nb\r\u{0}c\u{1B}[31m\n\u{2028}\u{85}"#])
    }

    @Test func aRecordIsCutAtItsLimitWithAMarker() {
        let lines = LogLines()
        AgentLog(level: .info, sink: lines).info(String(repeating: "é", count: AgentLog.recordLimit + 5))
        let record = try! #require(lines.all.first)
        #expect(record.unicodeScalars.count == AgentLog.recordLimit + 1 && record.hasSuffix("…"))
        AgentLog(level: .info, sink: lines).info(String(repeating: "a", count: AgentLog.recordLimit))
        #expect(lines.all.last == String(repeating: "a", count: AgentLog.recordLimit), "exactly at the limit: no marker")
    }

    /// Every way a client can put text in front of the log, in memory: each record is one line
    /// with no control character, and the forged text shows only escaped.
    @Test func hostileValuesTopicsAndPayloadsLeaveOneLinePerRecord() async throws {
        let lines = LogLines()
        let rig = try Rig(log: AgentLog(level: .debug, sink: lines))
        rig.mqtt.simulateConnect()
        await rig.connect()
        let prefix = rig.topics.prefix
        let nul = "x\u{0}<3>plumb: FORGED after a NUL"
        let messages: [(topic: String, payload: String)] = [
            (rig.topics.configSet(key: "name"), Self.forgedLine),
            (rig.topics.configSet(key: "name"), nul),
            (rig.topics.configSet(key: "level_tolerance"), Self.forgedLine),
            (rig.topics.configSet(key: "no\n<3>plumb: FORGED key"), "1"),
            (rig.topics.configSet, #"{"level_tolerance": "\n<3>plumb: FORGED in JSON"}"#),
            (rig.topics.configSet, #"{"\n<3>plumb: FORGED key": 1}"#),
            (rig.topics.configSet, "{" + Self.forgedLine),
            (prefix + "/command/x\n<3>plumb: FORGED command", "PRESS"),
            (rig.topics.command(.calibrateReversal), Self.forgedLine),
            (prefix + "/config/a\n<3>plumb: FORGED/b/set", "1"),
        ]
        for message in messages {
            await rig.core.handle(.message(MQTTMessage(topic: message.topic, payload: Array(message.payload.utf8))))
        }
        #expect(lines.all.count >= messages.count, "every message is logged: \(lines.all)")
        for record in lines.all {
            #expect(!record.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(record)")
        }
        #expect(lines.all.contains { $0.contains(#"\n<3>plumb: sensor fault: FORGED"#) }, "the value shows, escaped")
    }
}

/// The same over a real mosquitto, reading what `plumb run` writes on stderr, the journal's input.
@Suite("The log cannot be forged over a real broker", .serialized)
struct LogForgingOverBrokerTests {
    @Test func theJournalGetsOneLinePerRecordWhateverAClientSends() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "log_level: debug\n")
        let p = agent.prefix
        await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "ok" }
        let forged = LogForgingTests.forgedLine
        try observer.publish(p + "/config/name/set", forged)
        try observer.publish(p + "/config/name/set", "x\u{0}<3>plumb: FORGED after a NUL")
        try observer.publish(p + "/config/level_tolerance/set", forged)
        try observer.publish(p + "/config/set", #"{"level_tolerance": "\n<3>plumb: FORGED in JSON"}"#)
        // Topics cannot carry a control character over a real broker (libmosquitto and mosquitto
        // refuse them as malformed UTF-8); the in-memory test above covers them.
        try observer.publish(p + "/calibration_reversal", forged)
        try observer.publish(p + "/command/calibrate_reversal", forged)
        // The last one is seen once the agent has logged it: the ones before it are in the log too.
        try observer.publish(p + "/command/last", "PRESS")
        #expect(await agent.waitForLog("unknown command 'last'"))
        #expect(await agent.send(SIGTERM)?.status == 0)

        let text = agent.stderr
        #expect(!text.unicodeScalars.contains("\u{0}"), "a NUL reached the log")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for line in lines {
            #expect(line.wholeMatch(of: /<[3467]>plumb: [^<].*/) != nil || line.hasPrefix("<6>plumb: <"),
                    "a line that is not one of Plumb's records: \(line)")
            #expect(!line.hasPrefix("<3>plumb: sensor fault: FORGED") && !line.hasPrefix("<3>plumb: FORGED"), "forged: \(line)")
        }
        let quoting = lines.filter { $0.contains("FORGED") }
        #expect(quoting.count >= 5, "the hostile values are logged, escaped: \(quoting)")
        #expect(quoting.allSatisfy { $0.contains(#"\n<3>plumb: "#) || $0.contains(#"\u{0}<3>plumb: "#) }, "\(quoting)")
        await observer.stop()
    }
}
