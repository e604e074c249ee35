import BrokerHarness
import CMosquitto
import Foundation
import Testing

/// Pins down what libmosquitto 2.0.11's own threaded loop (`mosquitto_loop_start`) does, which is
/// why `MosquittoSession` drives `mosquitto_loop` from a thread of its own. If a libmosquitto
/// upgrade makes these fail, its loop may have become usable: re-read MosquittoSession.swift.
@Suite("libmosquitto's own loop (why we drive our own)")
struct LibmosquittoBehaviourTests {
    /// A raw libmosquitto client with the threaded loop, as its documentation suggests.
    private final class RawClient {
        let handle: OpaquePointer

        init(version: Int32, username: String? = nil, password: String? = nil) throws {
            mosquitto_lib_init()
            handle = try #require(mosquitto_new("raw-\(UUID().uuidString.prefix(8))", true, nil))
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version)
            if let username { mosquitto_username_pw_set(handle, username, password) }
            mosquitto_reconnect_delay_set(handle, 1, 30, true)
        }

        deinit {
            // Marking it disconnected lets even the stuck thread leave its wait; no pthread_cancel.
            mosquitto_disconnect(handle)
            mosquitto_loop_stop(handle, false)
            mosquitto_destroy(handle)
        }
    }

    /// CONNECTs the broker answered (the harness's own readiness probe sends none).
    private static func connections(_ broker: MosquittoBroker) -> Int {
        broker.logContents().components(separatedBy: "Sending CONNACK to").count - 1
    }

    @Test("A connect_async refused before loop_start is never retried, even once the broker is up")
    func neverRetriesAFailedFirstConnect() async throws {
        let broker = try MosquittoBroker.start()
        broker.stop()
        let client = try RawClient(version: MQTT_PROTOCOL_V5)
        errno = 0
        let rc = mosquitto_connect_async(client.handle, broker.host, Int32(broker.port), 30)
        let error = errno
        #expect(rc == MOSQ_ERR_ERRNO.rawValue)
        #expect(error == ECONNREFUSED)
        mosquitto_loop_start(client.handle)
        try broker.restart()
        try await Task.sleep(for: .milliseconds(2500))
        // Its thread waits for the state to leave "new", which a failed connect never does.
        #expect(Self.connections(broker) == 0)
    }

    @Test("After an MQTT 5 refusal (bad password) the loop thread gives up; with 3.1.1 it retries")
    func givesUpAfterAnMQTT5Refusal() async throws {
        let broker = try MosquittoBroker.start(.init(passwordFile: ["plumb": "s3cret"]))
        let v5 = try RawClient(version: MQTT_PROTOCOL_V5, username: "plumb", password: "wrong")
        mosquitto_loop_start(v5.handle)
        mosquitto_connect_async(v5.handle, broker.host, Int32(broker.port), 30)
        try await Task.sleep(for: .milliseconds(2500))
        // CONNACK 0x87 makes handle__connack return MOSQ_ERR_PROTOCOL, which loop_forever treats
        // as fatal: one attempt, then nothing. (3.1.1's CONNACK 5 is MOSQ_ERR_CONN_REFUSED: retried.)
        #expect(Self.connections(broker) == 1)

        let v311 = try RawClient(version: MQTT_PROTOCOL_V311, username: "plumb", password: "wrong")
        mosquitto_loop_start(v311.handle)
        mosquitto_connect_async(v311.handle, broker.host, Int32(broker.port), 30)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(Self.connections(broker) >= 3, "3.1.1: the first attempt and a retry after 1 s")
    }
}
