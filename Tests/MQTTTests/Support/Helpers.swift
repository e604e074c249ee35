import BrokerHarness
import Foundation
import MQTT

/// A client id no other test uses: the broker would hand a shared id's session to the newcomer.
func uniqueClientID(_ role: String = "test") -> String {
    "plumb-\(role)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// A topic prefix no other test uses.
func uniqueTopic(_ name: String) -> String {
    "plumb-test/\(UUID().uuidString.prefix(8).lowercased())/\(name)"
}

extension MosquittoBroker {
    /// A plain configuration for this broker; tweak the result as needed.
    func configuration(_ role: String = "test", version: MQTTProtocolVersion = .v5) -> MQTTConfiguration {
        MQTTConfiguration(host: host, port: port, clientID: uniqueClientID(role), protocolVersion: version)
    }
}

extension MQTTEvent {
    var isConnected: Bool { if case .connected = self { true } else { false } }
    var isConnectionFailed: Bool { if case .connectionFailed = self { true } else { false } }
    var isMessage: Bool { if case .message = self { true } else { false } }
}
